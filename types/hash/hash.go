// Package hash is the Redis hash: field→value pairs in a compact packed
// form while small, a hash table once large, converting at Redis 7.0's
// thresholds (hash-max-listpack-entries, hash-max-listpack-value).
//
// The compact form is one pointer-free []byte:
//
//	uint32 little-endian number of fields
//	entries (types/internal/lp): field, value, field, value, ...
//
// in insertion order. It converts to the table when a field or value
// longer than MaxListpackValue is written or when the number of fields
// passes MaxListpackEntries, and never converts back (as in Redis). The
// table is types/internal/dict, which gives SCAN's reverse-binary cursor
// guarantee and O(1) uniform random fields.
//
// # Binary encoding (version 1)
//
//	byte 1 (version)
//	byte 0 = compact: the compact form's bytes follow, verbatim
//	byte 1 = table:   uvarint number of fields, then per field
//	                  uvarint len, field, uvarint len, value
//
// Unmarshal validates everything and converts to the form the given
// Config calls for.
package hash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"unsafe"

	"github.com/ruvio/ruvio/types/internal/dict"
	"github.com/ruvio/ruvio/types/internal/lp"
	"github.com/ruvio/ruvio/types/internal/memsize"
	"github.com/ruvio/ruvio/types/internal/pick"
	"github.com/ruvio/ruvio/types/num"
)

// Config holds the conversion thresholds.
type Config struct {
	MaxListpackEntries int // hash-max-listpack-entries
	MaxListpackValue   int // hash-max-listpack-value
}

// DefaultConfig is Redis 7.0's default.
var DefaultConfig = Config{MaxListpackEntries: 512, MaxListpackValue: 64}

// Errors with Redis's reply texts (the command layer adds "ERR ").
var (
	ErrNotInteger = errors.New("hash value is not an integer")
	ErrNotFloat   = errors.New("hash value is not a float")
	ErrOverflow   = errors.New("increment or decrement would overflow")
	ErrNaN        = errors.New("increment would produce NaN or Infinity")
	// ErrNotValidFloat and ErrIncrInf are HINCRBYFLOAT's checks of its
	// increment argument.
	ErrNotValidFloat = errors.New("value is not a valid float")
	ErrIncrInf       = errors.New("value is NaN or Infinity")
	ErrCorrupt       = errors.New("hash: corrupt encoding")
)

const (
	hdr             = 4
	encodingVersion = 1
)

// Hash is a Redis hash. The zero value is an empty compact hash.
type Hash struct {
	lp []byte // compact form; nil when empty or when t is set
	t  *dict.Dict[string]
	// vals is the rounded allocation size of the table's values, kept as
	// they change so that MemoryUsage need not visit each field.
	vals int
}

// PrefetchBucket, PrefetchEntry and PrefetchKey read ahead of a lookup
// of field in the large form (dict.Table.PrefetchBucket); the compact
// form has nothing to read.
func (h *Hash) PrefetchBucket(field []byte) uint32 {
	if h.t == nil {
		return 0
	}
	return h.t.PrefetchBucket(field)
}

// PrefetchEntry is the second step of the read ahead; see PrefetchBucket.
func (h *Hash) PrefetchEntry(hash uint32) int32 {
	if h.t == nil {
		return -1
	}
	return h.t.PrefetchEntry(hash)
}

// PrefetchKey is the third step of the read ahead; see PrefetchBucket.
func (h *Hash) PrefetchKey(i int32) {
	if h.t != nil {
		h.t.PrefetchKey(i)
	}
}

// FromCompact wraps a compact form produced by Compact without copying;
// the hash owns b from then on. b must come from Compact or a validated
// Unmarshal.
func FromCompact(b []byte) Hash { return Hash{lp: b} }

// Compact returns the compact form, or nil when the hash is a table.
// The keyspace may store it inline and rebuild the Hash with FromCompact.
func (h *Hash) Compact() []byte {
	if h.t != nil {
		return nil
	}
	return h.lp
}

// Encoding returns the name OBJECT ENCODING reports.
func (h *Hash) Encoding() string {
	if h.t != nil {
		return "hashtable"
	}
	return "listpack"
}

// Len returns the number of fields (HLEN).
func (h *Hash) Len() int {
	if h.t != nil {
		return h.t.Len()
	}
	if len(h.lp) < hdr {
		return 0
	}
	return int(binary.LittleEndian.Uint32(h.lp))
}

func (h *Hash) setCount(n int) { binary.LittleEndian.PutUint32(h.lp, uint32(n)) }

// find returns the offsets of field's entry and of its value's entry and
// the end of the value, or -1.
func (h *Hash) find(field []byte) (foff, voff, vend int) {
	for off := hdr; off < len(h.lp); {
		f, next := lp.Next(h.lp, off)
		_, vnext := lp.Next(h.lp, next)
		if string(f) == string(field) {
			return off, next, vnext
		}
		off = vnext
	}
	return -1, -1, -1
}

func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Get returns the value of field (HGET). The slice must not be modified.
func (h *Hash) Get(field []byte) ([]byte, bool) {
	if h.t != nil {
		i := h.t.Find(field)
		if i < 0 {
			return nil, false
		}
		return bytesOf(*h.t.Value(i)), true
	}
	_, voff, _ := h.find(field)
	if voff < 0 {
		return nil, false
	}
	v, _ := lp.Next(h.lp, voff)
	return v, true
}

// Exists reports whether field is present (HEXISTS).
func (h *Hash) Exists(field []byte) bool {
	_, ok := h.Get(field)
	return ok
}

// StrLen returns the length of field's value, 0 when absent (HSTRLEN).
func (h *Hash) StrLen(field []byte) int {
	v, _ := h.Get(field)
	return len(v)
}

// Set sets field to value and reports whether the field is new (HSET).
func (h *Hash) Set(cfg Config, field, value []byte) bool {
	if h.t == nil && (len(field) > cfg.MaxListpackValue || len(value) > cfg.MaxListpackValue) {
		h.convert()
	}
	if h.t != nil {
		i, added := h.t.Insert(field, "")
		v := h.t.Value(i)
		h.vals += memsize.NoScan(len(value)) - memsize.NoScan(len(*v))
		*v = string(value)
		return added
	}
	if _, voff, vend := h.find(field); voff >= 0 {
		h.lp = lp.Replace(h.lp, voff, vend, value)
		return false
	}
	if len(h.lp) < hdr {
		h.lp = make([]byte, hdr, hdr+lp.EntrySize(len(field))+lp.EntrySize(len(value)))
	}
	h.lp = lp.Append(h.lp, field)
	h.lp = lp.Append(h.lp, value)
	n := h.Len() + 1
	h.setCount(n)
	if n > cfg.MaxListpackEntries {
		h.convert()
	}
	return true
}

// Delete removes field and reports whether it was present (HDEL).
func (h *Hash) Delete(field []byte) bool {
	if h.t != nil {
		i := h.t.Find(field)
		if i < 0 {
			return false
		}
		h.vals -= memsize.NoScan(len(*h.t.Value(i)))
		h.t.DeleteAt(i)
		return true
	}
	foff, _, vend := h.find(field)
	if foff < 0 {
		return false
	}
	h.lp = lp.Delete(h.lp, foff, vend)
	h.setCount(h.Len() - 1)
	return true
}

// convert moves the compact form into a table.
func (h *Hash) convert() {
	t := dict.New[string](h.Len())
	vals := 0
	h.Each(func(f, v []byte) bool {
		i, _ := t.Insert(f, "")
		*t.Value(i) = string(v)
		vals += memsize.NoScan(len(v))
		return true
	})
	h.t, h.lp, h.vals = t, nil, vals
}

// Each calls fn for every field and value until fn returns false. The
// slices must not be modified or kept past the next mutation.
func (h *Hash) Each(fn func(field, value []byte) bool) {
	if h.t != nil {
		for i := 0; i < h.t.Len(); i++ {
			if !fn(bytesOf(h.t.Key(i)), bytesOf(*h.t.Value(i))) {
				return
			}
		}
		return
	}
	for off := hdr; off < len(h.lp); {
		f, next := lp.Next(h.lp, off)
		v, vnext := lp.Next(h.lp, next)
		if !fn(f, v) {
			return
		}
		off = vnext
	}
}

// IncrBy adds delta to the integer in field (absent counts as 0) and
// returns the result (HINCRBY).
func (h *Hash) IncrBy(cfg Config, field []byte, delta int64) (int64, error) {
	var cur int64
	if v, ok := h.Get(field); ok {
		n, ok := num.ParseInt(v)
		if !ok {
			return 0, ErrNotInteger
		}
		cur = n
	}
	n, err := num.AddInt(cur, delta)
	if err != nil {
		return 0, ErrOverflow
	}
	var buf [num.MaxIntLen]byte
	h.Set(cfg, field, num.AppendInt(buf[:0], n))
	return n, nil
}

// IncrByFloat adds the increment incr (the command's raw argument) to
// the number in field (absent counts as 0), stores the result and appends
// its text to dst: HINCRBYFLOAT replies with that text and replicates it
// as an HSET. Arithmetic and format are Redis's long double ones (see
// types/num). Errors, in Redis's order: ErrNotValidFloat (incr does not
// parse), ErrIncrInf (incr is infinite), ErrNotFloat (the stored value
// does not parse), ErrNaN (the sum is infinite).
func (h *Hash) IncrByFloat(cfg Config, dst []byte, field, incr []byte) ([]byte, error) {
	d, ok := num.ParseLongDouble(incr)
	if !ok {
		return dst, ErrNotValidFloat
	}
	if d.IsInf() {
		return dst, ErrIncrInf
	}
	cur := num.LongDoubleFromInt(0)
	if v, ok := h.Get(field); ok {
		if cur, ok = num.ParseLongDouble(v); !ok {
			return dst, ErrNotFloat
		}
	}
	r, ok := num.AddLongDouble(cur, d)
	if !ok {
		return dst, ErrNaN
	}
	start := len(dst)
	dst = num.AppendLongDoubleHuman(dst, r)
	h.Set(cfg, field, dst[start:])
	return dst, nil
}

// eachIndex calls fn for the fields at the given ascending positions of
// the hash's order, until fn returns false.
func (h *Hash) eachIndex(idx []int, fn func(field, value []byte) bool) {
	if h.t != nil {
		for _, i := range idx {
			if !fn(bytesOf(h.t.Key(i)), bytesOf(*h.t.Value(i))) {
				return
			}
		}
		return
	}
	// idx is sorted: one walk.
	k, pos := 0, 0
	for off := hdr; off < len(h.lp) && k < len(idx); pos++ {
		f, next := lp.Next(h.lp, off)
		v, vnext := lp.Next(h.lp, next)
		for k < len(idx) && idx[k] == pos {
			if !fn(f, v) {
				return
			}
			k++
		}
		off = vnext
	}
}

// Random calls fn for random fields as HRANDFIELD count defines them:
// count > 0 gives min(count, Len) distinct fields (all of them, in order,
// when count >= Len); count < 0 gives -count fields that may repeat. fn
// returns false to stop early (a reply that has grown too large).
func (h *Hash) Random(src rand.Source, count int, fn func(field, value []byte) bool) {
	n := h.Len()
	if n == 0 || count == 0 {
		return
	}
	if count > 0 {
		if count >= n {
			h.Each(fn)
			return
		}
		h.eachIndex(pick.Distinct(nil, src, n, count), fn)
		return
	}
	// count < 0: draw and emit one field at a time, so that memory does
	// not grow with the count.
	if h.t != nil {
		for i := count; i < 0; i++ {
			j := pick.Intn(src, n)
			if !fn(bytesOf(h.t.Key(j)), bytesOf(*h.t.Value(j))) {
				return
			}
		}
		return
	}
	offs := make([]int, 0, n)
	for off := hdr; off < len(h.lp); {
		offs = append(offs, off)
		_, next := lp.Next(h.lp, off)
		_, off = lp.Next(h.lp, next)
	}
	for i := count; i < 0; i++ {
		f, next := lp.Next(h.lp, offs[pick.Intn(src, n)])
		v, _ := lp.Next(h.lp, next)
		if !fn(f, v) {
			return
		}
	}
}

// Scan visits fields from cursor as HSCAN does: the compact form returns
// everything at once with cursor 0; the table visits buckets until at
// least count fields were seen or count*10 buckets were walked, and
// returns the next cursor (0 when done).
func (h *Hash) Scan(cursor uint64, count int, fn func(field, value []byte)) uint64 {
	if h.t == nil {
		h.Each(func(f, v []byte) bool { fn(f, v); return true })
		return 0
	}
	if count < 1 {
		count = 1
	}
	seen, steps := 0, count*10
	for {
		cursor = h.t.Scan(cursor, func(i int) {
			fn(bytesOf(h.t.Key(i)), bytesOf(*h.t.Value(i)))
			seen++
		})
		steps--
		if cursor == 0 || seen >= count || steps == 0 {
			return cursor
		}
	}
}

// MemoryUsage returns the heap bytes held by the hash, its own header
// (unsafe.Sizeof(Hash{})) included, each allocation rounded to Go's size
// classes.
func (h *Hash) MemoryUsage() int {
	n := int(unsafe.Sizeof(*h))
	if h.t == nil {
		return n + memsize.NoScan(cap(h.lp))
	}
	return n + h.t.MemoryUsage() + h.vals
}

// Clone returns an independent copy of h (for COPY and snapshots).
func (h *Hash) Clone() Hash {
	if h.t == nil {
		return Hash{lp: append([]byte(nil), h.lp...)}
	}
	t := dict.New[string](h.t.Len())
	for i := 0; i < h.t.Len(); i++ {
		j, _ := t.Insert(bytesOf(h.t.Key(i)), "")
		*t.Value(j) = *h.t.Value(i) // strings are immutable: share them
	}
	return Hash{t: t, vals: h.vals}
}

// Shrink reallocates the compact form to its length (rounded to Go's
// size class), dropping the slack growth left; call it after building a
// value in bulk. The large form is left alone.
func (h *Hash) Shrink() {
	if h.t == nil && cap(h.lp) > len(h.lp) {
		h.lp = append([]byte(nil), h.lp...)
	}
}

// MarshalBinary encodes h in the version 1 format of the package comment.
func (h *Hash) MarshalBinary() ([]byte, error) { return h.AppendBinary(nil) }

// AppendBinary appends h's encoding to dst.
func (h *Hash) AppendBinary(dst []byte) ([]byte, error) {
	dst = append(dst, encodingVersion)
	if h.t == nil {
		dst = append(dst, 0)
		if len(h.lp) < hdr {
			return append(dst, 0, 0, 0, 0), nil
		}
		return append(dst, h.lp...), nil
	}
	dst = append(dst, 1)
	dst = binary.AppendUvarint(dst, uint64(h.t.Len()))
	for i := 0; i < h.t.Len(); i++ {
		k, v := h.t.Key(i), *h.t.Value(i)
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
	}
	return dst, nil
}

// Unmarshal decodes a hash written by MarshalBinary into the form cfg
// calls for. It copies what it keeps.
func Unmarshal(cfg Config, b []byte) (Hash, error) {
	if len(b) < 2 || b[0] != encodingVersion {
		return Hash{}, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	var h Hash
	switch b[1] {
	case 0:
		body := b[2:]
		if len(body) < hdr {
			return Hash{}, fmt.Errorf("%w: short compact form", ErrCorrupt)
		}
		n, ok := lp.Check(body[hdr:])
		if !ok || n%2 != 0 || n/2 != int(binary.LittleEndian.Uint32(body)) {
			return Hash{}, fmt.Errorf("%w: compact entries", ErrCorrupt)
		}
		h.lp = append([]byte(nil), body...)
		seen := make(map[string]struct{}, n/2)
		big := false
		h.Each(func(f, v []byte) bool {
			seen[string(f)] = struct{}{}
			big = big || len(f) > cfg.MaxListpackValue || len(v) > cfg.MaxListpackValue
			return true
		})
		if len(seen) != n/2 {
			return Hash{}, fmt.Errorf("%w: duplicate field", ErrCorrupt)
		}
		if big || n/2 > cfg.MaxListpackEntries {
			h.convert()
		}
		if n == 0 {
			h.lp = nil
		}
		return h, nil
	case 1:
		r := b[2:]
		cnt, k := binary.Uvarint(r)
		if k <= 0 || cnt > uint64(len(r)) {
			return Hash{}, fmt.Errorf("%w: field count", ErrCorrupt)
		}
		r = r[k:]
		next := func() ([]byte, bool) {
			l, k := binary.Uvarint(r)
			if k <= 0 || l > uint64(len(r)-k) {
				return nil, false
			}
			s := r[k : k+int(l)]
			r = r[k+int(l):]
			return s, true
		}
		for i := uint64(0); i < cnt; i++ {
			f, ok1 := next()
			v, ok2 := next()
			if !ok1 || !ok2 {
				return Hash{}, fmt.Errorf("%w: field %d", ErrCorrupt, i)
			}
			if !h.Set(cfg, f, v) {
				return Hash{}, fmt.Errorf("%w: duplicate field", ErrCorrupt)
			}
		}
		if len(r) != 0 {
			return Hash{}, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
		}
		return h, nil
	}
	return Hash{}, fmt.Errorf("%w: unknown form %d", ErrCorrupt, b[1])
}
