package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"github.com/ruvio/ruvio/types/hll"
)

// The HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG and
// PFSELFTEST. A HyperLogLog is a string value in the layout types/hll
// describes (Redis's own), so GET, SET and the string commands see the same
// bytes Redis would. Every mutation is logged physically: a rewritten value
// as a whole (OpSet), a dense register changed in place and the cached
// cardinality as ranges (OpSetRange).

const (
	errNotHLL     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errCorruptHLL = "INVALIDOBJ Corrupted HLL object detected"
)

// hllReadOrReply returns the bytes of a HyperLogLog entry for reading, or replies
// WRONGTYPE and returns false.
func hllReadOrReply(x *keyspace.Ctx, e *keyspace.Entry) ([]byte, bool) {
	v, ok := stringValueOrReply(x, e)
	if !ok {
		return nil, false
	}
	if hll.Check(v) != nil {
		x.W.Error(errNotHLL)
		return nil, false
	}
	return v, true
}

// hllWriteOrReply is hllReadOrReply for an entry the caller changes in place: it must be
// a plain string.
func hllWriteOrReply(x *keyspace.Ctx, e *keyspace.Entry) bool {
	if x.DB.Obj(e) != nil {
		x.W.Error(keyspace.ErrWrongType)
		return false
	}
	_, ok := hllReadOrReply(x, e)
	return ok
}

// hllForWriteOrReply looks key up for a command that writes the HyperLogLog
// there (PFADD, PFMERGE's destination): e is its entry (nil when absent)
// and v the registers to change, the entry's value or a new empty
// HyperLogLog. ok is false after a WRONGTYPE reply.
func hllForWriteOrReply(x *keyspace.Ctx, key []byte) (e *keyspace.Entry, v []byte, ok bool) {
	e = x.S.Lookup(x.DB, key)
	if e == nil {
		return nil, hll.New(), true
	}
	if !hllWriteOrReply(x, e) {
		return nil, nil, false
	}
	// A dense register changes in place in the entry's value; a sparse
	// change may rewrite it, which the caller stores.
	return e, x.DB.Val(e), true
}

// hllUnionOrReply merges the registers of the HyperLogLogs at keys into
// regs, as PFCOUNT of several keys and PFMERGE read their inputs (an absent
// key counts as empty); dense tells whether any input was dense. ok is
// false after an error reply.
func hllUnionOrReply(x *keyspace.Ctx, keys [][]byte, regs *[hll.Registers]uint8) (dense, ok bool) {
	for _, k := range keys {
		e := x.S.LookupRead(x.DB, k)
		if e == nil {
			continue
		}
		v, ok := hllReadOrReply(x, e)
		if !ok {
			return false, false
		}
		dense = dense || hll.IsDense(v)
		if hll.Merge(regs, v) != nil {
			x.W.Error(errCorruptHLL)
			return false, false
		}
	}
	return dense, true
}

// shardHllSparseMax is hll-sparse-max-bytes as an int.
func shardHllSparseMax(sh *keyspace.Shard) int {
	return int(min(sh.Srv.Opts.Live.HLLSparseMaxBytes(), int64(^uint(0)>>1)))
}

// shardStoreHLL stores v as key's value after a rewrite: a new key (e nil) or a
// new value for e, logged whole with e's deadline. v may alias e's
// current value. It returns the entry, which moves when the value
// outgrows its slot.
func shardStoreHLL(sh *keyspace.Shard, db *keyspace.DB, e *keyspace.Entry, key, v []byte) *keyspace.Entry {
	if e == nil {
		e = db.AddString(key, v, 0)
	} else {
		e = db.SetString(e, v)
	}
	markRaw(e)
	sh.LogSet(db.ID, e.KeyView(), db.Val(e), e.ExpireAt)
	return e
}

// PFADD key [element ...]: 1 when the key was created or a register
// changed, else 0.
func pfaddCommand(x *keyspace.Ctx) {
	sh := x.S
	e, v, ok := hllForWriteOrReply(x, x.Args[1])
	if !ok {
		return
	}
	updated := e == nil
	whole := e == nil
	lo, hi := len(v), -1
	sparseMax := shardHllSparseMax(sh)
	var err error
	for _, el := range x.Args[2:] {
		var out []byte
		var o hll.Outcome
		var idx int
		out, o, idx, err = hll.Add(v, el, sparseMax)
		if err != nil {
			break
		}
		v = out
		switch o {
		case hll.InPlace:
			f, l := hll.DenseSpan(idx)
			lo, hi = min(lo, f), max(hi, l)
			updated = true
		case hll.Rewritten:
			whole, updated = true, true
		}
	}
	if updated {
		hll.Invalidate(v)
		if whole {
			shardStoreHLL(sh, x.DB, e, x.Args[1], v)
		} else {
			// Only in-place changes: v is still the entry's value.
			markRaw(e)
			sh.LogSetRange(x.DB.ID, e.KeyView(), 15, v[15:16])
			sh.LogSetRange(x.DB.ID, e.KeyView(), int64(lo), v[lo:hi+1])
		}
	}
	if err != nil {
		x.W.Error(errCorruptHLL)
		return
	}
	if updated {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
}

// PFCOUNT key [key ...]: the estimated cardinality of the union. With one
// key the estimate is cached in the value's header (a logged write, as in
// Redis).
func pfcountCommand(x *keyspace.Ctx) {
	sh := x.S
	if len(x.Args) > 2 {
		var regs [hll.Registers]uint8
		if _, ok := hllUnionOrReply(x, x.Args[1:], &regs); !ok {
			return
		}
		x.W.Int(int64(hll.CountRegisters(&regs)))
		return
	}
	e := sh.LookupRead(x.DB, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	v, ok := hllReadOrReply(x, e)
	if !ok {
		return
	}
	if card, ok := hll.Cached(v); ok {
		x.W.Int(int64(card))
		return
	}
	card, err := hll.Count(v)
	if err != nil {
		x.W.Error(errCorruptHLL)
		return
	}
	// Cache the estimate unless the value is not a plain string or the log
	// refuses writes (PFCOUNT is a read: it must not fail for that).
	// The write is in place (the slot and so the accounting stay); a
	// running snapshot serializes the key's bucket first, as PFCOUNT is
	// not a write command and snapshotBeforeWrite skipped it.
	if x.DB.Obj(e) == nil && (sh.Journal == nil || sh.Journal.Err() == nil) {
		if sh.Snap != nil {
			sh.SnapshotTouch(x.DB, x.Args[1])
		}
		hll.SetCached(v, card)
		sh.LogSetRange(x.DB.ID, e.KeyView(), 8, v[8:16])
	}
	x.W.Int(int64(card))
}

// PFMERGE destkey [sourcekey ...]: destkey becomes the union of itself and
// the sources; dense when any input is dense.
func pfmergeCommand(x *keyspace.Ctx) {
	sh := x.S
	var regs [hll.Registers]uint8
	dense, ok := hllUnionOrReply(x, x.Args[1:], &regs)
	if !ok {
		return
	}
	e, v, ok := hllForWriteOrReply(x, x.Args[1])
	if !ok {
		return
	}
	if dense {
		d, err := hll.ToDense(v)
		if err != nil {
			x.W.Error(errCorruptHLL)
			return
		}
		v = d
	}
	sparseMax := shardHllSparseMax(sh)
	for i, r := range regs {
		if r == 0 {
			continue
		}
		out, _, err := hll.Set(v, i, r, sparseMax)
		if err != nil {
			break // the sources decoded, so only a corrupt destkey gets here
		}
		v = out
	}
	hll.Invalidate(v)
	shardStoreHLL(sh, x.DB, e, x.Args[1], v)
	x.W.OK()
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key
func pfdebugCommand(x *keyspace.Ctx) {
	sh := x.S
	sub := x.Args[1]
	e := sh.Lookup(x.DB, x.Args[2])
	if e == nil {
		x.W.Error("ERR The specified key does not exist")
		return
	}
	if !hllWriteOrReply(x, e) {
		return
	}
	v := x.DB.Val(e)
	toDense := func() bool {
		d, err := hll.ToDense(v)
		if err != nil {
			x.W.Error(errCorruptHLL)
			return false
		}
		e = shardStoreHLL(sh, x.DB, e, nil, d)
		v = x.DB.Val(e)
		return true
	}
	switch {
	case keyspace.EqFold(sub, "getreg"):
		if !hll.IsDense(v) && !toDense() {
			return
		}
		regs := hll.DenseRegisters(v)
		x.W.ArrayHeader(len(regs))
		for _, r := range regs {
			x.W.Int(int64(r))
		}
	case keyspace.EqFold(sub, "decode"):
		if hll.IsDense(v) {
			x.W.Error("ERR HLL encoding is not sparse")
			return
		}
		x.W.Bulk(hll.Decode(v))
	case keyspace.EqFold(sub, "encoding"):
		if hll.IsDense(v) {
			x.W.SimpleString("dense")
		} else {
			x.W.SimpleString("sparse")
		}
	case keyspace.EqFold(sub, "todense"):
		if hll.IsDense(v) {
			x.W.Int(0)
			return
		}
		if toDense() {
			x.W.Int(1)
		}
	default:
		x.W.Error("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'")
	}
}

// PFSELFTEST: runs the HyperLogLog implementation's self test.
func pfselftestCommand(x *keyspace.Ctx) {
	if err := hll.SelfTest(); err != nil {
		x.W.Error("TESTFAILED " + err.Error())
		return
	}
	x.W.OK()
}

func registerHyperLogLogFamily(t keyspace.CommandTable) {
	const rw, ro, fast, deny, admin = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagFast, keyspace.FlagDenyOOM, keyspace.FlagAdmin
	t.Add(
		&keyspace.Command{Name: "pfadd", Arity: -2, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "hyperloglog", Since: "2.8.9", Summary: "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.", Complexity: "O(1) to add every element.", Handler: pfaddCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "pfcount", Arity: -2, Flags: ro | keyspace.FlagMayReplicate, FirstKey: 1, LastKey: -1, Step: 1, Group: "hyperloglog", Since: "2.8.9", Summary: "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).", Complexity: "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.", Handler: pfcountCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess, 1, -1, 1)}},
		&keyspace.Command{Name: "pfmerge", Arity: -2, Flags: rw | deny, FirstKey: 1, LastKey: -1, Step: 1, Group: "hyperloglog", Since: "2.8.9", Summary: "Merges one or more HyperLogLog values into a single key.", Complexity: "O(N) to merge N HyperLogLogs, but with high constant times.", Handler: pfmergeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyInsert, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, -1, 1)}},
		&keyspace.Command{Name: "pfdebug", Arity: 3, Flags: rw | deny | admin, FirstKey: 2, LastKey: 2, Step: 1, Group: "hyperloglog", Since: "2.8.9", Summary: "Internal commands for debugging HyperLogLog values.", Complexity: "N/A", Handler: pfdebugCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess, 2, 0, 1)}},
		&keyspace.Command{Name: "pfselftest", Arity: 1, Flags: admin, Group: "hyperloglog", Since: "2.8.9", Summary: "An internal command for testing HyperLogLog values.", Complexity: "N/A", Handler: pfselftestCommand},
	)
}
