package persistence

import (
	"encoding/binary"
	"fmt"
)

// A Batch record (OpBatch) carries the mutations of one atomic unit, such
// as a transaction's EXEC, in a single record. One record has one CRC, so a
// torn batch at the tail of the log is dropped whole by recovery and an
// intact one is applied whole: no begin/end pairing is needed and recovery
// reads it like any other record. A replication stream that ships records
// ships the unit whole for the same reason.
//
// Payload:
//
//	count uvarint, then count entries of
//	  db u16 | op u8 | payload bytes (uvarint length + bytes)
//
// An entry is any other opcode's record without its frame; a Batch entry
// may not itself be a Batch. The record's own db field is 0 and unused.

// AppendBatchEntry appends one entry (db, op, payload) to a Batch payload
// being built after its count; see BatchBuilder for the usual way.
func AppendBatchEntry(dst []byte, db uint16, op Opcode, payload []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, db)
	dst = append(dst, byte(op))
	return AppendBytes(dst, payload)
}

// BatchBuilder accumulates the entries of a Batch record. The zero value is
// empty and ready; Reset keeps the buffer for reuse.
type BatchBuilder struct {
	entries []byte
	n       int
	// first keeps the only entry's fields while there is just one, so a
	// unit of one mutation can be written as a plain record.
	firstDB uint16
	firstOp Opcode
	firstAt int // offset of the first entry's payload in entries
}

// Add appends one mutation. payload is copied.
func (b *BatchBuilder) Add(db uint16, op Opcode, payload []byte) {
	if b.n == 0 {
		b.firstDB, b.firstOp = db, op
		b.firstAt = 3 + uvarintLen(uint64(len(payload)))
	}
	b.entries = AppendBatchEntry(b.entries, db, op, payload)
	b.n++
}

// Size is the number of payload bytes of the entries added so far.
func (b *BatchBuilder) Size() int { return len(b.entries) }

// Len is the number of entries added since the last Reset.
func (b *BatchBuilder) Len() int { return b.n }

// Single returns the only entry when Len is 1, for writing it as a plain
// record (one record is atomic already). The payload aliases the builder.
func (b *BatchBuilder) Single() (db uint16, op Opcode, payload []byte) {
	return b.firstDB, b.firstOp, b.entries[b.firstAt:]
}

// AppendPayload appends the Batch record payload (count then entries).
func (b *BatchBuilder) AppendPayload(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(b.n))
	return append(dst, b.entries...)
}

// maxKeptBatchEntries is the largest entries buffer Reset keeps.
const maxKeptBatchEntries = 1 << 20

// Reset empties the builder, keeping its buffer unless a large unit grew
// it past maxKeptBatchEntries.
func (b *BatchBuilder) Reset() {
	b.entries = b.entries[:0]
	if cap(b.entries) > maxKeptBatchEntries {
		b.entries = nil
	}
	b.n = 0
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// BatchEntry is one decoded entry of a Batch payload. Payload aliases the
// batch payload.
type BatchEntry struct {
	DB      uint16
	Op      Opcode
	Payload []byte
}

// DecodeBatch checks a whole Batch payload and returns its entries,
// appended to dst. Nothing is returned unless every entry decodes, so a
// caller can validate before applying anything. Errors wrap ErrCorrupt.
func DecodeBatch(dst []BatchEntry, p []byte) ([]BatchEntry, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 {
		return dst, fmt.Errorf("%w: batch: bad entry count", ErrCorrupt)
	}
	if n > uint64(len(p)) { // every entry takes at least 4 bytes
		return dst, fmt.Errorf("%w: batch: count %d exceeds payload of %d bytes", ErrCorrupt, n, len(p))
	}
	start := len(dst)
	r := NewPayloadReader(p[k:])
	for i := uint64(0); i < n; i++ {
		db, err := r.U16()
		if err != nil {
			return dst[:start], fmt.Errorf("batch entry %d: %w", i, err)
		}
		op, err := r.U8()
		if err != nil {
			return dst[:start], fmt.Errorf("batch entry %d: %w", i, err)
		}
		if Opcode(op) == OpBatch {
			return dst[:start], fmt.Errorf("%w: batch entry %d: nested batch", ErrCorrupt, i)
		}
		pl, err := r.Bytes()
		if err != nil {
			return dst[:start], fmt.Errorf("batch entry %d: %w", i, err)
		}
		dst = append(dst, BatchEntry{DB: db, Op: Opcode(op), Payload: pl})
	}
	if err := r.Done(); err != nil {
		return dst[:start], fmt.Errorf("batch: %w", err)
	}
	return dst, nil
}
