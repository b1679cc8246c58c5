package keyspace

import (
	"cmp"
	"slices"

	"github.com/ruvio/ruvio/persistence"
)

// The lease and semaphore values: their wrappers, holders, snapshot forms
// and WAL encoders. The commands are in commands/keyjobs_lease.go.

// LeaseObj is the value of a lease key. Token is the last token granted;
// it counts up from 1 for as long as the key exists, across expiry of the
// hold and RELEASE, so it works as a fencing token. Until is the deadline
// of the current hold (absolute ms), 0 when nobody holds the lease. The
// key itself has no deadline of its own unless a client sets one.
type LeaseObj struct {
	Token int64 // the last token granted
	Until int64 // the current hold's deadline (unix ms), 0: not held
}

// TypeName is the TYPE reply.
func (l *LeaseObj) TypeName() string { return "lease" }

// Encoding is OBJECT ENCODING: the type has one encoding.
func (l *LeaseObj) Encoding() string { return "lease" }

// Clone returns a copy, for COPY.
func (l *LeaseObj) Clone() any              { c := *l; return &c }
func (l *LeaseObj) memoryUsage(int64) int64 { return 16 }

// SnapshotKind is KindLease.
func (l *LeaseObj) SnapshotKind() uint8 { return KindLease }

// AppendSnapshot encodes the token u64 then the deadline i64.
func (l *LeaseObj) AppendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(l.Token))
	return persistence.AppendI64(dst, l.Until)
}

// SemHolder is one semaphore holder: 16 bytes.
type SemHolder struct {
	Token int64 // the token granted to the holder
	Until int64 // the hold's deadline (unix ms); 0: no holder, negative: a tombstone
}

// SemIndexAt is the number of further holders from which a semaphore
// indexes them (semIndex). Below it every operation is a scan of at most
// that many holders, and the slice is exact.
const SemIndexAt = 256

// SemObj is the value of a semaphore key. The first holder lives in the
// object; every further holder takes 16 bytes in More, in token order.
// Up to SemIndexAt further holders More is always exactly as long as it
// needs to be. From there on copying it for every grant would make a
// grant cost time linear in the holders, so More grows by a quarter at a
// time instead, released and expired holders stay in it as tombstones
// until they are half of it, and Idx finds the earliest and the latest
// deadline: a grant or a release costs O(log n) amortised.
//
// Last is the last token granted; the first token of a key is the clock
// (unix ns) when the key is created, so a token from an earlier
// incarnation of the key never matches a later holder. Every grant and
// every release sets the key's deadline to the latest live holder
// deadline (even on a key whose deadline a client removed or moved), so
// the key goes away with its last holder even when nobody touches it.
type SemObj struct {
	Last  int64       // the last token granted
	First SemHolder   // Until == 0: no holder
	More  []SemHolder // the further holders, in token order
	Idx   *semIndex   // nil below SemIndexAt further holders
}

// semIndex indexes the further holders of a large semaphore. A tombstone
// in More keeps its token (More stays sorted for the binary search) and
// the negated deadline, so the heaps, ordered by |until|, stay valid.
type semIndex struct {
	dead int     // tombstones in more
	Soon []int32 // min-heap of positions in more by deadline
	Late []int32 // max-heap of positions in more by deadline
}

// TypeName is the TYPE reply.
func (s *SemObj) TypeName() string { return "semaphore" }

// Encoding is OBJECT ENCODING: the type has one encoding.
func (s *SemObj) Encoding() string { return "semaphore" }

// Clone returns a deep copy without tombstones, for COPY.
func (s *SemObj) Clone() any {
	c := *s
	c.setMore(s.First, s.liveMore(nil))
	return &c
}
func (s *SemObj) memoryUsage(int64) int64 {
	n := 56 + 16*int64(cap(s.More))
	if x := s.Idx; x != nil {
		n += 56 + 4*int64(cap(x.Soon)+cap(x.Late))
	}
	return n
}

// SnapshotKind is KindSemaphore.
func (s *SemObj) SnapshotKind() uint8 { return KindSemaphore }

// AppendSnapshot encodes last u64, holder count u64, then token u64 and
// deadline i64 per holder.
func (s *SemObj) AppendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(s.Last))
	dst = persistence.AppendU64(dst, uint64(s.Count()))
	if s.First.Until != 0 {
		dst = persistence.AppendU64(dst, uint64(s.First.Token))
		dst = persistence.AppendI64(dst, s.First.Until)
	}
	for _, h := range s.More {
		if h.Until > 0 {
			dst = persistence.AppendU64(dst, uint64(h.Token))
			dst = persistence.AppendI64(dst, h.Until)
		}
	}
	return dst
}

// Count is the number of holders, expired ones not yet pruned included.
func (s *SemObj) Count() int {
	n := len(s.More)
	if s.Idx != nil {
		n -= s.Idx.dead
	}
	if s.First.Until != 0 {
		n++
	}
	return n
}

// liveMore appends the further holders, without tombstones, to dst.
func (s *SemObj) liveMore(dst []SemHolder) []SemHolder {
	for _, h := range s.More {
		if h.Until > 0 {
			dst = append(dst, h)
		}
	}
	return dst
}

// SetHolders replaces the holders with hs (which it does not keep), the
// first of them in the object.
func (s *SemObj) SetHolders(hs []SemHolder) {
	var first SemHolder
	if len(hs) > 0 {
		first, hs = hs[0], hs[1:]
	}
	s.setMore(first, hs)
}

// setMore replaces the holders with first (until 0: none) and more (which
// it does not keep).
func (s *SemObj) setMore(first SemHolder, more []SemHolder) {
	s.First, s.More, s.Idx = first, nil, nil
	if len(more) == 0 {
		return
	}
	s.More = append(make([]SemHolder, 0, len(more)), more...)
	if !slices.IsSortedFunc(s.More, cmpSemToken) {
		slices.SortFunc(s.More, cmpSemToken)
	}
	if len(s.More) >= SemIndexAt {
		s.index()
	}
}

func cmpSemToken(a, b SemHolder) int { return cmp.Compare(a.Token, b.Token) }

// index builds idx over more, which holds no tombstone.
func (s *SemObj) index() {
	x := &semIndex{Soon: make([]int32, len(s.More)), Late: make([]int32, len(s.More))}
	for i := range s.More {
		x.Soon[i], x.Late[i] = int32(i), int32(i)
	}
	s.Idx = x
	for i := len(s.More)/2 - 1; i >= 0; i-- {
		s.Down(x.Soon, i, false)
		s.Down(x.Late, i, true)
	}
}

// deadline is the deadline of more[i], tombstone or not.
func (s *SemObj) deadline(i int32) int64 {
	if u := s.More[i].Until; u < 0 {
		return -u
	}
	return s.More[i].Until
}

// before orders heap positions: earlier deadline first, or later with
// late.
func (s *SemObj) before(a, b int32, late bool) bool {
	if late {
		return s.deadline(a) > s.deadline(b)
	}
	return s.deadline(a) < s.deadline(b)
}

func (s *SemObj) up(h []int32, i int, late bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.before(h[i], h[p], late) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// Down moves the position at h[i] down the heap h to its place: h is
// Idx.Soon, or Idx.Late when late is set.
func (s *SemObj) Down(h []int32, i int, late bool) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && s.before(h[c+1], h[c], late) {
			c++
		}
		if !s.before(h[c], h[i], late) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Add adds a holder: exactly one element more below SemIndexAt further
// holders, amortised O(log n) from there on.
func (s *SemObj) Add(h SemHolder) {
	if s.First.Until == 0 {
		s.First = h
		return
	}
	n := len(s.More)
	if n > 0 && h.Token < s.More[n-1].Token {
		// Out of token order (a replayed log never does this): rebuild.
		s.setMore(s.First, append(s.liveMore(nil), h))
		return
	}
	x := s.Idx
	if x == nil {
		m := make([]SemHolder, n+1)
		copy(m, s.More)
		m[n] = h
		s.More = m
		if n+1 >= SemIndexAt {
			s.index()
		}
		return
	}
	if n == cap(s.More) {
		m := make([]SemHolder, n, n+n/4)
		copy(m, s.More)
		s.More = m
	}
	s.More = append(s.More, h)
	x.Soon = append(x.Soon, int32(n))
	s.up(x.Soon, len(x.Soon)-1, false)
	x.Late = append(x.Late, int32(n))
	s.up(x.Late, len(x.Late)-1, true)
}

// Remove drops the holder with token; false when there is none.
func (s *SemObj) Remove(token int64) bool {
	if s.First.Until != 0 && s.First.Token == token {
		if s.Idx != nil {
			s.First = SemHolder{}
			s.Settle()
		} else if n := len(s.More); n > 0 {
			s.First = s.More[n-1]
			s.More = exactHolders(s.More[:n-1])
		} else {
			s.First = SemHolder{}
		}
		return true
	}
	i, found := slices.BinarySearchFunc(s.More, token, func(h SemHolder, t int64) int { return cmp.Compare(h.Token, t) })
	if !found || s.More[i].Until <= 0 {
		return false
	}
	if s.Idx != nil {
		s.Bury(i)
		s.Settle()
		return true
	}
	m := make([]SemHolder, 0, len(s.More)-1)
	m = append(m, s.More[:i]...)
	s.More = exactHolders(append(m, s.More[i+1:]...))
	return true
}

// Bury makes more[i] a tombstone.
func (s *SemObj) Bury(i int) {
	s.More[i].Until = -s.More[i].Until
	s.Idx.dead++
}

// Settle compacts more once tombstones are half of it, back to an exact
// slice without index when the holders left are few.
func (s *SemObj) Settle() {
	x := s.Idx
	if x.dead == 0 || x.dead < len(s.More)/2 {
		return
	}
	live := make([]SemHolder, 0, len(s.More)-x.dead)
	for _, h := range s.More {
		if h.Until > 0 {
			live = append(live, h)
		}
	}
	s.Idx = nil
	s.More = exactHolders(live)
	if len(live) >= SemIndexAt/2 {
		s.index()
	}
}

// exactHolders returns hs in a slice of exactly its length (nil if empty).
func exactHolders(hs []SemHolder) []SemHolder {
	if len(hs) == 0 {
		return nil
	}
	if cap(hs) == len(hs) {
		return hs
	}
	return append(make([]SemHolder, 0, len(hs)), hs...)
}
