package keyspace

import (
	"math"

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

// semObj is the value of a semaphore key. The first holder lives in the
// object; every further holder takes 16 bytes in more, which is always
// exactly as long as it needs to be. last is the last token granted; the
// first token of a key is the clock (unix ns) when the key is created, so
// a token from an earlier incarnation of the key never matches a later
// holder. Every grant and every release sets the key's deadline to the
// latest live holder deadline (even on a key whose deadline a client
// removed or moved), so the key goes away with its last holder even when
// nobody touches it.
type semObj struct {
	last  int64
	first semHolder // until == 0: no holder
	more  []semHolder
}

func (s *semObj) typeName() string { return "semaphore" }
func (s *semObj) encoding() string { return "semaphore" }
func (s *semObj) clone() any {
	c := *s
	if s.more != nil {
		// make, not append: append may round the capacity up, and every
		// holder slice is exactly as long as it needs to be.
		c.more = make([]semHolder, len(s.more))
		copy(c.more, s.more)
	}
	return &c
}
func (s *semObj) memoryUsage(int64) int64 { return 48 + 16*int64(len(s.more)) }
func (s *semObj) snapshotKind() uint8     { return kindSemaphore }

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
		dst = persistence.AppendU64(dst, uint64(h.token))
		dst = persistence.AppendI64(dst, h.until)
	}
	return dst
}

// count is the number of holders, expired ones not yet pruned included.
func (s *semObj) count() int {
	if s.first.until == 0 {
		return 0
	}
	return 1 + len(s.more)
}

// setHolders replaces the holders with hs (which it does not keep).
func (s *semObj) setHolders(hs []semHolder) {
	s.first, s.more = semHolder{}, nil
	if len(hs) == 0 {
		return
	}
	s.first = hs[0]
	if len(hs) > 1 {
		s.more = append(make([]semHolder, 0, len(hs)-1), hs[1:]...)
	}
}

// add appends a holder, growing more by exactly one element.
func (s *semObj) add(h semHolder) {
	if s.first.until == 0 {
		s.first = h
		return
	}
	m := make([]semHolder, len(s.more)+1)
	copy(m, s.more)
	m[len(s.more)] = h
	s.more = m
}

// remove drops the holder with token; false when there is none.
func (s *semObj) remove(token int64) bool {
	if s.first.until != 0 && s.first.token == token {
		if n := len(s.more); n > 0 {
			s.first = s.more[n-1]
			s.more = exactHolders(s.more[:n-1])
		} else {
			s.first = semHolder{}
		}
		return true
	}
	for i, h := range s.more {
		if h.token == token {
			m := make([]semHolder, 0, len(s.more)-1)
			m = append(m, s.more[:i]...)
			s.more = exactHolders(append(m, s.more[i+1:]...))
			return true
		}
	}
	return false
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
	if s.first.until == 0 {
		return
	}
	expired := 0
	if s.first.until <= now {
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
	for _, h := range s.more {
		at = max(at, h.until)
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
