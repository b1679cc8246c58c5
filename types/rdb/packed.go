package rdb

import (
	"encoding/binary"
	"strconv"
)

// Listpacks: a 4-byte total size and a 2-byte entry count (65535 when
// unknown), both little-endian, the entries, and 0xFF. An entry is an
// encoding byte and its data, then the entry's size without this field
// written backwards in 7-bit groups (its "back length"):
//
//	0xxxxxxx             an integer 0..127
//	10xxxxxx             a string of up to 63 bytes follows
//	110xxxxx y           a 13-bit signed integer
//	1110xxxx y           a string of up to 4095 bytes follows
//	11110000 len32       a string of a 32-bit length follows
//	11110001..11110100   an integer of 16, 24, 32 or 64 bits follows

// parseListpack calls fn with each entry of lp (integers as decimal
// text), checking the whole structure first.
func parseListpack(lp []byte, fn func(v []byte) error) error {
	if len(lp) < 7 {
		return badf("listpack of %d bytes", len(lp))
	}
	if int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != 0xFF {
		return badf("listpack header or terminator")
	}
	count := int(binary.LittleEndian.Uint16(lp[4:]))
	body := lp[6 : len(lp)-1]
	n := 0
	var buf [24]byte
	for len(body) > 0 {
		c := body[0]
		var v []byte
		var size int // encoding and data
		var iv int64
		isInt := false
		switch {
		case c < 0x80:
			iv, size, isInt = int64(c), 1, true
		case c>>6 == 2:
			l := int(c & 0x3f)
			size = 1 + l
			if size > len(body) {
				return badf("listpack string past the end")
			}
			v = body[1:size]
		case c>>5 == 6:
			if len(body) < 2 {
				return badf("listpack integer past the end")
			}
			u := uint16(c&0x1f)<<8 | uint16(body[1])
			iv, size, isInt = int64(int16(u<<3)>>3), 2, true
		case c>>4 == 0xE:
			if len(body) < 2 {
				return badf("listpack string past the end")
			}
			l := int(c&0x0f)<<8 | int(body[1])
			size = 2 + l
			if size > len(body) {
				return badf("listpack string past the end")
			}
			v = body[2:size]
		case c == 0xF0:
			if len(body) < 5 {
				return badf("listpack string past the end")
			}
			l := uint64(binary.LittleEndian.Uint32(body[1:]))
			if l > uint64(len(body)-5) {
				return badf("listpack string past the end")
			}
			size = 5 + int(l)
			v = body[5:size]
		case c >= 0xF1 && c <= 0xF4:
			w := [...]int{2, 3, 4, 8}[c-0xF1]
			if len(body) < 1+w {
				return badf("listpack integer past the end")
			}
			var u uint64
			for i := w - 1; i >= 0; i-- {
				u = u<<8 | uint64(body[1+i])
			}
			shift := uint(64 - 8*w)
			iv, size, isInt = int64(u<<shift)>>shift, 1+w, true
		default:
			return badf("listpack entry encoding 0x%02x", c)
		}
		bl := backlenSize(size)
		if size+bl > len(body) {
			return badf("listpack back length past the end")
		}
		if decodeBacklen(body[size:size+bl]) != uint64(size) {
			return badf("listpack back length")
		}
		if isInt {
			v = strconv.AppendInt(buf[:0], iv, 10)
		}
		if err := fn(v); err != nil {
			return err
		}
		n++
		body = body[size+bl:]
	}
	if count != 0xFFFF && count != n {
		return badf("listpack holds %d entries, says %d", n, count)
	}
	return nil
}

func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// decodeBacklen reads a back length stored forwards in b: the first byte
// holds the highest group, every other byte has its top bit set.
func decodeBacklen(b []byte) uint64 {
	var v uint64
	for i, c := range b {
		if i > 0 {
			if c&0x80 == 0 {
				return 1<<64 - 1
			}
		} else if len(b) > 1 && c&0x80 != 0 {
			return 1<<64 - 1
		}
		v = v<<7 | uint64(c&0x7f)
	}
	return v
}

func appendBacklen(dst []byte, l int) []byte {
	n := backlenSize(l)
	for i := n - 1; i >= 0; i-- {
		c := byte(l>>(7*i)) & 0x7f
		if i < n-1 {
			c |= 0x80
		}
		dst = append(dst, c)
	}
	return dst
}

// listpackBuilder writes a listpack the way Redis fills one: every entry
// that is the canonical text of an int64 is stored as the smallest
// integer encoding that holds it.
type listpackBuilder struct {
	b []byte
	n int
}

func newListpack() *listpackBuilder { return &listpackBuilder{b: make([]byte, 6, 64)} }

func (lb *listpackBuilder) add(v []byte) {
	start := len(lb.b)
	if iv, ok := canonicalInt(v); ok {
		switch {
		case iv >= 0 && iv <= 127:
			lb.b = append(lb.b, byte(iv))
		case iv >= -4096 && iv <= 4095:
			u := uint16(iv) & 0x1fff
			lb.b = append(lb.b, 0xC0|byte(u>>8), byte(u))
		case iv >= -1<<15 && iv < 1<<15:
			lb.b = binary.LittleEndian.AppendUint16(append(lb.b, 0xF1), uint16(iv))
		case iv >= -1<<23 && iv < 1<<23:
			u := uint32(iv)
			lb.b = append(lb.b, 0xF2, byte(u), byte(u>>8), byte(u>>16))
		case iv >= -1<<31 && iv < 1<<31:
			lb.b = binary.LittleEndian.AppendUint32(append(lb.b, 0xF3), uint32(iv))
		default:
			lb.b = binary.LittleEndian.AppendUint64(append(lb.b, 0xF4), uint64(iv))
		}
	} else {
		switch l := len(v); {
		case l < 64:
			lb.b = append(lb.b, 0x80|byte(l))
		case l < 4096:
			lb.b = append(lb.b, 0xE0|byte(l>>8), byte(l))
		default:
			lb.b = binary.LittleEndian.AppendUint32(append(lb.b, 0xF0), uint32(l))
		}
		lb.b = append(lb.b, v...)
	}
	lb.b = appendBacklen(lb.b, len(lb.b)-start)
	lb.n++
}

// size is the listpack's size once finished.
func (lb *listpackBuilder) size() int { return len(lb.b) + 1 }

func (lb *listpackBuilder) finish() []byte {
	lb.b = append(lb.b, 0xFF)
	binary.LittleEndian.PutUint32(lb.b, uint32(len(lb.b)))
	n := lb.n
	if n >= 0xFFFF {
		n = 0xFFFF
	}
	binary.LittleEndian.PutUint16(lb.b[4:], uint16(n))
	return lb.b
}

// Ziplists (read only): a 4-byte total size, a 4-byte offset of the last
// entry, a 2-byte count (65535 when unknown), the entries and 0xFF. An
// entry is the previous entry's size (1 byte, or 0xFE and 4 bytes), an
// encoding and its data:
//
//	00xxxxxx, 01xxxxxx y, 10000000 len32   strings of 6, 14, 32-bit length
//	11000000 int16, 11010000 int32, 11100000 int64, 11110000 int24,
//	11111110 int8, 1111xxxx (0001..1101) the integer xxxx-1

// parseZiplist calls fn with each entry of zl (integers as decimal text).
func parseZiplist(zl []byte, fn func(v []byte) error) error {
	if len(zl) < 11 {
		return badf("ziplist of %d bytes", len(zl))
	}
	if int(binary.LittleEndian.Uint32(zl)) != len(zl) || zl[len(zl)-1] != 0xFF {
		return badf("ziplist header or terminator")
	}
	tail := int(binary.LittleEndian.Uint32(zl[4:]))
	count := int(binary.LittleEndian.Uint16(zl[8:]))
	p := 10
	prev, last, n := 0, 10, 0
	var buf [24]byte
	for zl[p] != 0xFF {
		start := p
		if zl[p] < 0xFE {
			if int(zl[p]) != prev {
				return badf("ziplist previous length")
			}
			p++
		} else if zl[p] == 0xFE {
			if p+5 > len(zl)-1 || int(binary.LittleEndian.Uint32(zl[p+1:])) != prev {
				return badf("ziplist previous length")
			}
			p += 5
		}
		if p >= len(zl)-1 {
			return badf("ziplist entry past the end")
		}
		c := zl[p]
		var v []byte
		var iv int64
		isInt := true
		need := func(k int) bool { return p+k <= len(zl)-1 }
		switch {
		case c>>6 == 0:
			l := int(c & 0x3f)
			if !need(1 + l) {
				return badf("ziplist string past the end")
			}
			v, p, isInt = zl[p+1:p+1+l], p+1+l, false
		case c>>6 == 1:
			if !need(2) {
				return badf("ziplist string past the end")
			}
			l := int(c&0x3f)<<8 | int(zl[p+1])
			if !need(2 + l) {
				return badf("ziplist string past the end")
			}
			v, p, isInt = zl[p+2:p+2+l], p+2+l, false
		case c == 0x80:
			if !need(5) {
				return badf("ziplist string past the end")
			}
			l := uint64(binary.BigEndian.Uint32(zl[p+1:]))
			if l > uint64(len(zl)) || !need(5+int(l)) {
				return badf("ziplist string past the end")
			}
			v, p, isInt = zl[p+5:p+5+int(l)], p+5+int(l), false
		case c == 0xC0:
			if !need(3) {
				return badf("ziplist integer past the end")
			}
			iv, p = int64(int16(binary.LittleEndian.Uint16(zl[p+1:]))), p+3
		case c == 0xD0:
			if !need(5) {
				return badf("ziplist integer past the end")
			}
			iv, p = int64(int32(binary.LittleEndian.Uint32(zl[p+1:]))), p+5
		case c == 0xE0:
			if !need(9) {
				return badf("ziplist integer past the end")
			}
			iv, p = int64(binary.LittleEndian.Uint64(zl[p+1:])), p+9
		case c == 0xF0:
			if !need(4) {
				return badf("ziplist integer past the end")
			}
			u := uint32(zl[p+1]) | uint32(zl[p+2])<<8 | uint32(zl[p+3])<<16
			iv, p = int64(int32(u<<8)>>8), p+4
		case c == 0xFE:
			if !need(2) {
				return badf("ziplist integer past the end")
			}
			iv, p = int64(int8(zl[p+1])), p+2
		case c >= 0xF1 && c <= 0xFD:
			iv, p = int64(c&0x0f)-1, p+1
		default:
			return badf("ziplist entry encoding 0x%02x", c)
		}
		if isInt {
			v = strconv.AppendInt(buf[:0], iv, 10)
		}
		if err := fn(v); err != nil {
			return err
		}
		prev, last = p-start, start
		n++
		if p >= len(zl) {
			return badf("ziplist entry past the end")
		}
	}
	if p != len(zl)-1 {
		return badf("ziplist terminator before the end")
	}
	if (n > 0 && tail != last) || (n == 0 && tail != 10) {
		return badf("ziplist tail offset")
	}
	if count != 0xFFFF && count != n {
		return badf("ziplist holds %d entries, says %d", n, count)
	}
	return nil
}

// Intsets: a 4-byte width (2, 4 or 8), a 4-byte count, then the members
// sorted ascending, each of that width, all little-endian.

func parseIntset(is []byte, fn func(v int64) error) error {
	if len(is) < 8 {
		return badf("intset of %d bytes", len(is))
	}
	w := binary.LittleEndian.Uint32(is)
	n := uint64(binary.LittleEndian.Uint32(is[4:]))
	if w != 2 && w != 4 && w != 8 {
		return badf("intset width %d", w)
	}
	if uint64(len(is)-8) != n*uint64(w) {
		return badf("intset size")
	}
	if n == 0 {
		return ErrEmpty
	}
	var prev int64
	for i := range int(n) {
		p := is[8+i*int(w):]
		var v int64
		switch w {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return badf("intset not sorted")
		}
		prev = v
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

// appendIntset appends an intset of the sorted distinct values vs.
func appendIntset(dst []byte, vs []int64) []byte {
	w := 2
	for _, v := range vs {
		switch {
		case v < -1<<31 || v >= 1<<31:
			w = 8
		case (v < -1<<15 || v >= 1<<15) && w < 4:
			w = 4
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(w))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vs)))
	for _, v := range vs {
		switch w {
		case 2:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
		case 4:
			dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
		default:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
	}
	return dst
}
