package rdb

import "errors"

// LZF, as RDB files use it. A compressed stream is a sequence of runs,
// each starting with a control byte c:
//
//	c < 32       a literal run: the next c+1 bytes are copied as they are
//	c >= 32      a back reference: length L = c>>5 (7 means 7 plus the
//	             next byte), then the low byte of the offset; the high
//	             five bits of the offset are c&31. L+2 bytes are copied
//	             from offset+1 bytes before the current end of the output.
//
// The compressor hashes every 3-byte prefix into a table of the last
// position it was seen at, takes the match it finds there when it is
// within reach, and otherwise extends the current literal run. It keeps
// the parameters and the choices of the compressor Redis links (a 2^16
// slot table, references of up to 8 KiB back and 264 bytes long, runs of
// at most 32 literals, and after a match only the last two positions it
// covered are hashed), so it produces the same bytes for the same input.
const (
	lzfHashLog = 16
	lzfMaxOff  = 1 << 13
	lzfMaxRef  = 1<<8 + 1<<3
	lzfMaxLit  = 1 << 5
)

// ErrLZF is returned for a compressed string that does not decompress to
// exactly its declared length.
var ErrLZF = errors.New("rdb: invalid LZF data")

// Decompress expands in, which must decompress to exactly n bytes, into
// a new slice.
func Decompress(in []byte, n int) ([]byte, error) {
	// The declared size is only trusted as far as the input can reach.
	out := make([]byte, 0, min(n, 64+8*len(in)))
	for ip := 0; ip < len(in); {
		c := int(in[ip])
		ip++
		if c < 1<<5 {
			c++
			if ip+c > len(in) || len(out)+c > n {
				return nil, ErrLZF
			}
			out = append(out, in[ip:ip+c]...)
			ip += c
			continue
		}
		length := c >> 5
		if length == 7 {
			if ip >= len(in) {
				return nil, ErrLZF
			}
			length += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, ErrLZF
		}
		ref := len(out) - ((c&0x1f)<<8 | int(in[ip])) - 1
		ip++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, ErrLZF
		}
		// The source may overlap what is being written (a run), so copy
		// byte by byte.
		for i := 0; i < length; i++ {
			out = append(out, out[ref+i])
		}
	}
	if len(out) != n {
		return nil, ErrLZF
	}
	return out, nil
}

// Compress appends the LZF compression of in to dst and reports whether
// it fit in limit bytes; when it does not (or in is empty), dst is
// returned unchanged and ok is false, and the caller stores in as it is.
func Compress(dst, in []byte, limit int) (out []byte, ok bool) {
	n := len(in)
	if n == 0 || limit <= 0 {
		return dst, false
	}
	base := len(dst)
	// table holds position+1 of the last occurrence of each hashed
	// prefix; 0 is empty.
	table := make([]int32, 1<<lzfHashLog)
	slot := func(h uint32) uint32 { return ((h >> (3*8 - lzfHashLog)) - h*5) & (1<<lzfHashLog - 1) }
	first := func(i int) uint32 { return uint32(in[i])<<8 | uint32(in[i+1]) }
	next := func(h uint32, i int) uint32 { return h<<8 | uint32(in[i+2]) }

	o := append(dst, 0) // the first run's length byte
	lit := 0
	var h uint32
	if n >= 2 {
		h = first(0)
	}
	ip := 0
	for ip < n-2 {
		h = next(h, ip)
		s := slot(h)
		ref := int(table[s]) - 1
		table[s] = int32(ip + 1)
		if ref > 0 && ip-ref-1 < lzfMaxOff && in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			off := ip - ref - 1
			length := 2
			maxLen := min(n-ip-length, lzfMaxRef)
			// Room for the reference (up to 3 bytes) and the next run's
			// length byte.
			need := len(o) - base + 3 + 1
			if lit == 0 {
				need--
			}
			if need >= limit {
				return dst[:base], false
			}
			o[len(o)-lit-1] = byte(lit - 1)
			if lit == 0 {
				o = o[:len(o)-1] // drop the empty run's length byte
			}
			matched := false
			if maxLen > 16 {
				for range 16 {
					length++
					if in[ref+length] != in[ip+length] {
						matched = true
						break
					}
				}
			}
			if !matched {
				for {
					length++
					if length >= maxLen || in[ref+length] != in[ip+length] {
						break
					}
				}
			}
			length -= 2
			ip++
			if length < 7 {
				o = append(o, byte(off>>8+length<<5))
			} else {
				o = append(o, byte(off>>8+7<<5), byte(length-7))
			}
			o = append(o, byte(off))
			lit = 0
			o = append(o, 0) // the next run's length byte
			ip += length + 1
			if ip >= n-2 {
				break
			}
			ip -= 2
			h = first(ip)
			h = next(h, ip)
			table[slot(h)] = int32(ip + 1)
			ip++
			h = next(h, ip)
			table[slot(h)] = int32(ip + 1)
			ip++
			continue
		}
		if len(o)-base >= limit {
			return dst[:base], false
		}
		lit++
		o = append(o, in[ip])
		ip++
		if lit == lzfMaxLit {
			o[len(o)-lit-1] = byte(lit - 1)
			lit = 0
			o = append(o, 0)
		}
	}
	if len(o)-base+3 > limit {
		return dst[:base], false
	}
	for ip < n {
		lit++
		o = append(o, in[ip])
		ip++
		if lit == lzfMaxLit {
			o[len(o)-lit-1] = byte(lit - 1)
			lit = 0
			o = append(o, 0)
		}
	}
	o[len(o)-lit-1] = byte(lit - 1)
	if lit == 0 {
		o = o[:len(o)-1]
	}
	return o, true
}
