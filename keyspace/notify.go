package keyspace

import (
	"strconv"

	"github.com/ruvio/ruvio/config"
)

// Keyspace notifications. A change to a key publishes, on the shard that
// owns the key, to "__keyspace@<db>__:<key>" (message: the event) when
// notify-keyspace-events has K, and to "__keyevent@<db>__:<event>"
// (message: the key) when it has E, for the event classes it enables.
// Subscribers see them like any classic channel of that shard. With
// notifications off the write path pays one atomic load per event.

// Event classes, as config.NotifyMask bits.
const (
	evGeneric = config.NotifyGeneric
	evString  = config.NotifyString
	evList    = config.NotifyList
	evSet     = config.NotifySet
	evHash    = config.NotifyHash
	evZset    = config.NotifyZset
	evExpired = config.NotifyExpired
	evEvicted = config.NotifyEvicted
	evKeyMiss = config.NotifyKeyMiss
	evNew     = config.NotifyNew
)

// notify publishes event for key in db when its class is enabled.
func (sh *Shard) notify(class uint32, event string, db int, key []byte) {
	if sh.srv.opts.Live.NotifyFlags()&class == 0 {
		return
	}
	sh.publishEvent(class, event, db, key)
}

// notify publishes event for key in the command's database.
func (x *Ctx) notify(class uint32, event string, key []byte) {
	if x.S.srv.opts.Live.NotifyFlags()&class == 0 {
		return
	}
	x.S.publishEvent(class, event, x.DB.id, key)
}

func (sh *Shard) publishEvent(_ uint32, event string, db int, key []byte) {
	flags := sh.srv.opts.Live.NotifyFlags()
	if flags&config.NotifyKeyspace != 0 {
		ch := make([]byte, 0, 20+len(key))
		ch = append(ch, "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		sh.publish(ch, []byte(event), false)
	}
	if flags&config.NotifyKeyevent != 0 {
		ch := make([]byte, 0, 20+len(event))
		ch = append(ch, "__keyevent@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, event...)
		sh.publish(ch, key, false)
	}
}
