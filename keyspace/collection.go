package keyspace

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Helpers shared by the collection families (hashes, lists, sets, sorted
// sets, Bloom filters): typed lookups that answer WRONGTYPE, the rule that
// a collection left empty is deleted, the random source of the types'
// random picks, and the argument parsers and store helper several
// families use.

// lookupTyped returns key's live entry and its object when it is a T. A
// missing key gives a nil entry and ok; a key of another type replies
// WRONGTYPE and gives !ok. read selects the read lookup, which counts
// keyspace hits and misses.
func lookupTyped[T any](x *Ctx, key []byte, read bool) (e *entry, obj T, ok bool) {
	if read {
		e = x.S.lookupRead(x.DB, key)
	} else {
		e = x.S.lookup(x.DB, key)
	}
	if e == nil {
		return nil, obj, true
	}
	obj, ok = x.DB.obj(e).(T)
	if !ok {
		x.W.Error(errWrongType)
		return nil, obj, false
	}
	return e, obj, true
}

// removeEmpty deletes e, whose collection has just become empty, as Redis
// deletes a key when its last element goes. The caller logs the mutation;
// its record's replay removes the key the same way.
func removeEmpty(db *DB, e *entry) { db.remove(e) }

// randSource is the process-wide random source as a rand.Source, for the
// types' random picks (HRANDFIELD and kin). Randomness never reaches the
// WAL: records state what was picked.
type randSource struct{}

// Uint64 returns a random number from math/rand/v2's global source.
func (randSource) Uint64() uint64 { return rand.Uint64() }

// clampThreshold converts a CONFIG threshold to an int for the types'
// Config structs.
func clampThreshold(n int64) int {
	return int(min(max(n, 0), math.MaxInt32))
}

// parseRangeLong parses an integer argument within [lo, hi] as Redis's
// getRangeLongFromObjectOrReply does: msg (when not empty) is the reply
// both to a non-integer and to a value out of range; without msg they get
// Redis's generic texts.
func parseRangeLong(x *Ctx, arg []byte, lo, hi int64, msg string) (int64, bool) {
	n, ok := parseInt(arg)
	if !ok {
		if msg != "" {
			x.W.Error(msg)
		} else {
			x.W.Error(errNotInt)
		}
		return 0, false
	}
	if n < lo || n > hi {
		if msg != "" {
			x.W.Error(msg)
		} else {
			x.W.Error("ERR value is out of range, value must between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10))
		}
		return 0, false
	}
	return n, true
}

// errMustBePositive is getPositiveLongFromObjectOrReply's default text.
const errMustBePositive = "ERR value is out of range, must be positive"

// parseScanOptions parses the MATCH and COUNT options of SSCAN, HSCAN and
// ZSCAN from args[from:], replying and returning false on an error.
func parseScanOptions(x *Ctx, from int) (pat []byte, usePat bool, count int, ok bool) {
	args := x.Args
	count = 10
	for i := from; i < len(args); i += 2 {
		if i+1 >= len(args) {
			x.W.Error(errSyntax)
			return nil, false, 0, false
		}
		switch {
		case eqFold(args[i], "count"):
			n, ok := parseInt(args[i+1])
			if !ok {
				x.W.Error(errNotInt)
				return nil, false, 0, false
			}
			if n < 1 {
				x.W.Error(errSyntax)
				return nil, false, 0, false
			}
			count = int(min(n, math.MaxInt32))
		case eqFold(args[i], "match"):
			pat = args[i+1]
			usePat = !(len(pat) == 1 && pat[0] == '*')
		default:
			x.W.Error(errSyntax)
			return nil, false, 0, false
		}
	}
	return pat, usePat, count, true
}

// storeObj makes key hold obj with no deadline (the STORE variants
// replace the destination whole), creating it when absent.
func storeObj(db *DB, e *entry, key []byte, obj any) {
	if e == nil {
		db.add(key, nil, obj, 0)
		return
	}
	db.setObj(e, obj)
	db.setDeadline(e, 0)
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
		n, ok := parseInt(args[i])
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
	numkeys, count func(x *Ctx, b []byte) (int64, bool)
	direction      func(x *Ctx, b []byte) bool
}

// parseMPop reads the mpop arguments starting with numkeys at x.Args[at],
// replying and returning false on an error. A numkeys beyond the
// arguments is a syntax error, however large (no index arithmetic can
// overflow).
func parseMPop(x *Ctx, at int, f mpopFamily) (mpopArgs, bool) {
	args := x.Args
	n, ok := f.numkeys(x, args[at])
	if !ok {
		return mpopArgs{}, false
	}
	if n >= int64(len(args)-at-1) {
		x.W.Error(errSyntax)
		return mpopArgs{}, false
	}
	dirIdx := at + 1 + int(n)
	if !f.direction(x, args[dirIdx]) {
		return mpopArgs{}, false
	}
	count := int64(-1)
	for j := dirIdx + 1; j < len(args); j++ {
		if count == -1 && eqFold(args[j], "count") && j+1 < len(args) {
			j++
			if count, ok = f.count(x, args[j]); !ok {
				return mpopArgs{}, false
			}
			continue
		}
		x.W.Error(errSyntax)
		return mpopArgs{}, false
	}
	return mpopArgs{keys: args[at+1 : dirIdx], direction: args[dirIdx], count: max(count, 1)}, true
}

// listMPop is LMPOP's and BLMPOP's family: LEFT|RIGHT.
var listMPop = mpopFamily{
	numkeys: func(x *Ctx, b []byte) (int64, bool) {
		n, ok := parseInt(b)
		if !ok || n < 1 {
			x.W.Error("ERR numkeys should be greater than 0")
			return 0, false
		}
		return n, true
	},
	count: func(x *Ctx, b []byte) (int64, bool) {
		n, ok := parseInt(b)
		if !ok || n < 1 {
			x.W.Error("ERR count should be greater than 0")
			return 0, false
		}
		return n, true
	},
	direction: func(x *Ctx, b []byte) bool { _, ok := parseWhere(x, b); return ok },
}

// zsetMPop is ZMPOP's and BZMPOP's family: MIN|MAX.
var zsetMPop = mpopFamily{
	numkeys: func(x *Ctx, b []byte) (int64, bool) { return parseRangeLong(x, b, 1, math.MaxInt64, errZNumKeys) },
	count:   func(x *Ctx, b []byte) (int64, bool) { return parseRangeLong(x, b, 1, math.MaxInt64, errZCountZero) },
	direction: func(x *Ctx, b []byte) bool {
		if eqFold(b, "min") || eqFold(b, "max") {
			return true
		}
		x.W.Error(errSyntax)
		return false
	},
}
