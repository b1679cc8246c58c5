// Package set is the Redis set in three forms, as Redis 7.0 (and 7.2 for
// the middle one) stores it:
//
//   - intset: all members are canonical integers (string2ll) and there are
//     at most MaxIntsetEntries of them (set-max-intset-entries); a sorted
//     array of 2-, 4- or 8-byte integers;
//   - listpack: at most MaxListpackEntries members of at most
//     MaxListpackValue bytes (set-max-listpack-entries, a Redis 7.2
//     setting; 0, the default here, disables the form as Redis 7.0 has
//     no such encoding);
//   - hashtable: types/internal/dict, with SCAN's reverse-binary cursor and
//     O(1) uniform random members.
//
// A set only moves forward through these forms. The first two are one
// pointer-free []byte the keyspace can store inline (Compact/FromCompact):
//
//	intset:   byte width (2, 4 or 8) | members, little-endian, ascending
//	listpack: byte 0x10 | uint32 LE count | entries (types/internal/lp)
//
// # Binary encoding (version 1)
//
//	byte 1 (version)
//	byte 0 = compact: the compact bytes above follow verbatim
//	byte 1 = table:   uvarint count, then per member uvarint len, bytes
//
// Unmarshal validates and rebuilds the form its Config calls for.
package set

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
	MaxIntsetEntries   int // set-max-intset-entries
	MaxListpackEntries int // set-max-listpack-entries (0: no listpack form, as Redis 7.0)
	MaxListpackValue   int // set-max-listpack-value
}

// DefaultConfig is Redis 7.0's behaviour: intset up to 512 members, then
// hashtable.
var DefaultConfig = Config{MaxIntsetEntries: 512, MaxListpackEntries: 0, MaxListpackValue: 64}

// ErrCorrupt is returned by Unmarshal for input that is not a set.
var ErrCorrupt = errors.New("set: corrupt encoding")

const (
	kindListpack    = 0x10
	lpHdr           = 5 // kind + count
	encodingVersion = 1
)

// Set is a Redis set. The zero value is empty.
type Set struct {
	b []byte // intset or listpack form; nil when empty or when t is set
	t *dict.Dict[struct{}]
}

// FromCompact wraps bytes returned by Compact without copying.
func FromCompact(b []byte) Set { return Set{b: b} }

// PrefetchBucket, PrefetchEntry and PrefetchKey read ahead of a lookup
// of member in the large form (dict.Table.PrefetchBucket); the compact
// forms have nothing to read.
func (s *Set) PrefetchBucket(member []byte) uint32 {
	if s.t == nil {
		return 0
	}
	return s.t.PrefetchBucket(member)
}

// PrefetchEntry is the second step of the read ahead; see PrefetchBucket.
func (s *Set) PrefetchEntry(h uint32) int32 {
	if s.t == nil {
		return -1
	}
	return s.t.PrefetchEntry(h)
}

// PrefetchKey is the third step of the read ahead; see PrefetchBucket.
func (s *Set) PrefetchKey(i int32) {
	if s.t != nil {
		s.t.PrefetchKey(i)
	}
}

// Compact returns the intset or listpack bytes, or nil for a table.
func (s *Set) Compact() []byte {
	if s.t != nil {
		return nil
	}
	return s.b
}

func (s *Set) isIntset() bool { return s.t == nil && len(s.b) > 0 && s.b[0] != kindListpack }

// Encoding returns the name OBJECT ENCODING reports.
func (s *Set) Encoding() string {
	switch {
	case s.t != nil:
		return "hashtable"
	case len(s.b) > 0 && s.b[0] == kindListpack:
		return "listpack"
	}
	return "intset"
}

// Len returns the number of members (SCARD).
func (s *Set) Len() int {
	switch {
	case s.t != nil:
		return s.t.Len()
	case len(s.b) == 0:
		return 0
	case s.b[0] == kindListpack:
		return int(binary.LittleEndian.Uint32(s.b[1:]))
	}
	return (len(s.b) - 1) / int(s.b[0])
}

// --- intset ---

func (s *Set) intAt(i int) int64 {
	w := int(s.b[0])
	p := s.b[1+i*w:]
	switch w {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(p)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(p)))
	}
	return int64(binary.LittleEndian.Uint64(p))
}

func putInt(p []byte, w int, v int64) {
	switch w {
	case 2:
		binary.LittleEndian.PutUint16(p, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(p, uint32(v))
	default:
		binary.LittleEndian.PutUint64(p, uint64(v))
	}
}

func widthFor(v int64) int {
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 2
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 4
	}
	return 8
}

// intSearch returns the position of v or where it would go.
func (s *Set) intSearch(v int64) (int, bool) {
	n := s.Len()
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.intAt(m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n && s.intAt(lo) == v
}

func (s *Set) intInsert(v int64) bool {
	if len(s.b) == 0 {
		s.b = make([]byte, 1, 1+2*4)
		s.b[0] = 2
	}
	pos, found := s.intSearch(v)
	if found {
		return false
	}
	w, n := int(s.b[0]), s.Len()
	if nw := widthFor(v); nw > w {
		nb := make([]byte, 1+(n+1)*nw, 1+(n+1)*nw+n*nw/4)
		nb[0] = byte(nw)
		for i := 0; i < n; i++ {
			j := i
			if i >= pos {
				j++
			}
			putInt(nb[1+j*nw:], nw, s.intAt(i))
		}
		putInt(nb[1+pos*nw:], nw, v)
		s.b = nb
		return true
	}
	if cap(s.b)-len(s.b) < w {
		// Grow by a quarter: intsets are many and small.
		nb := make([]byte, len(s.b), len(s.b)+w+len(s.b)/4)
		copy(nb, s.b)
		s.b = nb
	}
	s.b = s.b[:len(s.b)+w]
	copy(s.b[1+(pos+1)*w:], s.b[1+pos*w:len(s.b)-w])
	putInt(s.b[1+pos*w:], w, v)
	return true
}

func (s *Set) intRemoveAt(pos int) {
	w := int(s.b[0])
	copy(s.b[1+pos*w:], s.b[1+(pos+1)*w:])
	s.b = s.b[:len(s.b)-w]
}

// --- listpack ---

func (s *Set) lpFind(m []byte) (int, int) {
	for off := lpHdr; off < len(s.b); {
		e, next := lp.Next(s.b, off)
		if bytes.Equal(e, m) {
			return off, next
		}
		off = next
	}
	return -1, -1
}

func (s *Set) lpSetCount(n int) { binary.LittleEndian.PutUint32(s.b[1:], uint32(n)) }

// --- conversions ---

func (s *Set) toTable() {
	t := dict.New[struct{}](s.Len())
	s.Each(func(m []byte) bool { t.Insert(m, struct{}{}); return true })
	s.t, s.b = t, nil
}

func (s *Set) toListpack() {
	n := s.Len()
	nb := make([]byte, lpHdr, lpHdr+n*8)
	nb[0] = kindListpack
	s.Each(func(m []byte) bool { nb = lp.Append(nb, m); return true })
	binary.LittleEndian.PutUint32(nb[1:], uint32(n))
	s.b = nb
}

// fitsListpack reports whether the set with n members plus extra could
// be a listpack.
func (s *Set) fitsListpack(cfg Config, n int, extra []byte) bool {
	if n > cfg.MaxListpackEntries || len(extra) > cfg.MaxListpackValue {
		return false
	}
	ok := true
	s.Each(func(m []byte) bool { ok = len(m) <= cfg.MaxListpackValue; return ok })
	return ok
}

// Add inserts m and reports whether it was new (SADD).
func (s *Set) Add(cfg Config, m []byte) bool {
	if s.t != nil {
		_, added := s.t.Insert(m, struct{}{})
		return added
	}
	if len(s.b) == 0 || s.isIntset() {
		if v, ok := num.ParseInt(m); ok {
			if !s.intInsert(v) {
				return false
			}
			if n := s.Len(); n > cfg.MaxIntsetEntries {
				if s.fitsListpack(cfg, n, nil) {
					s.toListpack()
				} else {
					s.toTable()
				}
			}
			return true
		}
		if s.Len() == 0 {
			s.b = nil
			if cfg.MaxListpackEntries > 0 && len(m) <= cfg.MaxListpackValue {
				s.b = append(make([]byte, 0, lpHdr+lp.EntrySize(len(m))), kindListpack, 0, 0, 0, 0)
			} else {
				s.t = dict.New[struct{}](1)
				s.t.Insert(m, struct{}{})
				return true
			}
		} else if s.fitsListpack(cfg, s.Len()+1, m) {
			s.toListpack()
		} else {
			s.toTable()
			s.t.Insert(m, struct{}{})
			return true
		}
	}
	// listpack
	if off, _ := s.lpFind(m); off >= 0 {
		return false
	}
	n := s.Len() + 1
	if n > cfg.MaxListpackEntries || len(m) > cfg.MaxListpackValue {
		s.toTable()
		s.t.Insert(m, struct{}{})
		return true
	}
	s.b = lp.Append(s.b, m)
	s.lpSetCount(n)
	return true
}

// Remove deletes m and reports whether it was present (SREM).
func (s *Set) Remove(m []byte) bool {
	switch {
	case s.t != nil:
		return s.t.Delete(m)
	case len(s.b) == 0:
		return false
	case s.b[0] == kindListpack:
		off, end := s.lpFind(m)
		if off < 0 {
			return false
		}
		s.b = lp.Delete(s.b, off, end)
		s.lpSetCount(s.Len() - 1)
		return true
	}
	v, ok := num.ParseInt(m)
	if !ok {
		return false
	}
	pos, found := s.intSearch(v)
	if found {
		s.intRemoveAt(pos)
	}
	return found
}

// Contains reports whether m is a member (SISMEMBER).
func (s *Set) Contains(m []byte) bool {
	switch {
	case s.t != nil:
		return s.t.Find(m) >= 0
	case len(s.b) == 0:
		return false
	case s.b[0] == kindListpack:
		off, _ := s.lpFind(m)
		return off >= 0
	}
	v, ok := num.ParseInt(m)
	if !ok {
		return false
	}
	_, found := s.intSearch(v)
	return found
}

func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Each calls fn for every member until fn returns false. The slice is
// valid only during the call and must not be modified; an intset member
// is formatted into a scratch buffer.
func (s *Set) Each(fn func(m []byte) bool) {
	switch {
	case s.t != nil:
		for i := 0; i < s.t.Len(); i++ {
			if !fn(bytesOf(s.t.Key(i))) {
				return
			}
		}
	case len(s.b) == 0:
	case s.b[0] == kindListpack:
		for off := lpHdr; off < len(s.b); {
			e, next := lp.Next(s.b, off)
			if !fn(e) {
				return
			}
			off = next
		}
	default:
		var buf [num.MaxIntLen]byte
		for i, n := 0, s.Len(); i < n; i++ {
			if !fn(num.AppendInt(buf[:0], s.intAt(i))) {
				return
			}
		}
	}
}

// eachIndex calls fn for the members at the given ascending positions of
// the set's order (positions may repeat).
func (s *Set) eachIndex(idx []int, fn func(m []byte) bool) {
	switch {
	case s.t != nil:
		for _, i := range idx {
			if !fn(bytesOf(s.t.Key(i))) {
				return
			}
		}
	case len(s.b) == 0:
	case s.b[0] == kindListpack:
		k, pos := 0, 0
		for off := lpHdr; off < len(s.b) && k < len(idx); pos++ {
			e, next := lp.Next(s.b, off)
			for k < len(idx) && idx[k] == pos {
				if !fn(e) {
					return
				}
				k++
			}
			off = next
		}
	default:
		var buf [num.MaxIntLen]byte
		for _, i := range idx {
			if !fn(num.AppendInt(buf[:0], s.intAt(i))) {
				return
			}
		}
	}
}

// Random calls fn for random members as SRANDMEMBER count defines them:
// count > 0 gives min(count, Len) distinct members (the whole set when
// count >= Len); count < 0 gives -count members that may repeat, in draw
// order. fn returns false to stop early (a reply that has grown too
// large). Slices are valid only during the call.
func (s *Set) Random(src rand.Source, count int, fn func(m []byte) bool) {
	n := s.Len()
	if n == 0 || count == 0 {
		return
	}
	if count > 0 {
		if count >= n {
			s.Each(fn)
			return
		}
		s.eachIndex(pick.Distinct(nil, src, n, count), fn)
		return
	}
	// count < 0: draw and emit one member at a time, so that memory does
	// not grow with the count.
	switch {
	case s.t != nil:
		for i := count; i < 0; i++ {
			if !fn(bytesOf(s.t.Key(pick.Intn(src, n)))) {
				return
			}
		}
	case s.isIntset():
		var buf [num.MaxIntLen]byte
		for i := count; i < 0; i++ {
			if !fn(num.AppendInt(buf[:0], s.intAt(pick.Intn(src, n)))) {
				return
			}
		}
	default:
		offs := make([]int, 0, n)
		for off := lpHdr; off < len(s.b); {
			offs = append(offs, off)
			_, off = lp.Next(s.b, off)
		}
		for i := count; i < 0; i++ {
			e, _ := lp.Next(s.b, offs[pick.Intn(src, n)])
			if !fn(e) {
				return
			}
		}
	}
}

// Pop removes count distinct random members and calls fn for each (SPOP
// count); count >= Len empties the set. The slices stay valid after Pop
// returns (they are copies or detached storage).
func (s *Set) Pop(src rand.Source, count int, fn func(m []byte)) {
	n := s.Len()
	if n == 0 || count <= 0 {
		return
	}
	if count >= n {
		old := *s
		*s = Set{}
		old.Each(func(m []byte) bool { fn(bytes.Clone(m)); return true })
		return
	}
	var popped [][]byte
	s.eachIndex(pick.Distinct(nil, src, n, count), func(m []byte) bool { popped = append(popped, bytes.Clone(m)); return true })
	for _, m := range popped {
		s.Remove(m)
		fn(m)
	}
}

// Scan visits members from cursor as SSCAN does: the compact forms
// return everything with cursor 0; the table visits buckets until count
// members were seen or count*10 buckets were walked and returns the next
// cursor (0 when done).
func (s *Set) Scan(cursor uint64, count int, fn func(m []byte)) uint64 {
	if s.t == nil {
		s.Each(func(m []byte) bool { fn(m); return true })
		return 0
	}
	if count < 1 {
		count = 1
	}
	seen, steps := 0, count*10
	for {
		cursor = s.t.Scan(cursor, func(i int) { fn(bytesOf(s.t.Key(i))); seen++ })
		steps--
		if cursor == 0 || seen >= count || steps == 0 {
			return cursor
		}
	}
}

// MemoryUsage returns the heap bytes held by the set, its own header
// included, each allocation rounded to Go's size classes.
func (s *Set) MemoryUsage() int {
	n := int(unsafe.Sizeof(*s))
	if s.t != nil {
		return n + s.t.MemoryUsage()
	}
	return n + memsize.NoScan(cap(s.b))
}

// Clone returns an independent copy of s (for COPY and snapshots).
func (s *Set) Clone() Set {
	if s.t == nil {
		return Set{b: append([]byte(nil), s.b...)}
	}
	t := dict.New[struct{}](s.t.Len())
	for i := 0; i < s.t.Len(); i++ {
		t.Insert(bytesOf(s.t.Key(i)), struct{}{})
	}
	return Set{t: t}
}

// Shrink reallocates the compact form to its length (rounded to Go's
// size class), dropping the slack growth left; call it after building a
// value in bulk. The large form is left alone.
func (s *Set) Shrink() {
	if s.t == nil && cap(s.b) > len(s.b) {
		s.b = append([]byte(nil), s.b...)
	}
}

// MarshalBinary encodes s in the version 1 format of the package comment.
func (s *Set) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// AppendBinary appends s's encoding to dst.
func (s *Set) AppendBinary(dst []byte) ([]byte, error) {
	dst = append(dst, encodingVersion)
	if s.t == nil {
		dst = append(dst, 0)
		return append(dst, s.b...), nil
	}
	dst = append(dst, 1)
	dst = binary.AppendUvarint(dst, uint64(s.t.Len()))
	for i := 0; i < s.t.Len(); i++ {
		k := s.t.Key(i)
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
	}
	return dst, nil
}

// Unmarshal decodes a set written by MarshalBinary into the form cfg
// calls for.
func Unmarshal(cfg Config, b []byte) (Set, error) {
	if len(b) < 2 || b[0] != encodingVersion {
		return Set{}, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	var members [][]byte
	switch b[1] {
	case 0:
		c := FromCompact(b[2:])
		if err := c.validCompact(); err != nil {
			return Set{}, err
		}
		c.Each(func(m []byte) bool { members = append(members, bytes.Clone(m)); return true })
	case 1:
		r := b[2:]
		cnt, k := binary.Uvarint(r)
		if k <= 0 || cnt > uint64(len(r)) {
			return Set{}, fmt.Errorf("%w: member count", ErrCorrupt)
		}
		r = r[k:]
		for i := uint64(0); i < cnt; i++ {
			l, k := binary.Uvarint(r)
			if k <= 0 || l > uint64(len(r)-k) {
				return Set{}, fmt.Errorf("%w: member %d", ErrCorrupt, i)
			}
			members = append(members, r[k:k+int(l)])
			r = r[k+int(l):]
		}
		if len(r) != 0 {
			return Set{}, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
		}
	default:
		return Set{}, fmt.Errorf("%w: unknown form %d", ErrCorrupt, b[1])
	}
	var s Set
	for _, m := range members {
		if !s.Add(cfg, m) {
			return Set{}, fmt.Errorf("%w: duplicate member", ErrCorrupt)
		}
	}
	return s, nil
}

func (s *Set) validCompact() error {
	if len(s.b) == 0 {
		return nil
	}
	switch w := int(s.b[0]); w {
	case 2, 4, 8:
		if (len(s.b)-1)%w != 0 {
			return fmt.Errorf("%w: intset length", ErrCorrupt)
		}
		for i := 1; i < s.Len(); i++ {
			if s.intAt(i-1) >= s.intAt(i) {
				return fmt.Errorf("%w: intset order", ErrCorrupt)
			}
		}
		return nil
	case kindListpack:
		if len(s.b) < lpHdr {
			return fmt.Errorf("%w: short listpack", ErrCorrupt)
		}
		n, ok := lp.Check(s.b[lpHdr:])
		if !ok || n != s.Len() {
			return fmt.Errorf("%w: listpack entries", ErrCorrupt)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown compact kind %d", ErrCorrupt, s.b[0])
}
