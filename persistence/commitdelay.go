package persistence

import "time"

// Clock is the time source of the FsyncAlways commit delay. Tests inject a
// fake one so the delay policy runs deterministically.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed. The WAL
	// calls it only from its sync goroutine, and a call may supersede the
	// previous one (whose channel is then abandoned).
	After(d time.Duration) <-chan time.Time
}

// sysClock is the system clock; it reuses one timer, since only the sync
// goroutine waits on it.
type sysClock struct{ t *time.Timer }

func (c *sysClock) Now() time.Time { return time.Now() }

func (c *sysClock) After(d time.Duration) <-chan time.Time {
	if c.t == nil {
		c.t = time.NewTimer(d)
	} else {
		// Since Go 1.23 Reset discards a value the old timer had sent.
		c.t.Reset(d)
	}
	return c.t.C
}

// WriterCounter is implemented by Committers that stand for several
// writers, such as a shard's commit group holding the batches of several
// connections. The commit delay counts writers; a Committer without it is
// one writer.
type WriterCounter interface {
	Writers() int
}

// SoleWriter is implemented by Committers that can say which one client
// all of their writes come from (a shard's commit group holding batches of
// a single connection). ok is false when they stand for several clients.
// The WAL uses it to recognise a lone client, whose commits it makes
// durable on the committing goroutine (see loneRun).
type SoleWriter interface {
	SoleWriter() (id int64, ok bool)
}

// loneRun is how many consecutive commits with records must come from the
// same sole client, with nothing else in flight, before a commit is synced
// on the committing goroutine instead of the sync goroutine. A lone client
// then pays one fsync per write and no hand-offs: the sync goroutine's
// wake-up and the reply's trip back to the network reactor cost a closed-
// loop client about a third of its round trip on a single CPU. Three in a
// row means every other client stayed silent for two of this client's
// round trips: while it syncs inline, the caller (a reactor or the shard
// loop) serves nobody else, and other clients that do arrive queue up and
// make the next group, which goes to the sync goroutine again.
const loneRun = 3

// commitDelay is the FsyncAlways group-commit policy. It decides, when a
// group is ready to be written, whether to hold the fsync back briefly for
// writers that are about to arrive.
//
// Why: a closed-loop client sends its next write right after its reply,
// which is while the next fsync is already running; so with many clients
// the writers split into groups that alternate, each paying a whole fsync.
// Waiting a fraction of a sync for the writers just released puts them all
// in one group. The expected writers are those the last sync released plus
// those that queued up while it ran; writers that do not come back drop
// out after one round, since the next expectation is what arrived.
//
// When it pays: every missing writer that makes this group saves about one
// sync time, and every writer already queued loses the delay, so the wait
// is bounded by syncAvg × missing ÷ arrived, by the configured maximum, and
// ends as soon as the expected writers are there. A lone client is never
// delayed (nobody else is expected), nor is a group after an idle spell
// (the writers released long ago are not "about to arrive"). And the
// writers must arrive fast enough: the rate measured during past delays
// must bring, within one sync time, more writers than the group already
// holds (each arrival saves a sync, each queued writer pays the wait). A
// server short of CPU, whose clients come back slowly, fails that test; it
// then syncs at once and probes with a delay only every probeEvery groups.
//
// It is owned by the sync goroutine.
type commitDelay struct {
	syncAvg  time.Duration // moving average of fsync latency (0: none yet)
	expected int           // writers expected in the next group
	syncEnd  time.Time     // when the last group's Committers were told
	// rate is the writers per second that arrived during past delays (a
	// moving average); valid once measured is set.
	rate     float64
	measured bool
	skipped  int // groups not delayed since the last probe, for lack of rate
}

// staleFactor: writers released more than staleFactor × syncAvg ago (and at
// least minStale ago) are no longer expected soon.
const (
	staleFactor = 4
	minStale    = time.Millisecond
)

// probeEvery: when arrivals were too slow for a delay to pay, one group in
// probeEvery is still delayed, to notice when they speed up.
const probeEvery = 16

// plan returns how many writers to wait for and for how long at most, given
// arrived writers queued at now and the configured maximum delay. limit 0
// means sync now.
func (d *commitDelay) plan(now time.Time, arrived int, maxDelay time.Duration) (want int, limit time.Duration) {
	if maxDelay <= 0 || arrived <= 0 || d.syncAvg <= 0 || d.expected <= arrived {
		return arrived, 0
	}
	if now.Sub(d.syncEnd) > max(staleFactor*d.syncAvg, minStale) {
		return arrived, 0
	}
	if d.measured && d.rate*d.syncAvg.Seconds() <= float64(arrived) {
		if d.skipped++; d.skipped < probeEvery {
			return arrived, 0
		}
	}
	d.skipped = 0
	missing := d.expected - arrived
	limit = min(d.syncAvg*time.Duration(missing)/time.Duration(arrived), maxDelay)
	return d.expected, limit
}

// delayed records a delay of took during which got writers arrived.
func (d *commitDelay) delayed(got int, took time.Duration) {
	if took <= 0 {
		return // ended before any time passed: no rate to learn
	}
	r := float64(got) / took.Seconds()
	if !d.measured {
		d.rate, d.measured = r, true
		return
	}
	d.rate += (r - d.rate) / 4
}

// synced records a finished group: the fsync it took (0 if it needed none),
// the writers it released and the writers that queued meanwhile.
func (d *commitDelay) synced(now time.Time, fsync time.Duration, released, queued int) {
	if fsync > 0 {
		if d.syncAvg == 0 {
			d.syncAvg = fsync
		} else {
			// An average over about the last 8 syncs follows a change of
			// disk speed quickly without chasing every outlier.
			d.syncAvg += (fsync - d.syncAvg) / 8
		}
	}
	d.expected = released + queued
	d.syncEnd = now
}
