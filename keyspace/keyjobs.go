package keyspace

import (
	"fmt"
	"math"

	"github.com/ruvio/ruvio/persistence"
)

// Key jobs are the native coordination commands that run on the shard that
// owns their key: LEASE/RELEASE, SEMAPHORE, SETV, LIMIT, ONCE, TAKE,
// INCRBY … MAX, IDEM and the CHANGES feed. Their values live in entry.obj
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

// Snapshot value kinds of the key-job types. They reuse the numbers of
// their WAL opcodes so they never collide with the kinds other families
// take from the bottom of the range. Append-only, like opcodes.
const (
	kindLease     uint8 = 20
	kindSemaphore uint8 = 22
	kindSetV      uint8 = 24
	kindLimit     uint8 = 25
	kindOnce      uint8 = 26
)

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

// parseTTLArg parses a positive time-to-live in milliseconds and returns
// the absolute deadline now+ttl. It replies and returns false on error.
func parseTTLArg(x *Ctx, arg []byte) (int64, bool) {
	n, ok := parseInt(arg)
	if !ok {
		x.W.Error(errNotInt)
		return 0, false
	}
	if n <= 0 || n > math.MaxInt64-x.S.nowMs {
		x.W.Error(invalidExpireError(x.Cmd.Name))
		return 0, false
	}
	return x.S.nowMs + n, true
}

// parsePositive parses a positive integer argument; it replies errNotInt
// for a non-integer and msg for a value below 1.
func parsePositive(x *Ctx, arg []byte, msg string) (int64, bool) {
	n, ok := parseInt(arg)
	if !ok {
		x.W.Error(errNotInt)
		return 0, false
	}
	if n < 1 {
		x.W.Error(msg)
		return 0, false
	}
	return n, true
}

func registerKeyJobFamily(t commandTable) {
	const rw, fast, deny = FlagWrite, FlagFast, FlagDenyOOM
	t.add(
		&Command{Name: "lease", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Grants an exclusive lease with a fencing token, or a null reply while the lease is held.", Complexity: "O(1)", Handler: leaseCommand},
		&Command{Name: "release", Arity: 3, Flags: rw, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Releases a lease or one semaphore holder when the token matches; returns 1 or 0.", Complexity: "O(1) for a lease, O(log N) amortised for a semaphore with N holders.", Handler: releaseCommand},
		&Command{Name: "semaphore", Arity: 4, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Acquires one slot of a counting semaphore with its own TTL; returns a token, or a null reply when max holders are live.", Complexity: "O(log N) amortised where N is the number of holders.", Handler: semaphoreCommand},
		&Command{Name: "limit", Arity: 4, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Counts one call in a fixed window; returns the remaining allowance, or a null reply when the window is full.", Complexity: "O(1)", Handler: limitCommand},
		&Command{Name: "once", Arity: 3, Flags: rw | deny | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "generic", Since: "0.1.0", Summary: "Returns 1 for the first call within a TTL and 0 for later calls, without refreshing the TTL.", Complexity: "O(1)", Handler: onceCommand},
		&Command{Name: "take", Arity: 3, Flags: rw | fast, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "0.1.0", Summary: "Subtracts a positive count from an integer when it holds at least that much; returns the remainder or a null reply.", Complexity: "O(1)", Handler: takeCommand},
		&Command{Name: "setv", Arity: -3, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "0.1.0", Summary: "Writes a versioned string: creates version 1, or replaces the value when the current version is passed; returns the new version.", Complexity: "O(1)", Handler: setvCommand},
		&Command{Name: "idem", Arity: 6, Flags: rw | deny, FirstKey: 1, LastKey: 1, Step: 1, Group: "string", Since: "0.1.0", Summary: "Native idempotency records: BEGIN acquires or reports pending, conflict or the completed result; COMPLETE publishes the result.", Complexity: "O(N) where N is the length of the tokens and the result.", Handler: idemCommand},
		&Command{Name: "changes", Arity: 2, Flags: FlagReadOnly | FlagKeyless, Group: "generic", Since: "0.1.0", Summary: "CHANGES START arms this shard's in-memory change feed and returns its cursor; CHANGES cursor returns up to 1024 later notes.", Complexity: "O(N) where N is the number of notes returned.", Handler: changesCommand},
	)
}

// Logging: one record per accepted mutation, built in the shard's scratch
// buffer. The payload layouts are documented in persistence/doc.go and
// docs/wal-format.md.

func (sh *Shard) logLease(db int, key string, token, until int64) {
	sh.logKeyU64I64(db, persistence.OpLease, key, uint64(token), until)
}

func (sh *Shard) logRelease(db int, key string, token int64) {
	if !sh.logged(db, key) {
		return
	}
	p := appendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(token))
	sh.recordScratch(db, persistence.OpRelease, p)
}

func (sh *Shard) logSemAcquire(db int, key string, token, until, keyAt int64) {
	if !sh.logged(db, key) {
		return
	}
	p := appendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(token))
	p = persistence.AppendI64(p, until)
	p = persistence.AppendI64(p, keyAt)
	sh.recordScratch(db, persistence.OpSemaphoreAcquire, p)
}

func (sh *Shard) logSemRelease(db int, key string, token, keyAt int64) {
	sh.logKeyU64I64(db, persistence.OpSemaphoreRelease, key, uint64(token), keyAt)
}

func (sh *Shard) logSetV(db int, key string, val []byte, version, at int64) {
	if !sh.logged(db, key) {
		return
	}
	p := appendStr(sh.scratch[:0], key)
	p = persistence.AppendBytes(p, val)
	p = persistence.AppendU64(p, uint64(version))
	p = persistence.AppendI64(p, at)
	sh.recordScratch(db, persistence.OpSetV, p)
}

func (sh *Shard) logLimit(db int, key string, count, at int64) {
	sh.logKeyU64I64(db, persistence.OpLimit, key, uint64(count), at)
}

func (sh *Shard) logOnce(db int, key string, at int64) {
	sh.logKeyI64(db, persistence.OpOnce, key, at)
}

func (sh *Shard) logIdemPut(db int, key string, rec []byte, at int64) {
	sh.logKeyBytesI64(db, persistence.OpIdempotencyPut, key, rec, at)
}

// applyKeyJobRecord replays one key-job WAL record into db. Like every
// replay it sets state physically: no command logic, no clock. Each step
// reads its fields, checks the payload once, and only then changes db.
func applyKeyJobRecord(db *DB, op persistence.Opcode, p *persistence.PayloadReader) error {
	key := p.NextBytes()
	switch op {
	case persistence.OpLease:
		return replayLease(db, key, p)
	case persistence.OpRelease:
		return replayRelease(db, key, p)
	case persistence.OpSemaphoreAcquire:
		return replaySemAcquire(db, key, p)
	case persistence.OpSemaphoreRelease:
		return replaySemRelease(db, key, p)
	case persistence.OpSetV:
		val, version, at := p.NextBytes(), p.NextU64(), p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, nil, &setvObj{version: int64(version), val: copyBytes(val)}, at)
	case persistence.OpLimit:
		count, at := p.NextU64(), p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, nil, &limitObj{count: int64(count)}, at)
	case persistence.OpOnce:
		at := p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, nil, onceObj{}, at)
	case persistence.OpIdempotencyPut:
		rec, at := p.NextBytes(), p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, copyBytes(rec), nil, at)
	default:
		return fmt.Errorf("opcode %s is not a key-job record", op)
	}
	return nil
}

func replayLease(db *DB, key []byte, p *persistence.PayloadReader) error {
	token, until := int64(p.NextU64()), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	e := db.find(key)
	if e == nil {
		db.add(key, nil, &leaseObj{token: token, until: until}, 0)
	} else if l, ok := db.obj(e).(*leaseObj); ok {
		l.token, l.until = token, until
	} else {
		db.setObj(e, &leaseObj{token: token, until: until})
	}
	return nil
}

func replayRelease(db *DB, key []byte, p *persistence.PayloadReader) error {
	token := int64(p.NextU64())
	if err := p.End(); err != nil {
		return err
	}
	if e := db.find(key); e != nil {
		if l, ok := db.obj(e).(*leaseObj); ok && l.token == token {
			l.until = 0
		}
	}
	return nil
}

func replaySemAcquire(db *DB, key []byte, p *persistence.PayloadReader) error {
	token, until, keyAt := int64(p.NextU64()), p.NextI64(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	e := db.find(key)
	var s *semObj
	if e != nil {
		var ok bool
		if s, ok = db.obj(e).(*semObj); !ok {
			s = &semObj{}
			db.setObj(e, s)
		}
		db.setDeadline(e, keyAt)
	} else {
		s = &semObj{}
		db.add(key, nil, s, keyAt)
	}
	s.add(semHolder{token: token, until: until})
	s.last = max(s.last, token)
	return nil
}

func replaySemRelease(db *DB, key []byte, p *persistence.PayloadReader) error {
	token, keyAt := int64(p.NextU64()), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.find(key); e != nil {
		if s, ok := db.obj(e).(*semObj); ok {
			s.remove(token)
			db.setDeadline(e, keyAt)
		}
	}
	return nil
}

// keyJobValueType describes the key-job values (leases, semaphores,
// versioned values, rate limits, once-markers) to the engine (value.go).
var keyJobValueType = valueType{
	name:  "key job",
	kinds: []uint8{kindLease, kindSemaphore, kindSetV, kindLimit, kindOnce},
	decodeSnapshot: func(_ valueConfig, kind uint8, val []byte) (any, error) {
		return decodeKeyJobValue(kind, val)
	},
}

// keyJobReplayRoutes sends the family's WAL opcodes to their decoders
// (replay.go's table).
var keyJobReplayRoutes = []replayRoute{
	{ops: []persistence.Opcode{persistence.OpLease, persistence.OpRelease, persistence.OpSemaphoreAcquire, persistence.OpSemaphoreRelease, persistence.OpSetV, persistence.OpLimit, persistence.OpOnce, persistence.OpIdempotencyPut}, apply: replayKeyJobRecord},
}

// replayKeyJobRecord adapts the family decoder to the replay table.
func replayKeyJobRecord(_ *Shard, db *DB, r persistence.Record, p *persistence.PayloadReader) error {
	return applyKeyJobRecord(db, r.Op, p)
}

// decodeKeyJobValue rebuilds a key-job value from its snapshot encoding.
// val aliases the reader's buffer.
func decodeKeyJobValue(kind uint8, val []byte) (any, error) {
	p := persistence.NewPayloadReader(val)
	var err error
	var obj any
	switch kind {
	case kindLease:
		var token uint64
		var until int64
		if token, err = p.U64(); err == nil {
			until, err = p.I64()
		}
		obj = &leaseObj{token: int64(token), until: until}
	case kindSemaphore:
		s := &semObj{}
		var last, n uint64
		if last, err = p.U64(); err == nil {
			n, err = p.U64()
		}
		if err == nil && n > uint64(p.Len()/16) {
			err = fmt.Errorf("%w: semaphore claims %d holders in %d bytes", persistence.ErrCorrupt, n, p.Len())
		}
		if err == nil {
			s.last = int64(last)
			live := make([]semHolder, n)
			for i := range live {
				var token uint64
				var until int64
				if token, err = p.U64(); err == nil {
					until, err = p.I64()
				}
				if err != nil {
					break
				}
				live[i] = semHolder{token: int64(token), until: until}
			}
			s.setHolders(live)
		}
		obj = s
	case kindSetV:
		var version uint64
		if version, err = p.U64(); err == nil {
			obj = &setvObj{version: int64(version), val: copyBytes(p.Rest())}
		}
	case kindLimit:
		var count uint64
		if count, err = p.U64(); err == nil {
			obj = &limitObj{count: int64(count)}
		}
	case kindOnce:
		obj = onceObj{}
	default:
		return nil, fmt.Errorf("keyspace: snapshot value kind %d is unknown", kind)
	}
	if err == nil {
		err = p.Done()
	}
	if err != nil {
		return nil, fmt.Errorf("keyspace: snapshot value kind %d: %w", kind, err)
	}
	return obj, nil
}
