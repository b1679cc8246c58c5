package control

import "time"

// leases is the leader's account of the write leases it granted, on its own
// monotonic clock. A primary counts its lease from when it sent the
// heartbeat that earned it, which is before the leader granted it, so the
// primary's lease always ends before the leader's account of it does.
type leases struct {
	ttl time.Duration
	// since is when this node became the leader: a predecessor may have
	// granted leases up to then, so every lease counts as granted at since
	// at the earliest.
	since  time.Time
	grants map[string]time.Time
}

func newLeases(ttl time.Duration, since time.Time) *leases {
	return &leases{ttl: ttl, since: since, grants: map[string]time.Time{}}
}

// margin is how much longer than ttl the leader waits: for the two clocks'
// rates and for a heartbeat's answer still on the way.
func (l *leases) margin() time.Duration { return l.ttl/10 + 50*time.Millisecond }

// grant records a lease granted to member at now.
func (l *leases) grant(member string, now time.Time) { l.grants[member] = now }

// expired reports whether every lease member may hold has ended at now.
func (l *leases) expired(member string, now time.Time) bool {
	last := l.since
	if g, ok := l.grants[member]; ok && g.After(last) {
		last = g
	}
	return now.Sub(last) > l.ttl+l.margin()
}

// forget drops member's grants (it is no longer a primary).
func (l *leases) forget(member string) { delete(l.grants, member) }
