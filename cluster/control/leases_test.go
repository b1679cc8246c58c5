package control

import (
	"testing"
	"time"
)

// The leases are read on a clock the test sets: no waiting, no sleeping.

func TestLeaseMargin(t *testing.T) {
	for ttl, want := range map[time.Duration]time.Duration{
		time.Second:            150 * time.Millisecond,
		2 * time.Second:        250 * time.Millisecond,
		100 * time.Millisecond: 60 * time.Millisecond,
	} {
		if got := newLeases(ttl, time.Time{}).margin(); got != want {
			t.Errorf("margin for ttl %v = %v, want %v", ttl, got, want)
		}
	}
}

func TestLeaseExpiry(t *testing.T) {
	ttl := time.Second
	since := time.Unix(1000, 0)
	l := newLeases(ttl, since)
	m := l.margin()
	at := since.Add(5 * time.Second)
	l.grant("p", at)
	cases := []struct {
		now  time.Time
		want bool
	}{
		{at, false},
		{at.Add(ttl), false},
		{at.Add(ttl + m/2), false},
		{at.Add(ttl + m), false}, // the wait is strictly longer than ttl+margin
		{at.Add(ttl + m + time.Nanosecond), true},
		{at.Add(time.Hour), true},
	}
	for _, tc := range cases {
		if got := l.expired("p", tc.now); got != tc.want {
			t.Errorf("granted at t, expired at t+%v = %v, want %v", tc.now.Sub(at), got, tc.want)
		}
	}
	// A later grant extends the lease.
	l.grant("p", at.Add(ttl))
	if l.expired("p", at.Add(2*ttl)) {
		t.Error("renewed at t+ttl, expired at t+2ttl")
	}
	if !l.expired("p", at.Add(2*ttl+m+time.Nanosecond)) {
		t.Error("renewed at t+ttl, not expired after t+2ttl+margin")
	}
}

func TestLeaseNeverGrantedCountsFromSince(t *testing.T) {
	ttl := time.Second
	since := time.Unix(1000, 0)
	l := newLeases(ttl, since)
	m := l.margin()
	// A new leader waits out whatever its predecessor may have granted,
	// for every member, known to it or not.
	for _, member := range []string{"p", "q", ""} {
		if l.expired(member, since) || l.expired(member, since.Add(ttl+m)) {
			t.Errorf("%q: expired within ttl+margin of since", member)
		}
		if !l.expired(member, since.Add(ttl+m+time.Nanosecond)) {
			t.Errorf("%q: not expired after since+ttl+margin", member)
		}
	}
}

func TestLeaseGrantBeforeSince(t *testing.T) {
	ttl := time.Second
	since := time.Unix(1000, 0)
	l := newLeases(ttl, since)
	m := l.margin()
	// A grant older than since does not shorten the wait.
	l.grant("p", since.Add(-10*time.Second))
	if l.expired("p", since.Add(ttl)) || l.expired("p", since.Add(ttl+m)) {
		t.Error("a grant before since shortened the wait")
	}
	if !l.expired("p", since.Add(ttl+m+time.Nanosecond)) {
		t.Error("not expired after since+ttl+margin")
	}
	// Nor does one exactly at since.
	l.grant("q", since)
	if l.expired("q", since.Add(ttl+m)) || !l.expired("q", since.Add(ttl+m+time.Nanosecond)) {
		t.Error("a grant at since counts differently from since")
	}
}

func TestLeaseForget(t *testing.T) {
	ttl := time.Second
	since := time.Unix(1000, 0)
	l := newLeases(ttl, since)
	m := l.margin()
	at := since.Add(time.Minute)
	l.grant("p", at)
	l.grant("q", at)
	l.forget("p")
	// p counts from since again: long over. q still holds its lease.
	if !l.expired("p", at) {
		t.Error("p forgotten, still holds a lease")
	}
	if l.expired("q", at.Add(ttl)) {
		t.Error("forgetting p ended q's lease")
	}
	l.forget("p") // twice: nothing to do
	l.forget("nobody")
	if len(l.grants) != 1 {
		t.Errorf("grants %v, want q's only", l.grants)
	}
	// A forgotten member granted again is leased again.
	l.grant("p", at.Add(ttl))
	if l.expired("p", at.Add(2*ttl+m)) {
		t.Error("p granted again, expired within ttl+margin")
	}
}
