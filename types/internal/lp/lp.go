// Package lp is the packed entry layout shared by the compact forms of
// list nodes, hashes, sets and sorted sets: a pointer-free []byte of
// entries that can be walked in both directions, like Redis's listpack.
//
// An entry is
//
//	uvarint(len(data)) | data | backlen
//
// where backlen is the entry's size without itself (header plus data),
// written as a reverse varint: the last byte holds the low seven bits and
// its high bit says another byte to its left holds the next seven. Walking
// forward reads the header; walking backward reads backlen from the end.
// An entry of up to 126 data bytes costs two bytes of overhead, as in a
// listpack.
//
// The layout is part of the snapshot and WAL formats of every type built
// on it and must not change.
package lp

import "encoding/binary"

// backlenSize is the number of bytes backlen takes for a size of n.
func backlenSize(n int) int {
	s := 1
	for n >= 0x80 {
		n >>= 7
		s++
	}
	return s
}

// EntrySize is the number of bytes an entry holding n data bytes takes.
func EntrySize(n int) int {
	h := uvarintSize(n) + n
	return h + backlenSize(h)
}

func uvarintSize(n int) int {
	s := 1
	for n >= 0x80 {
		n >>= 7
		s++
	}
	return s
}

// Put writes the entry for v at the start of dst, which must hold
// EntrySize(len(v)) bytes, and returns the bytes written.
func Put(dst []byte, v []byte) int {
	n := binary.PutUvarint(dst, uint64(len(v)))
	n += copy(dst[n:], v)
	h := n
	bl := backlenSize(h)
	// Low group last; bytes to its left carry higher groups.
	for i := bl - 1; i >= 0; i-- {
		c := byte(h & 0x7f)
		h >>= 7
		if i > 0 {
			c |= 0x80
		}
		dst[n+i] = c
	}
	return n + bl
}

// Append appends the entry for v to b.
func Append(b []byte, v []byte) []byte {
	n := len(b)
	b = grow(b, EntrySize(len(v)))
	Put(b[n:], v)
	return b
}

// Insert inserts the entry for v at offset off of b, moving the bytes at
// and after off to the right.
func Insert(b []byte, off int, v []byte) []byte {
	sz := EntrySize(len(v))
	n := len(b)
	b = grow(b, sz)
	copy(b[off+sz:], b[off:n])
	Put(b[off:], v)
	return b
}

// Replace replaces the entry at [off, end) by the entry for v.
func Replace(b []byte, off, end int, v []byte) []byte {
	sz := EntrySize(len(v))
	old := end - off
	switch {
	case sz > old:
		n := len(b)
		b = grow(b, sz-old)
		copy(b[end+sz-old:], b[end:n])
	case sz < old:
		copy(b[off+sz:], b[end:])
		b = b[:len(b)-(old-sz)]
	}
	Put(b[off:], v)
	return b
}

// Delete removes the bytes [off, end) of b.
func Delete(b []byte, off, end int) []byte {
	copy(b[off:], b[end:])
	return b[:len(b)-(end-off)]
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	// Grow by a quarter, not double: compact forms are many and small,
	// and their slack is memory a Redis listpack (sized exactly, in the
	// allocator's classes) would not hold.
	c := len(b) + n + len(b)/4
	if c < 16 {
		c = 16
	}
	nb := make([]byte, len(b)+n, c)
	copy(nb, b)
	return nb
}

// Next decodes the entry starting at off and returns its data and the
// offset of the entry after it. It panics on a malformed buffer; Check
// validates untrusted input first.
func Next(b []byte, off int) (data []byte, next int) {
	if h := int(b[off]); h < 0x80 {
		// Fast path: one header byte; backlen is one byte below 127.
		s, e := off+1, off+1+h
		data = b[s:e:e]
		if h < 0x7f {
			return data, e + 1
		}
		return data, e + 2
	}
	l, n := binary.Uvarint(b[off:])
	s := off + n
	e := s + int(l)
	data = b[s:e:e]
	return data, e + backlenSize(e-off)
}

// Prev returns the offset of the entry that ends at end.
func Prev(b []byte, end int) int {
	h := 0
	shift := 0
	i := end - 1
	for {
		c := b[i]
		h |= int(c&0x7f) << shift
		if c&0x80 == 0 || i == 0 {
			break
		}
		shift += 7
		i--
		if shift > 35 {
			break
		}
	}
	return i - h
}

// Check reports whether b is a well-formed run of entries and returns how
// many it holds.
func Check(b []byte) (int, bool) {
	off, n := 0, 0
	for off < len(b) {
		l, k := binary.Uvarint(b[off:])
		if k <= 0 || l > uint64(len(b)) {
			return 0, false
		}
		e := off + k + int(l)
		if e > len(b) {
			return 0, false
		}
		bl := backlenSize(e - off)
		if e+bl > len(b) {
			return 0, false
		}
		if Prev(b, e+bl) != off {
			return 0, false
		}
		off = e + bl
		n++
	}
	return n, true
}
