package keyspace

import (
	"fmt"

	"github.com/ruvio/ruvio/persistence"
)

// The key-job values (LEASE, SEMAPHORE, SETV, LIMIT, ONCE), as the engine
// knows them: their snapshot forms and the replay of their WAL records (one
// record per accepted mutation). Their values live in entry.obj (IDEM records
// are plain strings), so keys that never use them carry nothing extra. The
// commands are in commands/keyjobs*.go.

// Snapshot value kinds of the key-job types. They reuse the numbers of
// their WAL opcodes so they never collide with the kinds other families
// take from the bottom of the range. Append-only, like opcodes.
const (
	KindLease     uint8 = 20
	KindSemaphore uint8 = 22
	KindSetV      uint8 = 24
	KindLimit     uint8 = 25
	kindOnce      uint8 = 26
)

// Logging: one record per accepted mutation, built in the shard's scratch
// buffer. The payload layouts are documented in persistence/doc.go and
// docs/wal-format.md.

// LogLease logs the lease of key granted as token until the deadline until
// (unix ms): OpLease. Replay sets both, creating the key.
func (sh *Shard) LogLease(db int, key string, token, until int64) {
	sh.logKeyU64I64(db, persistence.OpLease, key, uint64(token), until)
}

// LogRelease logs the hold of token released: OpRelease. Replay ends the
// hold only when token is still the lease's.
func (sh *Shard) LogRelease(db int, key string, token int64) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(token))
	sh.recordScratch(db, persistence.OpRelease, p)
}

// LogSemAcquire logs a hold of key's semaphore granted as token until the
// deadline until, and the key's new deadline keyAt: OpSemaphoreAcquire.
func (sh *Shard) LogSemAcquire(db int, key string, token, until, keyAt int64) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(token))
	p = persistence.AppendI64(p, until)
	p = persistence.AppendI64(p, keyAt)
	sh.recordScratch(db, persistence.OpSemaphoreAcquire, p)
}

// LogSemRelease logs the hold of token released from key's semaphore, and
// the key's new deadline keyAt: OpSemaphoreRelease.
func (sh *Shard) LogSemRelease(db int, key string, token, keyAt int64) {
	sh.logKeyU64I64(db, persistence.OpSemaphoreRelease, key, uint64(token), keyAt)
}

// LogSetV logs key set to the versioned string val at version, with the
// deadline at (0: none): OpSetV.
func (sh *Shard) LogSetV(db int, key string, val []byte, version, at int64) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendBytes(p, val)
	p = persistence.AppendU64(p, uint64(version))
	p = persistence.AppendI64(p, at)
	sh.recordScratch(db, persistence.OpSetV, p)
}

// LogLimit logs key's LIMIT count and the end of its window, the key's
// deadline at: OpLimit.
func (sh *Shard) LogLimit(db int, key string, count, at int64) {
	sh.logKeyU64I64(db, persistence.OpLimit, key, uint64(count), at)
}

// LogOnce logs a ONCE marker set on key with the deadline at: OpOnce.
func (sh *Shard) LogOnce(db int, key string, at int64) {
	sh.logKeyI64(db, persistence.OpOnce, key, at)
}

// LogIdemPut logs key set to rec, a packed IDEM record kept as a plain
// string, with the deadline at: OpIdempotencyPut.
func (sh *Shard) LogIdemPut(db int, key string, rec []byte, at int64) {
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
		replaySet(db, key, nil, &SetvObj{Version: int64(version), Val: CopyBytes(val)}, at)
	case persistence.OpLimit:
		count, at := p.NextU64(), p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, nil, &LimitObj{Count: int64(count)}, at)
	case persistence.OpOnce:
		at := p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, nil, OnceObj{}, at)
	case persistence.OpIdempotencyPut:
		rec, at := p.NextBytes(), p.NextI64()
		if err := p.End(); err != nil {
			return err
		}
		replaySet(db, key, CopyBytes(rec), nil, at)
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
	e := db.Find(key)
	if e == nil {
		db.Add(key, nil, &LeaseObj{Token: token, Until: until}, 0)
	} else if l, ok := db.Obj(e).(*LeaseObj); ok {
		l.Token, l.Until = token, until
	} else {
		db.SetObj(e, &LeaseObj{Token: token, Until: until})
	}
	return nil
}

func replayRelease(db *DB, key []byte, p *persistence.PayloadReader) error {
	token := int64(p.NextU64())
	if err := p.End(); err != nil {
		return err
	}
	if e := db.Find(key); e != nil {
		if l, ok := db.Obj(e).(*LeaseObj); ok && l.Token == token {
			l.Until = 0
		}
	}
	return nil
}

func replaySemAcquire(db *DB, key []byte, p *persistence.PayloadReader) error {
	token, until, keyAt := int64(p.NextU64()), p.NextI64(), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	e := db.Find(key)
	var s *SemObj
	if e != nil {
		var ok bool
		if s, ok = db.Obj(e).(*SemObj); !ok {
			s = &SemObj{}
			db.SetObj(e, s)
		}
		db.SetDeadline(e, keyAt)
	} else {
		s = &SemObj{}
		db.Add(key, nil, s, keyAt)
	}
	s.Add(SemHolder{Token: token, Until: until})
	s.Last = max(s.Last, token)
	return nil
}

func replaySemRelease(db *DB, key []byte, p *persistence.PayloadReader) error {
	token, keyAt := int64(p.NextU64()), p.NextI64()
	if err := p.End(); err != nil {
		return err
	}
	if e := db.Find(key); e != nil {
		if s, ok := db.Obj(e).(*SemObj); ok {
			s.Remove(token)
			db.SetDeadline(e, keyAt)
		}
	}
	return nil
}

// keyJobValueType describes the key-job values (leases, semaphores,
// versioned values, rate limits, once-markers) to the engine (value.go).
var keyJobValueType = valueType{
	name:  "key job",
	kinds: []uint8{KindLease, KindSemaphore, KindSetV, KindLimit, kindOnce},
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
	case KindLease:
		var token uint64
		var until int64
		if token, err = p.U64(); err == nil {
			until, err = p.I64()
		}
		obj = &LeaseObj{Token: int64(token), Until: until}
	case KindSemaphore:
		s := &SemObj{}
		var last, n uint64
		if last, err = p.U64(); err == nil {
			n, err = p.U64()
		}
		if err == nil && n > uint64(p.Len()/16) {
			err = fmt.Errorf("%w: semaphore claims %d holders in %d bytes", persistence.ErrCorrupt, n, p.Len())
		}
		if err == nil {
			s.Last = int64(last)
			live := make([]SemHolder, n)
			for i := range live {
				var token uint64
				var until int64
				if token, err = p.U64(); err == nil {
					until, err = p.I64()
				}
				if err != nil {
					break
				}
				live[i] = SemHolder{Token: int64(token), Until: until}
			}
			s.SetHolders(live)
		}
		obj = s
	case KindSetV:
		var version uint64
		if version, err = p.U64(); err == nil {
			obj = &SetvObj{Version: int64(version), Val: CopyBytes(p.Rest())}
		}
	case KindLimit:
		var count uint64
		if count, err = p.U64(); err == nil {
			obj = &LimitObj{Count: int64(count)}
		}
	case kindOnce:
		obj = OnceObj{}
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
