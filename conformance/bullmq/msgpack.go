package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// pack encodes v as MessagePack, the way BullMQ packs script arguments:
// nil, bool, int, int64, float64, string, []byte, []any and map[string]any
// (keys in sorted order, so runs are reproducible).
func pack(v any) []byte { return appendPack(nil, v) }

func appendPack(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0)
	case bool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case int:
		return appendInt(b, int64(x))
	case int64:
		return appendInt(b, x)
	case float64:
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	case string:
		return appendStr(b, x)
	case []byte:
		return appendStr(b, string(x))
	case []any:
		b = appendHeader(b, len(x), 0x90, 0xdc, 0xdd)
		for _, e := range x {
			b = appendPack(b, e)
		}
		return b
	case map[string]any:
		keys := make([]string, 0, len(x))
		for key := range x {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		b = appendHeader(b, len(keys), 0x80, 0xde, 0xdf)
		for _, key := range keys {
			b = appendStr(b, key)
			b = appendPack(b, x[key])
		}
		return b
	}
	panic(fmt.Sprintf("pack: unsupported %T", v))
}

func appendInt(b []byte, n int64) []byte {
	switch {
	case n >= 0 && n < 128:
		return append(b, byte(n))
	case n < 0 && n >= -32:
		return append(b, byte(n))
	default:
		b = append(b, 0xd3)
		return binary.BigEndian.AppendUint64(b, uint64(n))
	}
}

func appendStr(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n < 1<<8:
		b = append(b, 0xd9, byte(n))
	case n < 1<<16:
		b = append(b, 0xda)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0xdb)
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	return append(b, s...)
}

// appendHeader writes an array or map header: fix (n < 16), 16-bit or
// 32-bit length.
func appendHeader(b []byte, n int, fix, m16, m32 byte) []byte {
	switch {
	case n < 16:
		return append(b, fix|byte(n))
	case n < 1<<16:
		b = append(b, m16)
		return binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, m32)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
}
