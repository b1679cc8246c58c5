package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"math/rand/v2"
	"strconv"
)

// Helpers shared by the collection families (hashes, lists, sets, sorted
// sets, Bloom filters): typed lookups that answer WRONGTYPE, the rule that
// a collection left empty is deleted, the random source of the types'
// random picks, and the argument parsers and store helper several
// families use.

// lookupTypedOrReply returns key's live entry and its object when it is a T. A
// missing key gives a nil entry and ok; a key of another type replies
// WRONGTYPE and gives !ok. read selects the read lookup, which counts
// keyspace hits and misses.
func lookupTypedOrReply[T any](x *keyspace.Ctx, key []byte, read bool) (e *keyspace.Entry, obj T, ok bool) {
	if read {
		e = x.S.LookupRead(x.DB, key)
	} else {
		e = x.S.Lookup(x.DB, key)
	}
	if e == nil {
		return nil, obj, true
	}
	obj, ok = x.DB.Obj(e).(T)
	if !ok {
		x.W.Error(keyspace.ErrWrongType)
		return nil, obj, false
	}
	return e, obj, true
}

// lookupTypedOrReplyZero is lookupTypedOrReply for the commands that answer
// 0 for a missing key (the counts, and the removals that find nothing to
// remove): it replies that 0 itself, so ok means key holds a T.
func lookupTypedOrReplyZero[T any](x *keyspace.Ctx, key []byte, read bool) (e *keyspace.Entry, obj T, ok bool) {
	e, obj, ok = lookupTypedOrReply[T](x, key, read)
	if ok && e == nil {
		x.W.Int(0)
		return nil, obj, false
	}
	return e, obj, ok
}

// storeEmptyResult ends a STORE command whose result is empty: the
// destination dst is deleted (the DEL logged and notified) rather than
// stored empty, and the reply is 0.
func storeEmptyResult(x *keyspace.Ctx, dst []byte) {
	sh, db := x.S, x.DB
	if e := sh.Lookup(db, dst); e != nil {
		sh.LogDel(db.ID, e.KeyView())
		db.Remove(e)
		x.Notify(keyspace.EvGeneric, "del", dst)
	}
	x.W.Int(0)
}

// sizedCollection is a collection value that knows its size.
type sizedCollection interface{ Len() int }

// cardCommand is SCARD, ZCARD, HLEN and LLEN (key): the size of the T at
// key, 0 for a missing key. One generic handler serves the four, which
// differed only in the type they looked up.
func cardCommand[T sizedCollection](x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReplyZero[T](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.Int(int64(o.Len()))
}

// randSource is the process-wide random source as a rand.Source, for the
// types' random picks (HRANDFIELD and kin). Randomness never reaches the
// WAL: records state what was picked.
type randSource struct{}

// Uint64 returns a random number from math/rand/v2's global source.
func (randSource) Uint64() uint64 { return rand.Uint64() }

// parseIntOrReply parses an integer argument; msg is the reply when it is
// not one. Options that take a number share it so that each keeps only its
// own error text.
func parseIntOrReply(x *keyspace.Ctx, arg []byte, msg string) (int64, bool) {
	n, ok := keyspace.ParseInt(arg)
	if !ok {
		x.W.Error(msg)
		return 0, false
	}
	return n, true
}

// parseBoundedIntOrReply parses an integer argument within [lo, hi]: a
// non-integer gets the generic ErrNotInt, a value out of range msg (the
// option's own text). RESTORE's and XSETID's numbers are checked so.
func parseBoundedIntOrReply(x *keyspace.Ctx, arg []byte, lo, hi int64, msg string) (int64, bool) {
	n, ok := parseIntOrReply(x, arg, keyspace.ErrNotInt)
	if !ok || lo <= n && n <= hi {
		return n, ok
	}
	x.W.Error(msg)
	return 0, false
}

// parseRangeLongOrReply parses an integer argument within [lo, hi] as Redis's
// getRangeLongFromObjectOrReply does: msg (when not empty) is the reply
// both to a non-integer and to a value out of range; without msg they get
// Redis's generic texts.
func parseRangeLongOrReply(x *keyspace.Ctx, arg []byte, lo, hi int64, msg string) (int64, bool) {
	notInt := msg
	if notInt == "" {
		notInt = keyspace.ErrNotInt
	}
	n, ok := parseIntOrReply(x, arg, notInt)
	if !ok || lo <= n && n <= hi {
		return n, ok
	}
	if msg == "" {
		// Redis's default text, built only when it is sent.
		msg = "ERR value is out of range, value must between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10)
	}
	x.W.Error(msg)
	return 0, false
}

// errMustBePositive is getPositiveLongFromObjectOrReply's default text.
const errMustBePositive = "ERR value is out of range, must be positive"

// parseScanOptionsOrReply parses the MATCH and COUNT options of SSCAN, HSCAN and
// ZSCAN from args[from:], replying and returning false on an error.
func parseScanOptionsOrReply(x *keyspace.Ctx, from int) (pat []byte, usePat bool, count int, ok bool) {
	args := x.Args
	count = 10
	for i := from; i < len(args); i += 2 {
		if i+1 >= len(args) {
			x.W.Error(keyspace.ErrSyntax)
			return nil, false, 0, false
		}
		switch {
		case keyspace.EqFold(args[i], "count"):
			n, ok := keyspace.ParseInt(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return nil, false, 0, false
			}
			if n < 1 {
				x.W.Error(keyspace.ErrSyntax)
				return nil, false, 0, false
			}
			count = int(min(n, math.MaxInt32))
		case keyspace.EqFold(args[i], "match"):
			pat = args[i+1]
			usePat = !(len(pat) == 1 && pat[0] == '*')
		default:
			x.W.Error(keyspace.ErrSyntax)
			return nil, false, 0, false
		}
	}
	return pat, usePat, count, true
}

// numkeysAt returns a movableKeys function for commands whose argument
// at index i is numkeys and whose keys follow it (SINTERCARD, ZUNION,
// ZINTERCARD, ZMPOP ...). A malformed numkeys names no keys: the command
// itself replies the error.
func numkeysAt(i int) func(args [][]byte, dst []int) []int {
	return func(args [][]byte, dst []int) []int {
		if i >= len(args) {
			return dst
		}
		n, ok := keyspace.ParseInt(args[i])
		if !ok || n < 1 || n > int64(len(args)-i-1) {
			return dst
		}
		for k := i + 1; k <= i+int(n); k++ {
			dst = append(dst, k)
		}
		return dst
	}
}

// mpopArgs are the parsed arguments of LMPOP, ZMPOP and their blocking
// forms: numkeys key [key ...] <direction> [COUNT count].
type mpopArgs struct {
	keys      [][]byte
	direction []byte
	count     int64 // 1 when COUNT is absent
}

// mpopFamily holds what differs between the list and sorted-set forms:
// how numkeys and COUNT are read (each replies its family's error) and
// which direction words are valid (replying the error otherwise).
type mpopFamily struct {
	numkeys, count func(x *keyspace.Ctx, b []byte) (int64, bool)
	direction      func(x *keyspace.Ctx, b []byte) bool
}

// parseMPopOrReply reads the mpop arguments starting with numkeys at x.Args[at],
// replying and returning false on an error. A numkeys beyond the
// arguments is a syntax error, however large (no index arithmetic can
// overflow).
func parseMPopOrReply(x *keyspace.Ctx, at int, f mpopFamily) (mpopArgs, bool) {
	args := x.Args
	n, ok := f.numkeys(x, args[at])
	if !ok {
		return mpopArgs{}, false
	}
	if n >= int64(len(args)-at-1) {
		x.W.Error(keyspace.ErrSyntax)
		return mpopArgs{}, false
	}
	dirIdx := at + 1 + int(n)
	if !f.direction(x, args[dirIdx]) {
		return mpopArgs{}, false
	}
	count := int64(-1)
	for j := dirIdx + 1; j < len(args); j++ {
		if count == -1 && keyspace.EqFold(args[j], "count") && j+1 < len(args) {
			j++
			if count, ok = f.count(x, args[j]); !ok {
				return mpopArgs{}, false
			}
			continue
		}
		x.W.Error(keyspace.ErrSyntax)
		return mpopArgs{}, false
	}
	return mpopArgs{keys: args[at+1 : dirIdx], direction: args[dirIdx], count: max(count, 1)}, true
}

// listMPop is LMPOP's and BLMPOP's family: LEFT|RIGHT.
var listMPop = mpopFamily{
	numkeys: func(x *keyspace.Ctx, b []byte) (int64, bool) {
		n, ok := keyspace.ParseInt(b)
		if !ok || n < 1 {
			x.W.Error("ERR numkeys should be greater than 0")
			return 0, false
		}
		return n, true
	},
	count: func(x *keyspace.Ctx, b []byte) (int64, bool) {
		n, ok := keyspace.ParseInt(b)
		if !ok || n < 1 {
			x.W.Error("ERR count should be greater than 0")
			return 0, false
		}
		return n, true
	},
	direction: func(x *keyspace.Ctx, b []byte) bool { _, ok := parseWhereOrReply(x, b); return ok },
}

// zsetMPop is ZMPOP's and BZMPOP's family: MIN|MAX.
var zsetMPop = mpopFamily{
	numkeys: func(x *keyspace.Ctx, b []byte) (int64, bool) {
		return parseRangeLongOrReply(x, b, 1, math.MaxInt64, errZNumKeys)
	},
	count: func(x *keyspace.Ctx, b []byte) (int64, bool) {
		return parseRangeLongOrReply(x, b, 1, math.MaxInt64, errZCountZero)
	},
	direction: func(x *keyspace.Ctx, b []byte) bool {
		if keyspace.EqFold(b, "min") || keyspace.EqFold(b, "max") {
			return true
		}
		x.W.Error(keyspace.ErrSyntax)
		return false
	},
}

// blockedOnAt returns the T (a list or a sorted set) at key for a blocked
// client, nil when the key is absent or holds another type (the client
// then keeps waiting). Nothing is replied: a blocked client waits silently.
func blockedOnAt[T any](x *keyspace.Ctx, key []byte) (*keyspace.Entry, T) {
	var none T
	e := x.S.Lookup(x.DB, key)
	if e == nil {
		return nil, none
	}
	o, ok := x.DB.Obj(e).(T)
	if !ok {
		return nil, none
	}
	return e, o
}

// listAt is blockedOnAt for lists.
