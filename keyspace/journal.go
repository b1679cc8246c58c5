package keyspace

import (
	"encoding/binary"

	"github.com/ruvio/ruvio/persistence"
)

// The Log* methods write one WAL record per accepted mutation. Records are
// physical: replaying them sets state without re-running command logic,
// and deadlines are absolute. Those of a key also mark it modified for
// WATCH and blocked clients (touchKey) first, so they are called with
// persistence off too; the record itself is skipped then.

func (sh *Shard) record(db int, op persistence.Opcode, payload []byte) {
	if sh.Srv.IsReplica() {
		// A client's write on a writable replica (replica-read-only no):
		// the replica's log holds only its primary's records, in its
		// primary's sequence, so the write stays in memory, as it is not
		// passed on to this replica's own replicas either. The primary's
		// next full resynchronization replaces it.
		return
	}
	if sh.Tx.Recording {
		// Inside EXEC: the unit is written whole at its end.
		sh.Tx.batch.Add(uint16(db), op, payload)
		return
	}
	sh.Journal.Append(uint16(db), op, payload)
	sh.appends++
}

// logged is the common start of the record helpers: it signals that key
// of database db was modified (WATCH) and reports whether there is a log
// to write to.
func (sh *Shard) logged(db int, key string) bool {
	sh.touchKey(db, key)
	return sh.Journal != nil
}

// recordScratch writes one record whose payload p was built in the
// shard's scratch buffer, and keeps p's storage as that buffer unless it
// grew large: one big record must not pin its size for the shard's life.
func (sh *Shard) recordScratch(db int, op persistence.Opcode, p []byte) {
	if cap(p) <= maxKeptScratch {
		sh.scratch = p
	}
	sh.record(db, op, p)
}

// maxKeptScratch is the largest scratch buffer a shard keeps.
const maxKeptScratch = 64 << 10

// bigField is the length from which a record's bytes field is handed to
// the log as it is rather than copied into the scratch payload first: the
// log copies it once into its own buffer, which it drops after the write.
const bigField = 64 << 10

// recordField writes a record whose payload is head, the bytes field b
// (length prefix and bytes) then tail, where head and tail are built in
// the scratch buffer. A large b is not copied into it.
func (sh *Shard) recordField(db int, op persistence.Opcode, head []byte, b []byte, tail func([]byte) []byte) {
	// The concrete type, not an interface: through an interface call b
	// would escape, and every caller's stack buffer with it.
	pj, ok := sh.Journal.(*WALJournal)
	if len(b) < bigField || !ok || sh.Tx.Recording || sh.Srv.IsReplica() {
		p := persistence.AppendBytes(head, b)
		if tail != nil {
			p = tail(p)
		}
		sh.recordScratch(db, op, p)
		return
	}
	p := binary.AppendUvarint(head, uint64(len(b)))
	n := len(p)
	if tail != nil {
		p = tail(p)
	}
	if cap(p) <= maxKeptScratch {
		sh.scratch = p[:0]
	}
	pj.AppendParts(uint16(db), op, p[:n], b, p[n:])
	// The log's buffer for it is dropped once written.
	sh.Srv.MemTuner.droppedBuffer(len(b))
}

// The payload shapes shared by several opcodes. Each starts with the key.

// logKeyI64 writes a record of key then one i64 (a deadline for OpExpire
// and OpOnce).
func (sh *Shard) logKeyI64(db int, op persistence.Opcode, key string, v int64) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendI64(p, v)
	sh.recordScratch(db, op, p)
}

// logKeyU64I64 writes a record of key, one u64 then one i64 (a token or
// count then a deadline for OpLease, OpLimit and OpSemaphoreRelease).
func (sh *Shard) logKeyU64I64(db int, op persistence.Opcode, key string, u uint64, v int64) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, u)
	p = persistence.AppendI64(p, v)
	sh.recordScratch(db, op, p)
}

// logKeyBytesI64 writes a record of key, a byte string then one i64 (a
// value then its deadline for OpSet and OpIdempotencyPut).
func (sh *Shard) logKeyBytesI64(db int, op persistence.Opcode, key string, b []byte, v int64) {
	if !sh.logged(db, key) {
		return
	}
	sh.recordField(db, op, AppendStr(sh.scratch[:0], key), b, func(p []byte) []byte { return persistence.AppendI64(p, v) })
}

// LogSet logs key set to the string val with deadline at (unix ms, 0:
// none): OpSet.
func (sh *Shard) LogSet(db int, key string, val []byte, at int64) {
	sh.logKeyBytesI64(db, persistence.OpSet, key, val, at)
}

// LogDel logs the deletion of key: OpDel.
func (sh *Shard) LogDel(db int, key string) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	sh.recordScratch(db, persistence.OpDel, p)
}

// LogExpire logs key's new deadline at (unix ms, 0: none, as PERSIST
// leaves it): OpExpire.
func (sh *Shard) LogExpire(db int, key string, at int64) {
	sh.logKeyI64(db, persistence.OpExpire, key, at)
}

// LogAppend logs suffix appended to key's string (APPEND): OpAppend.
func (sh *Shard) LogAppend(db int, key string, suffix []byte) {
	if !sh.logged(db, key) {
		return
	}
	sh.recordField(db, persistence.OpAppend, AppendStr(sh.scratch[:0], key), suffix, nil)
}

// LogSetRange logs b written into key's string at offset off (SETRANGE,
// and the bit writes through LogByteSpans): OpSetRange.
func (sh *Shard) LogSetRange(db int, key string, off int64, b []byte) {
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU64(p, uint64(off))
	sh.recordField(db, persistence.OpSetRange, p, b, nil)
}

// LogFlushDB logs the emptying of database db: OpFlushDB. It marks no
// key: the caller marks the database's keys first (TouchAllInDB).
func (sh *Shard) LogFlushDB(db int) {
	if sh.Journal == nil {
		return
	}
	sh.record(db, persistence.OpFlushDB, nil)
}

// LogFlushAll logs the emptying of every database: OpFlushAll. Like
// LogFlushDB it marks no key.
func (sh *Shard) LogFlushAll() {
	if sh.Journal == nil {
		return
	}
	sh.record(0, persistence.OpFlushAll, nil)
}

// LogSwapDB logs the swap of databases a and b (SWAPDB): OpSwapDB. It
// marks no key (the caller does, TouchAllInDB).
func (sh *Shard) LogSwapDB(a, b int) {
	if sh.Journal == nil {
		return
	}
	p := persistence.AppendU16(sh.scratch[:0], uint16(a))
	p = persistence.AppendU16(p, uint16(b))
	sh.recordScratch(0, persistence.OpSwapDB, p)
}

// LogMove logs key moved from database db to target (MOVE): OpMove. The
// key is marked modified in both databases.
func (sh *Shard) LogMove(db int, key string, target int) {
	sh.touchKey(target, key)
	if !sh.logged(db, key) {
		return
	}
	p := AppendStr(sh.scratch[:0], key)
	p = persistence.AppendU16(p, uint16(target))
	sh.recordScratch(db, persistence.OpMove, p)
}

// LogRename logs src renamed to dst (RENAME, RENAMENX): OpRename. Both
// keys are marked modified.
func (sh *Shard) LogRename(db int, src, dst string) {
	sh.touchKey(db, src)
	if !sh.logged(db, dst) {
		return
	}
	p := AppendStr(sh.scratch[:0], src)
	p = AppendStr(p, dst)
	sh.recordScratch(db, persistence.OpRename, p)
}

// LogCopy logs src of database db copied to dst of database target,
// replacing an existing dst when replace is set (COPY): OpCopy. Only dst
// is marked modified.
func (sh *Shard) LogCopy(db int, src, dst string, target int, replace bool) {
	if !sh.logged(target, dst) {
		return
	}
	p := AppendStr(sh.scratch[:0], src)
	p = AppendStr(p, dst)
	p = persistence.AppendU16(p, uint16(target))
	var r uint8
	if replace {
		r = 1
	}
	p = persistence.AppendU8(p, r)
	sh.recordScratch(db, persistence.OpCopy, p)
}

// AppendStr is persistence.AppendBytes for a string, without converting it.
func AppendStr(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}
