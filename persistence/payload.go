package persistence

import (
	"encoding/binary"
	"fmt"
)

// Payload helpers. A payload field is one of:
//
//	bytes: uvarint length, then that many bytes (AppendBytes / PayloadReader.Bytes)
//	u8, u16, u64, i64: fixed width, little-endian (i64 is two's complement)
//
// All Append* helpers append to dst and return the extended slice; they do
// not allocate when dst has room.

// AppendBytes appends b prefixed with its length as a uvarint.
func AppendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// AppendU8 appends v as one byte.
func AppendU8(dst []byte, v uint8) []byte { return append(dst, v) }

// AppendU16 appends v little-endian (2 bytes).
func AppendU16(dst []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(dst, v) }

// AppendU64 appends v little-endian (8 bytes).
func AppendU64(dst []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(dst, v) }

// AppendI64 appends v little-endian two's complement (8 bytes).
func AppendI64(dst []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(dst, uint64(v)) }

// PayloadReader decodes payload fields in order. Its methods return an error
// wrapping ErrCorrupt when the input is too short or malformed; slices
// returned by Bytes alias the payload. The zero value reads nothing.
type PayloadReader struct {
	b   []byte
	off int
}

// NewPayloadReader returns a reader over p.
func NewPayloadReader(p []byte) PayloadReader { return PayloadReader{b: p} }

// Len returns the number of unread bytes.
func (r *PayloadReader) Len() int { return len(r.b) - r.off }

func (r *PayloadReader) short(what string, n int) error {
	return fmt.Errorf("%w: payload offset %d: need %d bytes for %s, have %d", ErrCorrupt, r.off, n, what, r.Len())
}

// Bytes reads a uvarint-length-prefixed byte string. The result aliases the
// payload.
func (r *PayloadReader) Bytes() ([]byte, error) {
	n, k := binary.Uvarint(r.b[r.off:])
	if k <= 0 {
		return nil, fmt.Errorf("%w: payload offset %d: bad length prefix", ErrCorrupt, r.off)
	}
	if n > uint64(r.Len()-k) {
		return nil, r.short("bytes", int(min(n, 1<<31)))
	}
	start := r.off + k
	r.off = start + int(n)
	return r.b[start:r.off:r.off], nil
}

// U8 reads one byte.
func (r *PayloadReader) U8() (uint8, error) {
	if r.Len() < 1 {
		return 0, r.short("u8", 1)
	}
	v := r.b[r.off]
	r.off++
	return v, nil
}

// U16 reads a little-endian uint16.
func (r *PayloadReader) U16() (uint16, error) {
	if r.Len() < 2 {
		return 0, r.short("u16", 2)
	}
	v := binary.LittleEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v, nil
}

// U64 reads a little-endian uint64.
func (r *PayloadReader) U64() (uint64, error) {
	if r.Len() < 8 {
		return 0, r.short("u64", 8)
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

// I64 reads a little-endian two's complement int64.
func (r *PayloadReader) I64() (int64, error) {
	v, err := r.U64()
	return int64(v), err
}

// Rest returns the unread bytes (aliasing the payload) and consumes them.
func (r *PayloadReader) Rest() []byte {
	b := r.b[r.off:]
	r.off = len(r.b)
	return b
}

// Done returns an error wrapping ErrCorrupt if unread bytes remain.
func (r *PayloadReader) Done() error {
	if r.Len() != 0 {
		return fmt.Errorf("%w: payload has %d trailing bytes", ErrCorrupt, r.Len())
	}
	return nil
}
