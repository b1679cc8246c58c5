package keyspace

import "strconv"

// DEBUG OBJECT reports a string's serializedlength as the size of Redis's
// RDB encoding of it, so tools that compare the figure with Redis's see the
// same number. The RDB string encoding (what Redis 7.0 writes with
// rdbcompression on, its default):
//
//   - a canonical decimal integer of at most 11 bytes that fits in 32 bits:
//     one type byte and 1, 2 or 4 bytes of little-endian integer;
//   - a string longer than 20 bytes that LZF shrinks by more than 4 bytes:
//     a type byte, the compressed and the original lengths, then the LZF
//     bytes;
//   - anything else: its length, then its bytes.
//
// Lengths take 1 byte below 64, 2 below 16384, 5 up to 2^32-1, else 9.

// rdbStringLen is the number of bytes of the RDB encoding of s.
func rdbStringLen(s []byte) int64 {
	n := len(s)
	if n <= 11 {
		if l := rdbIntLen(s); l > 0 {
			return l
		}
	}
	if n > 20 {
		if c := lzfCompressedLen(s, n-4); c > 0 {
			return 1 + rdbLenLen(c) + rdbLenLen(n) + int64(c)
		}
	}
	return rdbLenLen(n) + int64(n)
}

// rdbLenLen is the size of an RDB length prefix for n.
func rdbLenLen(n int) int64 {
	switch {
	case n < 1<<6:
		return 1
	case n < 1<<14:
		return 2
	case uint64(n) <= 1<<32-1:
		return 5
	}
	return 9
}

// rdbIntLen is the size of s encoded as an RDB integer, or 0 when s is not
// the canonical decimal form of an integer in 32 bits.
func rdbIntLen(s []byte) int64 {
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != string(s) {
		return 0
	}
	switch {
	case v >= -1<<7 && v < 1<<7:
		return 2
	case v >= -1<<15 && v < 1<<15:
		return 3
	case v >= -1<<31 && v < 1<<31:
		return 5
	}
	return 0
}

// LZF parameters as Redis builds the compressor: a 2^16-slot hash table
// of 3-byte prefixes, back references up to 8 KiB away and 264 bytes long,
// literal runs of up to 32 bytes, and the "very fast" variant that after a
// match hashes only the last two positions it covered.
const (
	lzfHashLog = 16
	lzfMaxOff  = 1 << 13
	lzfMaxRef  = 1<<8 + 1<<3
	lzfMaxLit  = 1 << 5
)

// lzfCompressedLen is the length of the LZF compression of in, or 0 when
// the output would not fit in limit bytes (the caller then stores the
// string as is). Only the length is computed; nothing is written.
func lzfCompressedLen(in []byte, limit int) int {
	n := len(in)
	if n == 0 {
		return 0
	}
	// table holds position+1 of the last occurrence of each hashed prefix;
	// 0 is empty.
	table := make([]int32, 1<<lzfHashLog)
	slot := func(h uint32) uint32 { return ((h >> (3*8 - lzfHashLog)) - h*5) & (1<<lzfHashLog - 1) }
	first := func(i int) uint32 { return uint32(in[i])<<8 | uint32(in[i+1]) }
	next := func(h uint32, i int) uint32 { return h<<8 | uint32(in[i+2]) }

	ip, op, lit := 0, 1, 0 // op counts output bytes; one is reserved for the first run's length
	h := first(0)
	for ip < n-2 {
		h = next(h, ip)
		s := slot(h)
		ref := int(table[s]) - 1
		table[s] = int32(ip + 1)
		if ref > 0 && ip-ref-1 < lzfMaxOff && in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			off := ip - ref - 1
			length := 2
			maxLen := min(n-ip-length, lzfMaxRef)
			if op+3+1 >= limit {
				back := 0
				if lit == 0 {
					back = 1
				}
				if op-back+3+1 >= limit {
					return 0
				}
			}
			if lit == 0 {
				op-- // drop the empty run's length byte
			}
			// Extend the match: past 16 bytes of room the first 16 are
			// compared unconditionally, then byte by byte up to maxLen.
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
				op++
			} else {
				op += 2
			}
			op++ // low byte of the offset
			_ = off
			lit = 0
			op++ // next run's length byte
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
		if op >= limit {
			return 0
		}
		lit++
		op++
		ip++
		if lit == lzfMaxLit {
			lit = 0
			op++
		}
	}
	if op+3 > limit {
		return 0
	}
	for ip < n {
		lit++
		op++
		ip++
		if lit == lzfMaxLit {
			lit = 0
			op++
		}
	}
	if lit == 0 {
		op--
	}
	return op
}
