package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrBadFormat wraps every error about malformed input.
var ErrBadFormat = errors.New("rdb: bad data format")

func badf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadFormat}, args...)...)
}

// Length encodings (the two top bits of the first byte).
const (
	len6     = 0
	len14    = 1
	len32    = 0x80
	len64    = 0x81
	encValue = 3
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// chunk bounds a single allocation made on the word of a length read from
// the input: longer strings grow as their bytes actually arrive, so a
// forged length costs no more memory than the input holds.
const chunk = 1 << 20

// decoder reads RDB primitives from a buffered stream and counts the
// bytes it consumed.
type decoder struct {
	r   *bufio.Reader
	n   int64
	crc uint64
	// sum, when set, makes every byte read go into crc.
	sum bool
}

func newDecoder(r io.Reader) *decoder {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &decoder{r: br}
}

func (d *decoder) eof(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return badf("unexpected end of data at offset %d", d.n)
	}
	return err
}

func (d *decoder) byte() (byte, error) {
	c, err := d.r.ReadByte()
	if err != nil {
		return 0, d.eof(err)
	}
	d.n++
	if d.sum {
		d.crc = jonesTable[byte(d.crc)^c] ^ d.crc>>8
	}
	return c, nil
}

// full reads exactly len(p) bytes.
func (d *decoder) full(p []byte) error {
	m, err := io.ReadFull(d.r, p)
	d.n += int64(m)
	if d.sum {
		d.crc = CRC64(d.crc, p[:m])
	}
	if err != nil {
		return d.eof(err)
	}
	return nil
}

// bytes reads n bytes into a new slice, growing it by chunks.
func (d *decoder) bytes(n uint64) ([]byte, error) {
	if n > 1<<40 {
		return nil, badf("length %d at offset %d", n, d.n)
	}
	if n <= chunk {
		p := make([]byte, n)
		return p, d.full(p)
	}
	var p []byte
	for uint64(len(p)) < n {
		step := min(n-uint64(len(p)), uint64(max(len(p), chunk)))
		p = append(p, make([]byte, step)...)
		if err := d.full(p[len(p)-int(step):]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// length reads a length, or the special encoding of a string: enc
// reports whether v is one (encInt8 … encLZF) rather than a length.
func (d *decoder) length() (v uint64, enc bool, err error) {
	c, err := d.byte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case len6:
		return uint64(c & 0x3f), false, nil
	case len14:
		c2, err := d.byte()
		return uint64(c&0x3f)<<8 | uint64(c2), false, err
	case encValue:
		return uint64(c & 0x3f), true, nil
	}
	var b [8]byte
	switch c {
	case len32:
		err = d.full(b[:4])
		return uint64(binary.BigEndian.Uint32(b[:4])), false, err
	case len64:
		err = d.full(b[:8])
		return binary.BigEndian.Uint64(b[:8]), false, err
	}
	return 0, false, badf("length prefix 0x%02x at offset %d", c, d.n-1)
}

// plainLength reads a length that may not be a special encoding.
func (d *decoder) plainLength() (uint64, error) {
	v, enc, err := d.length()
	if err == nil && enc {
		err = badf("string encoding where a length belongs at offset %d", d.n-1)
	}
	return v, err
}

// count reads a length that counts items of at least min bytes each,
// which bounds it before anything is allocated for it.
func (d *decoder) count() (int, error) {
	v, err := d.plainLength()
	if err != nil {
		return 0, err
	}
	if v > 1<<40 {
		return 0, badf("count %d at offset %d", v, d.n)
	}
	return int(v), nil
}

// string reads a string in any of its encodings.
func (d *decoder) string() ([]byte, error) {
	v, enc, err := d.length()
	if err != nil {
		return nil, err
	}
	if !enc {
		return d.bytes(v)
	}
	var b [4]byte
	switch v {
	case encInt8:
		if err := d.full(b[:1]); err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int8(b[0])), 10), nil
	case encInt16:
		if err := d.full(b[:2]); err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b[:2]))), 10), nil
	case encInt32:
		if err := d.full(b[:4]); err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b[:4]))), 10), nil
	case encLZF:
		clen, err := d.plainLength()
		if err != nil {
			return nil, err
		}
		n, err := d.plainLength()
		if err != nil {
			return nil, err
		}
		// LZF expands at most about 100 times (a 3-byte reference
		// yields 264 bytes), which bounds the output by the input.
		if clen == 0 || n > clen*lzfMaxRef {
			return nil, badf("LZF string of %d bytes claims %d at offset %d", clen, n, d.n)
		}
		c, err := d.bytes(clen)
		if err != nil {
			return nil, err
		}
		out, err := Decompress(c, int(n))
		if err != nil {
			return nil, fmt.Errorf("%w at offset %d", badf("%v", err), d.n)
		}
		return out, nil
	}
	return nil, badf("string encoding %d at offset %d", v, d.n-1)
}

// AppendLength appends the RDB encoding of the length n.
func AppendLength(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, len32), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, len64), n)
}

// AppendString appends s as RDB string as Redis writes it with
// compression on: a canonical decimal integer of at most 11 bytes that
// fits in 32 bits as an integer, a string longer than 20 bytes that LZF
// shrinks by more than 4 bytes compressed, anything else as it is.
func AppendString(dst, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := canonicalInt(s); ok {
			switch {
			case v >= -1<<7 && v < 1<<7:
				return append(dst, 0xC0|encInt8, byte(int8(v)))
			case v >= -1<<15 && v < 1<<15:
				return binary.LittleEndian.AppendUint16(append(dst, 0xC0|encInt16), uint16(int16(v)))
			case v >= -1<<31 && v < 1<<31:
				return binary.LittleEndian.AppendUint32(append(dst, 0xC0|encInt32), uint32(int32(v)))
			}
		}
	}
	if len(s) > 20 {
		// Compress after room for the header, then move it into place.
		hdr := len(dst)
		if c, ok := Compress(dst, s, len(s)-4); ok {
			body := append([]byte(nil), c[hdr:]...)
			dst = append(c[:hdr], 0xC0|encLZF)
			dst = AppendLength(dst, uint64(len(body)))
			dst = AppendLength(dst, uint64(len(s)))
			return append(dst, body...)
		}
	}
	return append(AppendLength(dst, uint64(len(s))), s...)
}

// canonicalInt parses s as Redis's string2ll does: an optional minus,
// no leading zeros, no plus, no spaces, within int64.
func canonicalInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return 0, false
	}
	var buf [24]byte
	return v, string(strconv.AppendInt(buf[:0], v, 10)) == string(s)
}

// ReadString reads one RDB string, in any of its encodings, from the
// start of p and returns it and the bytes after it.
func ReadString(p []byte) (s, rest []byte, err error) {
	r := bytes.NewReader(p)
	d := newDecoder(r)
	s, err = d.string()
	if err != nil {
		return nil, nil, err
	}
	return s, p[d.n:], nil
}
