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
	EvGeneric = config.NotifyGeneric
	EvString  = config.NotifyString
	EvList    = config.NotifyList
	EvSet     = config.NotifySet
	EvHash    = config.NotifyHash
	EvZset    = config.NotifyZset
	evExpired = config.NotifyExpired
	evEvicted = config.NotifyEvicted
	evKeyMiss = config.NotifyKeyMiss
	EvNew     = config.NotifyNew
)

// Notify publishes event for key in db when its class is enabled.
func (sh *Shard) Notify(class uint32, event string, db int, key []byte) {
	if sh.Srv.Opts.Live.NotifyFlags()&class == 0 {
		return
	}
	sh.publishEvent(class, event, db, key)
}

// Notify publishes event for key in the command's database.
func (x *Ctx) Notify(class uint32, event string, key []byte) {
	if x.S.Srv.Opts.Live.NotifyFlags()&class == 0 {
		return
	}
	x.S.publishEvent(class, event, x.DB.ID, key)
}

func (sh *Shard) publishEvent(_ uint32, event string, db int, key []byte) {
	flags := sh.Srv.Opts.Live.NotifyFlags()
	if flags&config.NotifyKeyspace != 0 {
		ch := make([]byte, 0, 20+len(key))
		ch = append(ch, "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		sh.Publish(ch, []byte(event), false)
	}
	if flags&config.NotifyKeyevent != 0 {
		ch := make([]byte, 0, 20+len(event))
		ch = append(ch, "__keyevent@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, event...)
		sh.Publish(ch, key, false)
	}
}
