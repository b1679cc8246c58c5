package keyspace

import (
	"cmp"
	"math"
	"slices"

	"github.com/ruvio/ruvio/persistence"
)

// leaseObj is the value of a lease key. token is the last token granted;
// it counts up from 1 for as long as the key exists, across expiry of the
// hold and RELEASE, so it works as a fencing token. until is the deadline
// of the current hold (absolute ms), 0 when nobody holds the lease. The
// key itself has no deadline of its own unless a client sets one.
type leaseObj struct {
	token int64
	until int64
}

func (l *leaseObj) typeName() string        { return "lease" }
func (l *leaseObj) encoding() string        { return "lease" }
func (l *leaseObj) clone() any              { c := *l; return &c }
func (l *leaseObj) memoryUsage(int64) int64 { return 16 }
func (l *leaseObj) snapshotKind() uint8     { return kindLease }
func (l *leaseObj) held(now int64) bool     { return l.until > now }
func (l *leaseObj) appendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(l.token))
	return persistence.AppendI64(dst, l.until)
}

// semHolder is one semaphore holder: 16 bytes.
type semHolder struct {
	token int64
	until int64
}

// semIndexAt is the number of further holders from which a semaphore
// indexes them (semIndex). Below it every operation is a scan of at most
// that many holders, and the slice is exact.
const semIndexAt = 256

// semObj is the value of a semaphore key. The first holder lives in the
// object; every further holder takes 16 bytes in more, in token order.
// Up to semIndexAt further holders more is always exactly as long as it
// needs to be. From there on copying it for every grant would make a
// grant cost time linear in the holders, so more grows by a quarter at a
// time instead, released and expired holders stay in it as tombstones
// until they are half of it, and idx finds the earliest and the latest
// deadline: a grant or a release costs O(log n) amortised.
//
// last is the last token granted; the first token of a key is the clock
// (unix ns) when the key is created, so a token from an earlier
// incarnation of the key never matches a later holder. Every grant and
// every release sets the key's deadline to the latest live holder
// deadline (even on a key whose deadline a client removed or moved), so
// the key goes away with its last holder even when nobody touches it.
type semObj struct {
	last  int64
	first semHolder // until == 0: no holder
	more  []semHolder
	idx   *semIndex // nil below semIndexAt further holders
}

// semIndex indexes the further holders of a large semaphore. A tombstone
// in more keeps its token (more stays sorted for the binary search) and
// the negated deadline, so the heaps, ordered by |until|, stay valid.
type semIndex struct {
	dead int     // tombstones in more
	soon []int32 // min-heap of positions in more by deadline
	late []int32 // max-heap of positions in more by deadline
}

func (s *semObj) typeName() string { return "semaphore" }
func (s *semObj) encoding() string { return "semaphore" }
func (s *semObj) clone() any {
	c := *s
	c.setMore(s.first, s.liveMore(nil))
	return &c
}
func (s *semObj) memoryUsage(int64) int64 {
	n := 56 + 16*int64(cap(s.more))
	if x := s.idx; x != nil {
		n += 56 + 4*int64(cap(x.soon)+cap(x.late))
	}
	return n
}
func (s *semObj) snapshotKind() uint8 { return kindSemaphore }

// appendSnapshot encodes last u64, holder count u64, then token u64 and
// deadline i64 per holder.
func (s *semObj) appendSnapshot(dst []byte) []byte {
	dst = persistence.AppendU64(dst, uint64(s.last))
	dst = persistence.AppendU64(dst, uint64(s.count()))
	if s.first.until != 0 {
		dst = persistence.AppendU64(dst, uint64(s.first.token))
		dst = persistence.AppendI64(dst, s.first.until)
	}
	for _, h := range s.more {
		if h.until > 0 {
			dst = persistence.AppendU64(dst, uint64(h.token))
			dst = persistence.AppendI64(dst, h.until)
		}
	}
	return dst
}

// count is the number of holders, expired ones not yet pruned included.
func (s *semObj) count() int {
	n := len(s.more)
	if s.idx != nil {
		n -= s.idx.dead
	}
	if s.first.until != 0 {
		n++
	}
	return n
}

// liveMore appends the further holders, without tombstones, to dst.
func (s *semObj) liveMore(dst []semHolder) []semHolder {
	for _, h := range s.more {
		if h.until > 0 {
			dst = append(dst, h)
		}
	}
	return dst
}

// setHolders replaces the holders with hs (which it does not keep), the
// first of them in the object.
func (s *semObj) setHolders(hs []semHolder) {
	var first semHolder
	if len(hs) > 0 {
		first, hs = hs[0], hs[1:]
	}
	s.setMore(first, hs)
}

// setMore replaces the holders with first (until 0: none) and more (which
// it does not keep).
func (s *semObj) setMore(first semHolder, more []semHolder) {
	s.first, s.more, s.idx = first, nil, nil
	if len(more) == 0 {
		return
	}
	s.more = append(make([]semHolder, 0, len(more)), more...)
	if !slices.IsSortedFunc(s.more, cmpSemToken) {
		slices.SortFunc(s.more, cmpSemToken)
	}
	if len(s.more) >= semIndexAt {
		s.index()
	}
}

func cmpSemToken(a, b semHolder) int { return cmp.Compare(a.token, b.token) }

// index builds idx over more, which holds no tombstone.
func (s *semObj) index() {
	x := &semIndex{soon: make([]int32, len(s.more)), late: make([]int32, len(s.more))}
	for i := range s.more {
		x.soon[i], x.late[i] = int32(i), int32(i)
	}
	s.idx = x
	for i := len(s.more)/2 - 1; i >= 0; i-- {
		s.down(x.soon, i, false)
		s.down(x.late, i, true)
	}
}

// deadline is the deadline of more[i], tombstone or not.
func (s *semObj) deadline(i int32) int64 {
	if u := s.more[i].until; u < 0 {
		return -u
	}
	return s.more[i].until
}

// before orders heap positions: earlier deadline first, or later with
// late.
func (s *semObj) before(a, b int32, late bool) bool {
	if late {
		return s.deadline(a) > s.deadline(b)
	}
	return s.deadline(a) < s.deadline(b)
}

func (s *semObj) up(h []int32, i int, late bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.before(h[i], h[p], late) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *semObj) down(h []int32, i int, late bool) {
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

// pop removes the top of heap h and returns the shortened heap.
func (s *semObj) pop(h []int32, late bool) []int32 {
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	s.down(h, 0, late)
	return h
}

// add adds a holder: exactly one element more below semIndexAt further
// holders, amortised O(log n) from there on.
func (s *semObj) add(h semHolder) {
	if s.first.until == 0 {
		s.first = h
		return
	}
	n := len(s.more)
	if n > 0 && h.token < s.more[n-1].token {
		// Out of token order (a replayed log never does this): rebuild.
		s.setMore(s.first, append(s.liveMore(nil), h))
		return
	}
	x := s.idx
	if x == nil {
		m := make([]semHolder, n+1)
		copy(m, s.more)
		m[n] = h
		s.more = m
		if n+1 >= semIndexAt {
			s.index()
		}
		return
	}
	if n == cap(s.more) {
		m := make([]semHolder, n, n+n/4)
		copy(m, s.more)
		s.more = m
	}
	s.more = append(s.more, h)
	x.soon = append(x.soon, int32(n))
	s.up(x.soon, len(x.soon)-1, false)
	x.late = append(x.late, int32(n))
	s.up(x.late, len(x.late)-1, true)
}

// remove drops the holder with token; false when there is none.
func (s *semObj) remove(token int64) bool {
	if s.first.until != 0 && s.first.token == token {
		if s.idx != nil {
			s.first = semHolder{}
			s.settle()
		} else if n := len(s.more); n > 0 {
			s.first = s.more[n-1]
			s.more = exactHolders(s.more[:n-1])
		} else {
			s.first = semHolder{}
		}
		return true
	}
	i, found := slices.BinarySearchFunc(s.more, token, func(h semHolder, t int64) int { return cmp.Compare(h.token, t) })
	if !found || s.more[i].until <= 0 {
		return false
	}
	if s.idx != nil {
		s.bury(i)
		s.settle()
		return true
	}
	m := make([]semHolder, 0, len(s.more)-1)
	m = append(m, s.more[:i]...)
	s.more = exactHolders(append(m, s.more[i+1:]...))
	return true
}

// bury makes more[i] a tombstone.
func (s *semObj) bury(i int) {
	s.more[i].until = -s.more[i].until
	s.idx.dead++
}

// settle compacts more once tombstones are half of it, back to an exact
// slice without index when the holders left are few.
func (s *semObj) settle() {
	x := s.idx
	if x.dead == 0 || x.dead < len(s.more)/2 {
		return
	}
	live := make([]semHolder, 0, len(s.more)-x.dead)
	for _, h := range s.more {
		if h.until > 0 {
			live = append(live, h)
		}
	}
	s.idx = nil
	s.more = exactHolders(live)
	if len(live) >= semIndexAt/2 {
		s.index()
	}
}

// exactHolders returns hs in a slice of exactly its length (nil if empty).
func exactHolders(hs []semHolder) []semHolder {
	if len(hs) == 0 {
		return nil
	}
	if cap(hs) == len(hs) {
		return hs
	}
	return append(make([]semHolder, 0, len(hs)), hs...)
}

// prune drops holders whose deadline has passed. It needs no WAL record:
// a holder's deadline is absolute, so a replayed expired holder is just as
// dead and is pruned the next time the key is used.
func (s *semObj) prune(now int64) {
	if s.first.until == 0 && len(s.more) == 0 {
		return
	}
	if x := s.idx; x != nil {
		if s.first.until != 0 && s.first.until <= now {
			s.first = semHolder{}
		}
		for len(x.soon) > 0 {
			top := x.soon[0]
			if u := s.more[top].until; u > now {
				break
			} else if u > 0 {
				s.bury(int(top))
			}
			x.soon = s.pop(x.soon, false)
		}
		s.settle()
		return
	}
	expired := 0
	if s.first.until != 0 && s.first.until <= now {
		expired++
	}
	for _, h := range s.more {
		if h.until <= now {
			expired++
		}
	}
	if expired == 0 {
		return
	}
	live := make([]semHolder, 0, s.count()-expired)
	if s.first.until > now {
		live = append(live, s.first)
	}
	for _, h := range s.more {
		if h.until > now {
			live = append(live, h)
		}
	}
	s.setHolders(live)
}

// latest is the latest holder deadline, 0 without holders.
func (s *semObj) latest() int64 {
	at := s.first.until
	x := s.idx
	if x == nil {
		for _, h := range s.more {
			at = max(at, h.until)
		}
		return at
	}
	for len(x.late) > 0 && s.more[x.late[0]].until <= 0 {
		x.late = s.pop(x.late, true)
	}
	if len(x.late) > 0 {
		at = max(at, s.more[x.late[0]].until)
	}
	return at
}

// LEASE key ttl_ms
func leaseCommand(x *Ctx) {
	until, ok := parseTTLArg(x, x.Args[2])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.lookup(db, x.Args[1])
	var l *leaseObj
	if e == nil {
		l = &leaseObj{token: 1}
		e = db.add(x.Args[1], nil, l, 0)
	} else {
		if l, ok = db.obj(e).(*leaseObj); !ok {
			x.W.Error(errWrongType)
			return
		}
		if l.held(sh.nowMs) {
			x.W.Null()
			return
		}
		if l.token == math.MaxInt64 {
			x.W.Error(errTokenOverflow)
			return
		}
		l.token++
	}
	l.until = until
	sh.logLease(db.id, e.keyView(), l.token, until)
	sh.noteChange(noteLease, e.keyView(), l.token, true)
	x.W.Int(l.token)
}

// SEMAPHORE key max ttl_ms
func semaphoreCommand(x *Ctx) {
	limit, ok := parsePositive(x, x.Args[2], errPositiveMax)
	if !ok {
		return
	}
	until, ok := parseTTLArg(x, x.Args[3])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.lookup(db, x.Args[1])
	var s *semObj
	if e == nil {
		// Tokens of a new key start from the clock, in nanoseconds.
		s = &semObj{last: max(sh.srv.now().UnixNano(), sh.nowMs*1e6) - 1}
		e = db.add(x.Args[1], nil, s, until)
	} else {
		if s, ok = db.obj(e).(*semObj); !ok {
			x.W.Error(errWrongType)
			return
		}
		s.prune(sh.nowMs)
		if int64(s.count()) >= limit {
			x.W.Null()
			return
		}
		if s.last == math.MaxInt64 {
			x.W.Error(errTokenOverflow)
			return
		}
	}
	s.last++
	s.add(semHolder{token: s.last, until: until})
	keyAt := s.latest()
	if keyAt != e.expireAt {
		db.setDeadline(e, keyAt)
	}
	sh.logSemAcquire(db.id, e.keyView(), s.last, until, keyAt)
	x.W.Int(s.last)
}

// RELEASE key token
func releaseCommand(x *Ctx) {
	token, ok := parseInt(x.Args[2])
	if !ok {
		x.W.Error(errNotInt)
		return
	}
	sh, db := x.S, x.DB
	e := sh.lookup(db, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	switch o := db.obj(e).(type) {
	case *leaseObj:
		if !o.held(sh.nowMs) || o.token != token {
			x.W.Int(0)
			return
		}
		o.until = 0
		sh.logRelease(db.id, e.keyView(), token)
	case *semObj:
		o.prune(sh.nowMs)
		if !o.remove(token) {
			x.W.Int(0)
			return
		}
		if o.count() == 0 {
			// The key goes away with its last holder (after the change
			// note below has read its name).
			sh.logDel(db.id, e.keyView())
			defer db.remove(e)
		} else {
			// The key lives exactly as long as its latest holder.
			db.setDeadline(e, o.latest())
			sh.logSemRelease(db.id, e.keyView(), token, e.expireAt)
		}
	default:
		x.W.Error(errWrongType)
		return
	}
	sh.noteChange(noteRelease, e.keyView(), token, true)
	x.W.Int(1)
}
