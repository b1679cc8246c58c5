package history

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Read is a final read of one key: its value, or Nil when it is missing.
type Read struct {
	Value string
	Nil   bool
}

// Entry is one stream entry of a final XRANGE: its id and the value of
// its field.
type Entry struct {
	ID    string
	Value string
}

// Final is the state read back after the run, once every fault is healed.
// A key that is not in a map was not read (its checks are skipped, not
// failed).
type Final struct {
	Values  map[string]Read
	Streams map[string][]Entry
	// Unread counts the keys and streams the final read could not read
	// in time (a group still unavailable after the faults healed).
	Unread int
}

// CheckDurability checks keys written by exactly one SET (of any outcome):
// an acknowledged one must be visible in the final read, an Unknown one
// may or may not be, and a Failed one must not be. Keys with more than one
// SET, or any INCR, are left to CheckLinearizable.
func CheckDurability(ops []Op, final Final) Result {
	res := Result{Name: "durability (single-write keys)"}
	sets := map[string][]Op{}
	multi := map[string]bool{}
	for _, op := range ops {
		switch op.Kind {
		case KindSet:
			sets[op.Key] = append(sets[op.Key], op)
		case KindIncr:
			multi[op.Key] = true
		}
	}
	keys := make([]string, 0, len(sets))
	for k, s := range sets {
		if len(s) == 1 && !multi[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w := sets[k][0]
		got, ok := final.Values[k]
		if !ok {
			res.Skipped++
			continue
		}
		res.Checked++
		visible := !got.Nil && got.Value == w.Value
		switch {
		case !got.Nil && got.Value != w.Value:
			res.violate("key %q holds %q, which nothing wrote (%s)", k, got.Value, w)
		case w.Outcome == OK && !visible:
			res.Lost++
			res.violate("lost: acknowledged %s is missing from the final read", w)
		case w.Outcome == Failed && visible:
			res.violate("a failed write took effect: %s", w)
		}
	}
	return res
}

// grant is a lease an acknowledged LEASE gave a client, as the client may
// rely on it: from the reply until the client invokes RELEASE or the TTL,
// counted from the LEASE's invocation, runs out.
type grant struct {
	op         Op
	start, end time.Duration
}

// CheckLeases checks that no two acknowledged LEASE grants on the same key
// were held at the same time. A grant is held (as its client may assume)
// from the LEASE reply until the first RELEASE of its token by that
// client is invoked, and never past the LEASE invocation + TTL: the server
// granted it no earlier than the invocation, so a correct server still
// held it until then. Two grants overlap when each starts more than slack
// before the other ends; slack absorbs the server's clock reading. Unknown
// LEASEs are not grants (the client does not rely on them); Unknown
// RELEASEs still end the hold at their invocation.
func CheckLeases(ops []Op, slack time.Duration) Result {
	res := Result{Name: "leases (no overlapping holders)"}
	byKey := map[string][]grant{}
	for i, op := range ops {
		if op.Kind != KindLease || op.Outcome != OK || op.Nil {
			continue
		}
		g := grant{op: op, start: op.Return, end: op.Call + op.TTL}
		for _, rel := range ops[i+1:] {
			if rel.Kind == KindRelease && rel.Client == op.Client && rel.Key == op.Key &&
				rel.Value == op.Output && rel.Call >= op.Return {
				g.end = min(g.end, rel.Call)
				break
			}
		}
		if g.end > g.start {
			byKey[op.Key] = append(byKey[op.Key], g)
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		gs := byKey[k]
		sort.Slice(gs, func(i, j int) bool { return gs[i].start < gs[j].start })
		res.Checked += len(gs)
		for i := range gs {
			for j := i + 1; j < len(gs) && gs[j].start < gs[i].end; j++ {
				if min(gs[i].end, gs[j].end)-gs[j].start > slack {
					res.violate("lease %q held twice: %s held it until %v, %s from %v",
						k, gs[i].op, gs[i].end.Round(time.Microsecond), gs[j].op, gs[j].start.Round(time.Microsecond))
				}
			}
		}
	}
	return res
}

// CheckIdem checks IDEM keys: every acknowledged completion of a key (a
// COMPLETE that returned 1, a BEGIN that replied "completed") carries the
// same result, and no two acknowledged BEGINs acquired the key while the
// other's record was certainly still retained (each replied before the
// other's invocation + retention).
func CheckIdem(ops []Op) Result {
	res := Result{Name: "idempotency (one result per key)"}
	results := map[string]map[string]Op{}
	acquired := map[string][]Op{}
	for _, op := range ops {
		if op.Outcome != OK {
			continue
		}
		var r string
		switch {
		case op.Kind == KindIdemComplete && op.Output == "1":
			r = op.Result
		case op.Kind == KindIdemBegin && op.Output == "completed":
			r = op.Result
		case op.Kind == KindIdemBegin && op.Output == "acquired":
			acquired[op.Key] = append(acquired[op.Key], op)
			continue
		default:
			continue
		}
		if results[op.Key] == nil {
			results[op.Key] = map[string]Op{}
		}
		if _, seen := results[op.Key][r]; !seen {
			results[op.Key][r] = op
		}
	}
	keys := map[string]bool{}
	for k := range results {
		keys[k] = true
	}
	for k := range acquired {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		res.Checked++
		if rs := results[k]; len(rs) > 1 {
			var descr []string
			for _, op := range rs {
				descr = append(descr, op.String())
			}
			sort.Strings(descr)
			res.violate("key %q completed with %d results: %s", k, len(rs), strings.Join(descr, "; "))
		}
		as := acquired[k]
		for i := range as {
			for j := i + 1; j < len(as); j++ {
				a, b := as[i], as[j]
				if b.Return < a.Call+a.TTL && a.Return < b.Call+b.TTL {
					res.violate("key %q acquired twice within its retention: %s; %s", k, a, b)
				}
			}
		}
	}
	return res
}

// streamID is a parsed stream entry id, ms-seq.
type streamID struct{ ms, seq uint64 }

func parseStreamID(s string) (streamID, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return streamID{}, fmt.Errorf("history: stream id %q has no '-'", s)
	}
	ms, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return streamID{}, fmt.Errorf("history: stream id %q: %w", s, err)
	}
	seq, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return streamID{}, fmt.Errorf("history: stream id %q: %w", s, err)
	}
	return streamID{ms, seq}, nil
}

func (a streamID) less(b streamID) bool { return a.ms < b.ms || (a.ms == b.ms && a.seq < b.seq) }

// CheckStreams checks every stream with a final XRANGE: its ids strictly
// increase; every acknowledged XADD is there, under the id it returned and
// with its value; no Failed XADD's value is there; and an XADD
// acknowledged before another was invoked got the smaller id. XADD values
// must be unique per stream for the check to be exact.
func CheckStreams(ops []Op, final Final) Result {
	res := Result{Name: "streams (acknowledged XADDs present, ids increasing)"}
	adds := map[string][]Op{}
	for _, op := range ops {
		if op.Kind == KindXAdd {
			adds[op.Key] = append(adds[op.Key], op)
		}
	}
	keys := make([]string, 0, len(adds))
	for k := range adds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		entries, read := final.Streams[k]
		if !read {
			res.Skipped++
			continue
		}
		res.Checked++
		byValue := map[string]string{}
		var prev streamID
		for i, e := range entries {
			id, err := parseStreamID(e.ID)
			if err != nil {
				res.violate("stream %q: %v", k, err)
				continue
			}
			if i > 0 && !prev.less(id) {
				res.violate("stream %q: id %s does not follow %s", k, e.ID, entries[i-1].ID)
			}
			prev = id
			byValue[e.Value] = e.ID
		}
		var acked []Op
		for _, op := range adds[k] {
			id, present := byValue[op.Value]
			switch {
			case op.Outcome == OK && !present:
				res.Lost++
				res.violate("lost: acknowledged %s is missing from the final XRANGE", op)
			case op.Outcome == OK && id != op.Output:
				res.violate("stream %q: %s is stored under id %s", k, op, id)
			case op.Outcome == Failed && present:
				res.violate("a failed XADD took effect: %s (id %s)", op, id)
			}
			if op.Outcome == OK {
				acked = append(acked, op)
			}
		}
		sort.Slice(acked, func(i, j int) bool { return acked[i].Return < acked[j].Return })
		// Each acknowledged XADD's id must exceed that of every XADD that
		// returned before it was invoked: keep the largest such id while
		// walking the XADDs by invocation time.
		byCall := append([]Op(nil), acked...)
		sort.Slice(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
		var maxBefore streamID
		var maxOp Op
		r := 0
		for _, op := range byCall {
			for ; r < len(acked) && acked[r].Return < op.Call; r++ {
				if id, err := parseStreamID(acked[r].Output); err == nil && maxBefore.less(id) {
					maxBefore, maxOp = id, acked[r]
				}
			}
			id, err := parseStreamID(op.Output)
			if err != nil {
				res.violate("stream %q: %s: %v", k, op, err)
				continue
			}
			if r > 0 && !maxBefore.less(id) {
				res.violate("stream %q: %s got an id not above that of the earlier %s", k, op, maxOp)
			}
		}
	}
	return res
}
