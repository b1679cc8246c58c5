package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
)

// Key jobs are the native coordination commands that run on the shard that
// owns their key: LEASE/RELEASE, SEMAPHORE, SETV, LIMIT, CL.THROTTLE, ONCE,
// TAKE, INCRBY … MAX, IDEM and the CHANGES feed. Their values live in entry.obj
// (IDEM records are plain strings in entry.val), so keys that never use
// them carry nothing extra. Every accepted mutation is exactly one WAL
// record; rejections (null replies, 0 replies, errors) write nothing.
//
// The files of the family:
//
//	keyjobs.go          registration, shared parsing, WAL logging, replay, snapshot kinds
//	keyjobs_lease.go    LEASE, SEMAPHORE, RELEASE
//	keyjobs_counters.go LIMIT, ONCE, TAKE, INCRBY … MAX, SETV
//	keyjobs_idem.go     IDEM
//	keyjobs_changes.go  CHANGES
//	keyjobs_throttle.go CL.THROTTLE (GCRA, redis-cell's reply)

// Reply texts of the key jobs.
const (
	errPositiveMax   = "ERR max must be a positive integer"
	errPositiveCount = "ERR count must be a positive integer"
	errTokenOverflow = "ERR token space of this key is exhausted"
	errSetVExists    = "ERR SETV key already exists; pass its current version"
	errSetVNoKey     = "ERR SETV no such key; omit the version to create it"
	errSetVMismatch  = "ERR SETV version mismatch"
	errSetVVersion   = "ERR SETV version must be a positive integer"
	errSetVOverflow  = "ERR SETV version would overflow"
)

// parseTTLArgOrReply parses a positive time-to-live in milliseconds and returns
// the absolute deadline now+ttl. It replies and returns false on error.
func parseTTLArgOrReply(x *keyspace.Ctx, arg []byte) (int64, bool) {
	n, ok := keyspace.ParseInt(arg)
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return 0, false
	}
	if n <= 0 || n > math.MaxInt64-x.S.NowMs {
		x.W.Error(invalidExpireError(x.Cmd.Name))
		return 0, false
	}
	return x.S.NowMs + n, true
}

// parsePositiveOrReply parses a positive integer argument; it replies errNotInt
// for a non-integer and msg for a value below 1.
func parsePositiveOrReply(x *keyspace.Ctx, arg []byte, msg string) (int64, bool) {
	return parseBoundedIntOrReply(x, arg, 1, math.MaxInt64, msg)
}

func registerKeyJobFamily(t keyspace.CommandTable) {
	const rw, fast, deny = keyspace.FlagWrite, keyspace.FlagFast, keyspace.FlagDenyOOM
	t.Add(
		&keyspace.Command{Name: "lease", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Grants an exclusive lease with a fencing token, or a null reply while the lease is held.", Complexity: "O(1)", Handler: leaseCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "release", Arity: 3, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Releases a lease or one semaphore holder when the token matches; returns 1 or 0.", Complexity: "O(1) for a lease, O(log N) amortised for a semaphore with N holders.", Handler: releaseCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyDelete, 1, 0, 1)}},
		&keyspace.Command{Name: "semaphore", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Acquires one slot of a counting semaphore with its own TTL; returns a token, or a null reply when max holders are live.", Complexity: "O(log N) amortised where N is the number of holders.", Handler: semaphoreCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "limit", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Counts one call in a fixed window; returns the remaining allowance, or a null reply when the window is full.", Complexity: "O(1)", Handler: limitCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "once", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Returns 1 for the first call within a TTL and 0 for later calls, without refreshing the TTL.", Complexity: "O(1)", Handler: onceCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyInsert, 1, 0, 1)}},
		&keyspace.Command{Name: "take", Arity: 3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "0.1.0", Summary: "Subtracts a positive count from an integer when it holds at least that much; returns the remainder or a null reply.", Complexity: "O(1)", Handler: takeCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "setv", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "0.1.0", Summary: "Writes a versioned string: creates version 1, or replaces the value when the current version is passed; returns the new version.", Complexity: "O(1)", Handler: setvCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "idem", Arity: 6, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "0.1.0", Summary: "Native idempotency records: BEGIN acquires or reports pending, conflict or the completed result; COMPLETE publishes the result.", Complexity: "O(N) where N is the length of the tokens and the result.", Handler: idemCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "cl.throttle", Arity: -5, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "GCRA rate limiting as redis-cell's CL.THROTTLE: replies limited, limit, remaining, retry-after and reset-after seconds.", Complexity: "O(1)", Handler: clThrottleCommand, KeySpecs: []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyAccess|keyspace.KeyUpdate, 1, 0, 1)}},
		&keyspace.Command{Name: "changes", Arity: 2, Flags: keyspace.FlagReadOnly | keyspace.FlagKeyless, Group: "generic", Since: "0.1.0", Summary: "CHANGES START arms this shard's in-memory change feed and returns its cursor; CHANGES cursor returns up to 1024 later notes.", Complexity: "O(N) where N is the number of notes returned.", Handler: changesCommand, Tips: []string{tipNondeterministic}},
	)
}
