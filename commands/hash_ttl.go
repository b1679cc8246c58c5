package commands

import (
	"math"

	"github.com/ruvio/ruvio/keyspace"
)

// Hash-field expiry: Redis 7.4's HEXPIRE, HPEXPIRE, HEXPIREAT,
// HPEXPIREAT, HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME and HPERSIST, and
// Redis 8.0's HGETDEL, HGETEX and HSETEX. The deadlines live beside the
// hash (keyspace/value_hash_ttl.go). As in Redis 7.4, a command naming
// fields first deletes those of them that expired (liveHash), HRANDFIELD
// every expired field, HGETALL and HSCAN skip them and HLEN counts them
// until they are deleted, HDEL deletes them like the others.
//
// Records: deadlines set or removed are one HashFieldExpire record (one
// deadline, the fields it applies to); fields deleted because the
// deadline asked for is already past are a HashDel record; HSETEX with a
// deadline or KEEPTTL is one HashSetEx record, values and deadline
// together, so a crash never keeps the values without their deadline.

// Per-field replies.
const (
	fieldMissing   = -2 // no such field (or key)
	fieldNoTTL     = -1 // the field has no deadline (HTTL, HPERSIST)
	fieldCondFail  = 0  // NX/XX/GT/LT not met
	fieldTTLSet    = 1  // deadline set (HPERSIST: removed)
	fieldDelPassed = 2  // deleted: the deadline asked for is past
)

// maxFieldDeadline is the latest field deadline (unix ms) the commands
// accept: 2^46-1, as Redis.
const maxFieldDeadline = (1<<48 - 1) >> 2

// Error texts of the family.
const (
	errFieldsMissing  = "ERR Mandatory argument FIELDS is missing or not at the right position"
	errNumFieldsMatch = "ERR The `numfields` parameter must match the number of arguments"
	errNumFieldsPos   = "ERR Number of fields must be a positive integer"
	errNumFieldsGT0   = "ERR Parameter `numFields` should be greater than 0"
	errExpireNegative = "ERR invalid expire time, must be >= 0"
)

// errExpireTime is the reply to a deadline out of range.
func errExpireTime(cmd string) string { return "ERR invalid expire time in '" + cmd + "' command" }

// liveHash looks key up for a read or a write, replying WRONGTYPE to a
// key of another type (ok false), and deletes the fields among
// fields[0], fields[step], … that expired first: o is nil (and e too)
// when the key is absent or went with them. On a replica the expired
// fields stay; readers test them with live.
func liveHash(x *keyspace.Ctx, key []byte, read bool, fields [][]byte, step int) (e *keyspace.Entry, o *keyspace.HashObj, ok bool) {
	e, o, ok = lookupHash(x, key, read)
	if !ok {
		return nil, nil, false
	}
	e, o = dropExpired(x, e, o, fields, step)
	return e, o, true
}

// lookupHash looks key up for a read or a write, replying WRONGTYPE to a
// key of another type (ok false); o is nil when the key is absent. The
// commands whose fields come after other arguments look the key up first,
// so that WRONGTYPE comes before argument errors, then drop the expired
// fields with dropExpired once the fields are parsed.
func lookupHash(x *keyspace.Ctx, key []byte, read bool) (*keyspace.Entry, *keyspace.HashObj, bool) {
	return lookupTypedOrReply[*keyspace.HashObj](x, key, read)
}

// dropExpired deletes the expired fields among fields[0], fields[step], …
// of the hash o at e (see liveHash) and returns e and o, nil when the key
// went with them.
func dropExpired(x *keyspace.Ctx, e *keyspace.Entry, o *keyspace.HashObj, fields [][]byte, step int) (*keyspace.Entry, *keyspace.HashObj) {
	if o != nil && o.HasFieldTTLs() && x.S.ExpireAccessedFields(x.DB, e, o, fields, step) {
		return nil, nil
	}
	return e, o
}

// liveHashFields is the start of the commands of shape KEY FIELDS numfields
// field ...: the hash at args[1] (WRONGTYPE first), its fields from
// args[3], and the hash with those of them that expired deleted.
func liveHashFields(x *keyspace.Ctx) (e *keyspace.Entry, o *keyspace.HashObj, fields [][]byte, ok bool) {
	e, o, ok = lookupHash(x, x.Args[1], false)
	if !ok {
		return nil, nil, nil, false
	}
	if fields, ok = parseNumFields(x, 3, errNumFieldsPos); !ok {
		return nil, nil, nil, false
	}
	e, o = dropExpired(x, e, o, fields, 1)
	return e, o, fields, true
}

// hget returns field's value unless it is absent or expired.
func hget(x *keyspace.Ctx, o *keyspace.HashObj, field []byte) ([]byte, bool) {
	if o == nil || o.FieldExpired(field, x.S.NowMs) {
		return nil, false
	}
	return o.H.Get(field)
}

// hexists reports whether field is present and not expired.
func hexists(x *keyspace.Ctx, o *keyspace.HashObj, field []byte) bool {
	_, ok := hget(x, o, field)
	return ok
}

// parseNumFields reads the FIELDS numfields part at args[at-1] and
// args[at], numMsg being the reply to a bad count, and returns the
// fields. ok is false when an error was replied.
func parseNumFields(x *keyspace.Ctx, at int, numMsg string) (fields [][]byte, ok bool) {
	if at >= len(x.Args) {
		x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
		return nil, false
	}
	if !keyspace.EqFold(x.Args[at-1], "fields") {
		x.W.Error(errFieldsMissing)
		return nil, false
	}
	n, isInt := keyspace.ParseInt(x.Args[at])
	if !isInt || n < 1 {
		x.W.Error(numMsg)
		return nil, false
	}
	if n != int64(len(x.Args)-at-1) {
		x.W.Error(errNumFieldsMatch)
		return nil, false
	}
	return x.Args[at+1:], true
}

// parseFieldDeadline converts the time argument arg in unit (1000 for
// seconds, 1 for milliseconds) from base (now, or 0 for a unix time) to
// a deadline in unix ms, replying Redis's errors.
func parseFieldDeadline(x *keyspace.Ctx, arg []byte, unit, base int64) (int64, bool) {
	v, isInt := keyspace.ParseInt(arg)
	if !isInt {
		x.W.Error(keyspace.ErrNotInt)
		return 0, false
	}
	if v < 0 {
		x.W.Error(errExpireNegative)
		return 0, false
	}
	if unit == 1000 {
		if v > maxFieldDeadline/1000 {
			x.W.Error(errExpireTime(x.Cmd.FullName()))
			return 0, false
		}
		v *= 1000
	}
	if v > maxFieldDeadline-base {
		x.W.Error(errExpireTime(x.Cmd.FullName()))
		return 0, false
	}
	return v + base, true
}

// Conditions of HEXPIRE and kin.
const (
	condNone = iota
	condNX
	condXX
	condGT
	condLT
)

// hexpireCommand is HEXPIRE, HPEXPIRE, HEXPIREAT and HPEXPIREAT:
// key time [NX|XX|GT|LT] FIELDS numfields field [field ...].
func hexpireCommand(x *keyspace.Ctx) {
	name := x.Cmd.Name
	unit, base := int64(1), x.S.NowMs
	if name == "hexpire" || name == "hexpireat" {
		unit = 1000
	}
	if name == "hexpireat" || name == "hpexpireat" {
		base = 0
	}
	key := x.Args[1]
	e, o, ok := lookupHash(x, key, false)
	if !ok {
		return
	}
	at, ok := parseFieldDeadline(x, x.Args[2], unit, base)
	if !ok {
		return
	}
	cond, numAt := condNone, 4
	switch c := x.Args[3]; {
	case keyspace.EqFold(c, "nx"):
		cond = condNX
	case keyspace.EqFold(c, "xx"):
		cond = condXX
	case keyspace.EqFold(c, "gt"):
		cond = condGT
	case keyspace.EqFold(c, "lt"):
		cond = condLT
	}
	if cond != condNone {
		numAt++
	}
	fields, ok := parseNumFields(x, numAt, errNumFieldsGT0)
	if !ok {
		return
	}
	e, o = dropExpired(x, e, o, fields, 1)
	x.W.ArrayHeader(len(fields))
	if o == nil {
		for range fields {
			x.W.Int(fieldMissing)
		}
		return
	}
	var set, deleted [][]byte
	for _, f := range fields {
		if !hexists(x, o, f) {
			x.W.Int(fieldMissing)
			continue
		}
		cur := o.FieldTTL(f)
		if (cond == condNX && cur != 0) || (cond == condXX && cur == 0) ||
			(cond == condGT && (cur == 0 || cur >= at)) || (cond == condLT && cur != 0 && cur <= at) {
			x.W.Int(fieldCondFail)
			continue
		}
		if at <= x.S.NowMs {
			o.Delete(f)
			deleted = append(deleted, f)
			x.W.Int(fieldDelPassed)
			continue
		}
		o.SetFieldTTL(f, at)
		set = append(set, f)
		x.W.Int(fieldTTLSet)
	}
	fieldTTLsChanged(x, e, key, o, at, set, deleted)
}

// fieldTTLsChanged logs and announces what a command of the family did
// to the hash o at e: the fields given deadline at (0: persisted) and
// those deleted because it is past; a hash left empty is deleted.
func fieldTTLsChanged(x *keyspace.Ctx, e *keyspace.Entry, key []byte, o *keyspace.HashObj, at int64, set, deleted [][]byte) {
	if len(set)+len(deleted) == 0 {
		return
	}
	if len(deleted) > 0 {
		x.S.LogHashDel(x.DB.ID, key, deleted)
	}
	if len(set) > 0 {
		x.S.LogHashFieldTTL(x.DB.ID, key, at, set)
		x.DB.NoteFieldTTLs(key, o)
	}
	switch {
	case len(deleted) > 0:
		x.Notify(keyspace.EvHash, "hdel", key)
	case at == 0:
		x.Notify(keyspace.EvHash, "hpersist", key)
	default:
		x.Notify(keyspace.EvHash, "hexpire", key)
	}
	if o.H.Len() == 0 {
		keyspace.RemoveEmpty(x.DB, e)
		x.Notify(keyspace.EvGeneric, "del", key)
	}
}

// httlCommand is HTTL, HPTTL, HEXPIRETIME and HPEXPIRETIME:
// key FIELDS numfields field [field ...].
func httlCommand(x *keyspace.Ctx) {
	name := x.Cmd.Name
	unit, base := int64(1), x.S.NowMs
	if name == "httl" || name == "hexpiretime" {
		unit = 1000
	}
	if name == "hexpiretime" || name == "hpexpiretime" {
		base = 0
	}
	_, o, ok := lookupHash(x, x.Args[1], true)
	if !ok {
		return
	}
	fields, ok := parseNumFields(x, 3, errNumFieldsPos)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(fields))
	for _, f := range fields {
		switch {
		case !hexists(x, o, f):
			x.W.Int(fieldMissing)
		case o.FieldTTL(f) == 0:
			x.W.Int(fieldNoTTL)
		case unit == 1000:
			x.W.Int((o.FieldTTL(f) + 999 - base) / 1000)
		default:
			x.W.Int(o.FieldTTL(f) - base)
		}
	}
}

// HPERSIST key FIELDS numfields field [field ...]
func hpersistCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e, o, fields, ok := liveHashFields(x)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(fields))
	var persisted [][]byte
	for _, f := range fields {
		switch {
		case !hexists(x, o, f):
			x.W.Int(fieldMissing)
		case o.FieldTTL(f) == 0:
			x.W.Int(fieldNoTTL)
		default:
			o.SetFieldTTL(f, 0)
			persisted = append(persisted, f)
			x.W.Int(fieldTTLSet)
		}
	}
	if o != nil {
		fieldTTLsChanged(x, e, key, o, 0, persisted, nil)
	}
}

// HGETDEL key FIELDS numfields field [field ...]
func hgetdelCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e, o, fields, ok := liveHashFields(x)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(fields))
	var deleted [][]byte
	for _, f := range fields {
		if o == nil {
			x.W.Null()
			continue
		}
		v, found := hget(x, o, f)
		if !found {
			x.W.Null()
			continue
		}
		x.W.Bulk(v)
		o.Delete(f)
		deleted = append(deleted, f)
	}
	if len(deleted) == 0 {
		return
	}
	x.S.LogHashDel(x.DB.ID, key, deleted)
	x.Notify(keyspace.EvHash, "hdel", key)
	if o.H.Len() == 0 {
		keyspace.RemoveEmpty(x.DB, e)
		x.Notify(keyspace.EvGeneric, "del", key)
	}
}

// HGETEX key [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT
// unix-time-milliseconds|PERSIST] FIELDS numfields field [field ...]
func hgetexCommand(x *keyspace.Ctx) {
	key := x.Args[1]
	e, o, ok := lookupHash(x, key, false)
	if !ok {
		return
	}
	numAt, persist, setTTL := 3, false, false
	unit, base := int64(1), x.S.NowMs
	switch opt := x.Args[2]; {
	case keyspace.EqFold(opt, "ex"):
		unit, setTTL = 1000, true
	case keyspace.EqFold(opt, "px"):
		setTTL = true
	case keyspace.EqFold(opt, "exat"):
		unit, base, setTTL = 1000, 0, true
	case keyspace.EqFold(opt, "pxat"):
		base, setTTL = 0, true
	case keyspace.EqFold(opt, "persist"):
		persist, numAt = true, 4
	}
	var at int64
	if setTTL {
		numAt = 5
		if at, ok = parseFieldDeadline(x, x.Args[3], unit, base); !ok {
			return
		}
	}
	fields, ok := parseNumFields(x, numAt, errNumFieldsPos)
	if !ok {
		return
	}
	e, o = dropExpired(x, e, o, fields, 1)
	x.W.ArrayHeader(len(fields))
	var set, deleted [][]byte
	for _, f := range fields {
		if o == nil {
			x.W.Null()
			continue
		}
		v, found := hget(x, o, f)
		if !found {
			x.W.Null()
			continue
		}
		x.W.Bulk(v)
		switch {
		case persist:
			if o.FieldTTL(f) != 0 {
				o.SetFieldTTL(f, 0)
				set = append(set, f)
			}
		case setTTL && at <= x.S.NowMs:
			o.Delete(f)
			deleted = append(deleted, f)
		case setTTL:
			o.SetFieldTTL(f, at)
			set = append(set, f)
		}
	}
	if o != nil {
		fieldTTLsChanged(x, e, key, o, at, set, deleted)
	}
}

// HSETEX key [FNX|FXX] [EX seconds|PX milliseconds|EXAT unix-time-seconds|
// PXAT unix-time-milliseconds|KEEPTTL] FIELDS numfields field value
// [field value ...]
func hsetexCommand(x *keyspace.Ctx) {
	args := x.Args
	const (
		fnx = 1 << iota
		fxx
		keepTTL
		withTTL
	)
	flags, at, first := 0, int64(0), -1
	for i := 2; i < len(args) && first < 0; i++ {
		a := args[i]
		switch {
		case keyspace.EqFold(a, "fields"):
			if i >= len(args)-3 {
				x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
				return
			}
			n, isInt := keyspace.ParseInt(args[i+1])
			if !isInt || n < 1 || n > math.MaxInt32 {
				x.W.Error("ERR invalid number of fields")
				return
			}
			rest := len(args) - i - 2
			if rest%2 != 0 || n != int64(rest/2) {
				x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
				return
			}
			first = i + 2
		case keyspace.EqFold(a, "ex"), keyspace.EqFold(a, "px"), keyspace.EqFold(a, "exat"), keyspace.EqFold(a, "pxat"):
			if flags&(keepTTL|withTTL) != 0 {
				x.W.Error("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
				return
			}
			if i >= len(args)-1 {
				x.W.Error("ERR missing expire time")
				return
			}
			unit, base := int64(1), x.S.NowMs
			if keyspace.EqFold(a, "ex") || keyspace.EqFold(a, "exat") {
				unit = 1000
			}
			if keyspace.EqFold(a, "exat") || keyspace.EqFold(a, "pxat") {
				base = 0
			}
			i++
			var ok bool
			if at, ok = parseFieldDeadline(x, args[i], unit, base); !ok {
				return
			}
			flags |= withTTL
		case keyspace.EqFold(a, "keepttl"):
			if flags&(keepTTL|withTTL) != 0 {
				x.W.Error("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
				return
			}
			flags |= keepTTL
		case keyspace.EqFold(a, "fxx"), keyspace.EqFold(a, "fnx"):
			if flags&(fnx|fxx) != 0 {
				x.W.Error("ERR Only one of FXX or FNX arguments can be specified")
				return
			}
			if keyspace.EqFold(a, "fxx") {
				flags |= fxx
			} else {
				flags |= fnx
			}
		default:
			x.W.Error("ERR unknown argument: " + string(a))
			return
		}
	}
	if first < 0 {
		x.W.Error(keyspace.ErrWrongArgs(x.Cmd.FullName()))
		return
	}
	kv := args[first:]
	key := args[1]
	e, o, ok := liveHash(x, key, false, kv, 2)
	if !ok {
		return
	}
	if flags&(fnx|fxx) != 0 {
		found := 0
		for i := 0; o != nil && i < len(kv); i += 2 {
			if hexists(x, o, kv[i]) {
				found++
			}
		}
		if (flags&fnx != 0 && found > 0) || (flags&fxx != 0 && found < len(kv)/2) {
			x.W.Int(0)
			return
		}
	}
	existed := e != nil
	if o == nil {
		o = &keyspace.HashObj{}
	}
	cfg := x.S.HashConfig()
	past := flags&withTTL != 0 && at <= x.S.NowMs
	for i := 0; i < len(kv); i += 2 {
		switch {
		case past:
			o.Delete(kv[i])
		case flags&withTTL != 0:
			o.H.Set(cfg, kv[i], kv[i+1])
			o.SetFieldTTL(kv[i], at)
		case flags&keepTTL != 0:
			o.H.Set(cfg, kv[i], kv[i+1])
		default:
			o.Set(cfg, kv[i], kv[i+1])
		}
	}
	x.W.Int(1)
	if past {
		// Set and at once deleted: the fields are gone.
		if !existed {
			return
		}
		fields := make([][]byte, 0, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			fields = append(fields, kv[i])
		}
		x.S.LogHashDel(x.DB.ID, key, fields)
		x.Notify(keyspace.EvHash, "hset", key)
		x.Notify(keyspace.EvHash, "hdel", key)
		if o.H.Len() == 0 {
			keyspace.RemoveEmpty(x.DB, e)
			x.Notify(keyspace.EvGeneric, "del", key)
		}
		return
	}
	storeHash(x, e, key, o)
	switch {
	case flags&withTTL != 0:
		x.S.LogHashSetEx(x.DB.ID, key, keyspace.SetExDeadline, at, kv)
		x.DB.NoteFieldTTLs(key, o)
	case flags&keepTTL != 0 && o.HasFieldTTLs():
		x.S.LogHashSetEx(x.DB.ID, key, keyspace.SetExKeepTTL, 0, kv)
	default:
		x.S.LogHashSet(x.DB.ID, key, kv)
	}
	x.Notify(keyspace.EvHash, "hset", key)
	if flags&withTTL != 0 {
		x.Notify(keyspace.EvHash, "hexpire", key)
	}
}

func registerHashTTLFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM
	const fieldsN = "O(N) where N is the number of specified fields"
	upd := []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}
	acc := []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}
	t.Add(
		&keyspace.Command{Name: "hexpire", Arity: -6, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Set expiry for hash field using relative time to expire (seconds)", Complexity: fieldsN, Handler: hexpireCommand, KeySpecs: upd},
		&keyspace.Command{Name: "hpexpire", Arity: -6, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Set expiry for hash field using relative time to expire (milliseconds)", Complexity: fieldsN, Handler: hexpireCommand, KeySpecs: upd},
		&keyspace.Command{Name: "hexpireat", Arity: -6, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Set expiry for hash field using an absolute Unix timestamp (seconds)", Complexity: fieldsN, Handler: hexpireCommand, KeySpecs: upd},
		&keyspace.Command{Name: "hpexpireat", Arity: -6, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Set expiry for hash field using an absolute Unix timestamp (milliseconds)", Complexity: fieldsN, Handler: hexpireCommand, KeySpecs: upd},
		&keyspace.Command{Name: "httl", Arity: -5, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Returns the TTL in seconds of a hash field.", Complexity: fieldsN, Handler: httlCommand, KeySpecs: acc},
		&keyspace.Command{Name: "hpttl", Arity: -5, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Returns the TTL in milliseconds of a hash field.", Complexity: fieldsN, Handler: httlCommand, KeySpecs: acc},
		&keyspace.Command{Name: "hexpiretime", Arity: -5, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Returns the expiration time of a hash field as a Unix timestamp, in seconds.", Complexity: fieldsN, Handler: httlCommand, KeySpecs: acc},
		&keyspace.Command{Name: "hpexpiretime", Arity: -5, Flags: ro | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Returns the expiration time of a hash field as a Unix timestamp, in msec.", Complexity: fieldsN, Handler: httlCommand, KeySpecs: acc},
		&keyspace.Command{Name: "hpersist", Arity: -5, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "7.4.0", Summary: "Removes the expiration time for each specified field", Complexity: fieldsN, Handler: hpersistCommand, KeySpecs: upd},
		&keyspace.Command{Name: "hgetdel", Arity: -5, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "8.0.0", Summary: "Returns the value of a field and deletes it from the hash.", Complexity: fieldsN, Handler: hgetdelCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "hgetex", Arity: -5, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "8.0.0", Summary: "Get the value of one or more fields of a given hash key, and optionally set their expiration.", Complexity: fieldsN, Handler: hgetexCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "hsetex", Arity: -6, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hash", Since: "8.0.0", Summary: "Set the value of one or more fields of a given hash key, and optionally set their expiration.", Complexity: fieldsN, Handler: hsetexCommand, KeySpecs: upd},
	)
}
