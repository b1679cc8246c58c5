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

// PayloadReader decodes payload fields in order. Slices it returns alias
// the payload. The zero value reads nothing.
//
// The reader keeps the first error it meets (an error wrapping ErrCorrupt
// when the input is too short or malformed): every later read returns the
// zero value and reads nothing. A decoder therefore reads every field with
// the Next* methods and checks Err (or End) once, as with bufio.Scanner.
// The methods without the prefix (Bytes, U8, …) read the same fields and
// also return the error, for callers that stop at the first field.
type PayloadReader struct {
	b   []byte
	off int
	err error
}

// NewPayloadReader returns a reader over p.
func NewPayloadReader(p []byte) PayloadReader { return PayloadReader{b: p} }

// Len returns the number of unread bytes.
func (r *PayloadReader) Len() int { return len(r.b) - r.off }

// Err returns the first error a read met, or nil.
func (r *PayloadReader) Err() error { return r.err }

// fail records err unless an earlier error is already kept.
func (r *PayloadReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// take consumes n bytes for a field called what and returns them, or
// records an error and returns nil when fewer remain.
func (r *PayloadReader) take(what string, n int) []byte {
	if r.err != nil {
		return nil
	}
	if r.Len() < n {
		r.fail(fmt.Errorf("%w: payload offset %d: need %d bytes for %s, have %d", ErrCorrupt, r.off, n, what, r.Len()))
		return nil
	}
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// NextBytes reads a uvarint-length-prefixed byte string; the result
// aliases the payload.
func (r *PayloadReader) NextBytes() []byte {
	if r.err != nil {
		return nil
	}
	n, k := binary.Uvarint(r.b[r.off:])
	if k <= 0 {
		r.fail(fmt.Errorf("%w: payload offset %d: bad length prefix", ErrCorrupt, r.off))
		return nil
	}
	if n > uint64(r.Len()-k) {
		r.fail(fmt.Errorf("%w: payload offset %d: need %d bytes for bytes, have %d", ErrCorrupt, r.off, min(n, 1<<31), r.Len()-k))
		return nil
	}
	r.off += k
	return r.take("bytes", int(n))
}

// NextU8 reads one byte.
func (r *PayloadReader) NextU8() uint8 {
	if b := r.take("u8", 1); b != nil {
		return b[0]
	}
	return 0
}

// NextU16 reads a little-endian uint16.
func (r *PayloadReader) NextU16() uint16 {
	if b := r.take("u16", 2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

// NextU64 reads a little-endian uint64.
func (r *PayloadReader) NextU64() uint64 {
	if b := r.take("u64", 8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// NextI64 reads a little-endian two's complement int64.
func (r *PayloadReader) NextI64() int64 { return int64(r.NextU64()) }

// NextCount reads a u64 element count and checks that the unread bytes can
// hold that many elements of at least minSize bytes each (minSize > 0), so
// a damaged count is an error rather than a huge allocation or loop.
func (r *PayloadReader) NextCount(minSize int) uint64 {
	n := r.NextU64()
	if r.err == nil && n > uint64(r.Len()/minSize) {
		r.fail(fmt.Errorf("%w: payload offset %d: count %d of %d-byte elements in %d bytes", ErrCorrupt, r.off, n, minSize, r.Len()))
		return 0
	}
	return n
}

// NextFields consumes n consecutive byte-string fields and returns a
// reader over exactly them, so a decoder can check a whole record before
// it changes anything and then read the fields again from the returned
// reader, which cannot fail.
func (r *PayloadReader) NextFields(n uint64) PayloadReader {
	start := r.off
	for i := uint64(0); i < n && r.err == nil; i++ {
		r.NextBytes()
	}
	if r.err != nil {
		return PayloadReader{}
	}
	return PayloadReader{b: r.b[start:r.off:r.off]}
}

// End returns Err, or an error wrapping ErrCorrupt if unread bytes remain:
// bytes after the last field mean the writer and the reader disagree on
// the layout.
func (r *PayloadReader) End() error {
	if r.err == nil && r.Len() != 0 {
		r.fail(fmt.Errorf("%w: payload has %d trailing bytes", ErrCorrupt, r.Len()))
	}
	return r.err
}

// Bytes is NextBytes that also returns the reader's error.
func (r *PayloadReader) Bytes() ([]byte, error) {
	b := r.NextBytes()
	return b, r.err
}

// U8 is NextU8 that also returns the reader's error.
func (r *PayloadReader) U8() (uint8, error) {
	v := r.NextU8()
	return v, r.err
}

// U16 is NextU16 that also returns the reader's error.
func (r *PayloadReader) U16() (uint16, error) {
	v := r.NextU16()
	return v, r.err
}

// U64 is NextU64 that also returns the reader's error.
func (r *PayloadReader) U64() (uint64, error) {
	v := r.NextU64()
	return v, r.err
}

// I64 is NextI64 that also returns the reader's error.
func (r *PayloadReader) I64() (int64, error) {
	v := r.NextI64()
	return v, r.err
}

// Rest returns the unread bytes (aliasing the payload) and consumes them;
// nil after an error.
func (r *PayloadReader) Rest() []byte {
	if r.err != nil {
		return nil
	}
	b := r.b[r.off:]
	r.off = len(r.b)
	return b
}

// Done is End: an error if a read failed or unread bytes remain.
func (r *PayloadReader) Done() error { return r.End() }

// NextRaw reads n bytes as they are (n >= 0); the result aliases the
// payload.
func (r *PayloadReader) NextRaw(n int) []byte { return r.take("raw bytes", n) }
