package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
)

func leaseObjHeld(l *keyspace.LeaseObj, now int64) bool { return l.Until > now }

// semObjPop removes the top of heap h and returns the shortened heap.
func semObjPop(s *keyspace.SemObj, h []int32, late bool) []int32 {
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	s.Down(h, 0, late)
	return h
}

// semObjPrune drops holders whose deadline has passed. It needs no WAL record:
// a holder's deadline is absolute, so a replayed expired holder is just as
// dead and is pruned the next time the key is used.
func semObjPrune(s *keyspace.SemObj, now int64) {
	if s.First.Until == 0 && len(s.More) == 0 {
		return
	}
	if x := s.Idx; x != nil {
		if s.First.Until != 0 && s.First.Until <= now {
			s.First = keyspace.SemHolder{}
		}
		for len(x.Soon) > 0 {
			top := x.Soon[0]
			if u := s.More[top].Until; u > now {
				break
			} else if u > 0 {
				s.Bury(int(top))
			}
			x.Soon = semObjPop(s, x.Soon, false)
		}
		s.Settle()
		return
	}
	expired := 0
	if s.First.Until != 0 && s.First.Until <= now {
		expired++
	}
	for _, h := range s.More {
		if h.Until <= now {
			expired++
		}
	}
	if expired == 0 {
		return
	}
	live := make([]keyspace.SemHolder, 0, s.Count()-expired)
	if s.First.Until > now {
		live = append(live, s.First)
	}
	for _, h := range s.More {
		if h.Until > now {
			live = append(live, h)
		}
	}
	s.SetHolders(live)
}

// semObjLatest is the latest holder deadline, 0 without holders.
func semObjLatest(s *keyspace.SemObj) int64 {
	at := s.First.Until
	x := s.Idx
	if x == nil {
		for _, h := range s.More {
			at = max(at, h.Until)
		}
		return at
	}
	for len(x.Late) > 0 && s.More[x.Late[0]].Until <= 0 {
		x.Late = semObjPop(s, x.Late, true)
	}
	if len(x.Late) > 0 {
		at = max(at, s.More[x.Late[0]].Until)
	}
	return at
}

// LEASE key ttl_ms
func leaseCommand(x *keyspace.Ctx) {
	until, ok := parseTTLArgOrReply(x, x.Args[2])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.Lookup(db, x.Args[1])
	var l *keyspace.LeaseObj
	if e == nil {
		l = &keyspace.LeaseObj{Token: 1}
		e = db.Add(x.Args[1], nil, l, 0)
	} else {
		if l, ok = db.Obj(e).(*keyspace.LeaseObj); !ok {
			x.W.Error(keyspace.ErrWrongType)
			return
		}
		if leaseObjHeld(l, sh.NowMs) {
			x.W.Null()
			return
		}
		if l.Token == math.MaxInt64 {
			x.W.Error(errTokenOverflow)
			return
		}
		l.Token++
	}
	l.Until = until
	sh.LogLease(db.ID, e.KeyView(), l.Token, until)
	shardNoteChange(sh, noteLease, e.KeyView(), l.Token, true)
	x.W.Int(l.Token)
}

// SEMAPHORE key max ttl_ms
func semaphoreCommand(x *keyspace.Ctx) {
	limit, ok := parsePositiveOrReply(x, x.Args[2], errPositiveMax)
	if !ok {
		return
	}
	until, ok := parseTTLArgOrReply(x, x.Args[3])
	if !ok {
		return
	}
	sh, db := x.S, x.DB
	e := sh.Lookup(db, x.Args[1])
	var s *keyspace.SemObj
	if e == nil {
		// Tokens of a new key start from the clock, in nanoseconds.
		s = &keyspace.SemObj{Last: max(sh.Srv.Now().UnixNano(), sh.NowMs*1e6) - 1}
		e = db.Add(x.Args[1], nil, s, until)
	} else {
		if s, ok = db.Obj(e).(*keyspace.SemObj); !ok {
			x.W.Error(keyspace.ErrWrongType)
			return
		}
		semObjPrune(s, sh.NowMs)
		if int64(s.Count()) >= limit {
			x.W.Null()
			return
		}
		if s.Last == math.MaxInt64 {
			x.W.Error(errTokenOverflow)
			return
		}
	}
	s.Last++
	s.Add(keyspace.SemHolder{Token: s.Last, Until: until})
	keyAt := semObjLatest(s)
	if keyAt != e.ExpireAt {
		db.SetDeadline(e, keyAt)
	}
	sh.LogSemAcquire(db.ID, e.KeyView(), s.Last, until, keyAt)
	x.W.Int(s.Last)
}

// RELEASE key token
func releaseCommand(x *keyspace.Ctx) {
	token, ok := keyspace.ParseInt(x.Args[2])
	if !ok {
		x.W.Error(keyspace.ErrNotInt)
		return
	}
	sh, db := x.S, x.DB
	e := sh.Lookup(db, x.Args[1])
	if e == nil {
		x.W.Int(0)
		return
	}
	switch o := db.Obj(e).(type) {
	case *keyspace.LeaseObj:
		if !leaseObjHeld(o, sh.NowMs) || o.Token != token {
			x.W.Int(0)
			return
		}
		o.Until = 0
		sh.LogRelease(db.ID, e.KeyView(), token)
	case *keyspace.SemObj:
		semObjPrune(o, sh.NowMs)
		if !o.Remove(token) {
			x.W.Int(0)
			return
		}
		if o.Count() == 0 {
			// The key goes away with its last holder (after the change
			// note below has read its name).
			sh.LogDel(db.ID, e.KeyView())
			defer db.Remove(e)
		} else {
			// The key lives exactly as long as its latest holder.
			db.SetDeadline(e, semObjLatest(o))
			sh.LogSemRelease(db.ID, e.KeyView(), token, e.ExpireAt)
		}
	default:
		x.W.Error(keyspace.ErrWrongType)
		return
	}
	shardNoteChange(sh, noteRelease, e.KeyView(), token, true)
	x.W.Int(1)
}
