package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"errors"
	"math"

	"github.com/ruvio/ruvio/types/rdb"
)

const (
	errBusyKey       = "BUSYKEY Target key name already exists."
	errDumpPayload   = "ERR DUMP payload version or checksum are wrong"
	errBadDataFormat = "ERR Bad data format"
)

// rdbValuer is implemented by the value types DUMP serializes (and by
// those it refuses with their own message).
type rdbValuer interface {
	// RDBValue returns the value's plain contents (copies: iterators may
	// reuse their buffers), or the error to reply when it has none.
	RDBValue(now int64) (rdb.Value, string)
}

// rdbValueOf converts the value of e to its plain contents. msg is the
// error to reply when the type has no Redis serialization.
func rdbValueOf(db *keyspace.DB, e *keyspace.Entry, now int64) (v rdb.Value, msg string) {
	o := db.Obj(e)
	if o == nil {
		return rdb.Value{Kind: rdb.KindString, Str: db.Val(e)}, ""
	}
	if rv, ok := o.(rdbValuer); ok {
		return rv.RDBValue(now)
	}
	return v, "ERR DUMP of this value type is not supported"
}

// DUMP key
func dumpCommand(x *keyspace.Ctx) {
	e := x.S.LookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Null()
		return
	}
	v, msg := rdbValueOf(x.DB, e, x.S.NowMs)
	if msg != "" {
		x.W.Error(msg)
		return
	}
	x.W.Bulk(rdb.AppendDump(nil, &v))
}

// restoreValue decodes a DUMP payload into contents. msg is the error to
// reply when it cannot.
func restoreValue(p []byte) (v rdb.Value, msg string) {
	_, v, err := rdb.ParseDump(p)
	switch {
	case err == nil:
		return v, ""
	case errors.Is(err, rdb.ErrDumpFooter):
		return v, errDumpPayload
	}
	// Module values (RedisBloom's filters among them) get Redis's reply
	// without the module.
	return v, errBadDataFormat
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
func restoreCommand(x *keyspace.Ctx) {
	sh, db, args := x.S, x.DB, x.Args
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case keyspace.EqFold(args[j], "replace"):
			replace = true
		case keyspace.EqFold(args[j], "absttl"):
			absTTL = true
		case keyspace.EqFold(args[j], "idletime") && more >= 1 && freq == -1:
			n, ok := parseBoundedIntOrReply(x, args[j+1], 0, math.MaxInt64, "ERR Invalid IDLETIME value, must be >= 0")
			if !ok {
				return
			}
			idle = n
			j++
		case keyspace.EqFold(args[j], "freq") && more >= 1 && idle == -1:
			n, ok := parseBoundedIntOrReply(x, args[j+1], 0, 255, "ERR Invalid FREQ value, must be >= 0 and <= 255")
			if !ok {
				return
			}
			freq = n
			j++
		default:
			x.W.Error(keyspace.ErrSyntax)
			return
		}
	}
	key := args[1]
	old := sh.Lookup(db, key)
	if !replace && old != nil {
		x.W.Error(errBusyKey)
		return
	}
	ttl, ok := parseBoundedIntOrReply(x, args[2], 0, math.MaxInt64, "ERR Invalid TTL value, must be >= 0")
	if !ok {
		return
	}
	v, msg := restoreValue(args[3])
	if msg != "" {
		x.W.Error(msg)
		return
	}
	at := ttl
	if ttl != 0 && !absTTL {
		if ttl > math.MaxInt64-sh.NowMs {
			at = math.MaxInt64
		} else {
			at = ttl + sh.NowMs
		}
	}
	if at != 0 && at <= sh.NowMs {
		// Already expired: the value is not created, and a replaced key
		// is deleted.
		if old != nil {
			sh.LogDel(db.ID, string(key))
			db.Remove(old)
			x.Notify(keyspace.EvGeneric, "del", key)
		}
		x.W.OK()
		return
	}
	val, obj := keyspace.ObjectFromRDB(sh.ValueConfig(), &v)
	if old != nil {
		db.Remove(old)
	}
	e := db.Add(key, val, obj, at)
	sh.LogRestore(db.ID, key, val, obj, at)
	switch {
	case freq >= 0 && sh.Srv.Opts.Live.LFU():
		e.Touch(keyspace.LFUState(keyspace.LFUMinutes(sh.NowMs), uint8(freq)))
	case idle >= 0 && !sh.Srv.Opts.Live.LFU():
		// Idle longer than the clock has run: half a clock period, as
		// Redis does.
		clock := int64(keyspace.AccessTime(sh.NowMs))
		at := clock - idle
		if at < 0 {
			at = (clock + keyspace.ClockMask/2) % keyspace.ClockMask
		}
		e.Touch(uint32(at))
	}
	x.Notify(keyspace.EvNew, "new", key)
	x.Notify(keyspace.EvGeneric, "restore", key)
	x.W.OK()
}
