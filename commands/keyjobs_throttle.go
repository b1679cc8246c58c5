package commands

import (
	"math"
	"strconv"

	"github.com/ruvio/ruvio/keyspace"
)

// CL.THROTTLE key max_burst count_per_period period [quantity]: the generic
// cell rate algorithm of redis-cell, reply for reply. The key holds one
// number, the theoretical arrival time (TAT) in Unix nanoseconds, as a
// plain string (as redis-cell stores it), and its deadline is the moment
// the limiter is full again, so an idle limiter simply expires. An admitted
// call is one OpSet record (value and absolute deadline: physically exact
// for replay and replicas); a limited call writes nothing.

// Reply texts, as redis-cell words them.
const (
	errCellUsage    = "Cell error: Usage: cl.throttle <key> <max_burst> <count per period> <period> [<quantity>]"
	errCellZeroRate = "Cell error: Zero rates are not supported"
	errCellParse    = "Cell error: Couldn't parse as integer: "
)

// parseCellInt parses a base-10 i64 as Rust's str::parse does (redis-cell's
// parser): an optional sign, then at least one digit, leading zeros allowed.
func parseCellInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// f64ToI64 converts as Rust's `as i64` does: truncation, saturating at the
// bounds, NaN to 0.
func f64ToI64(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// cellSeconds rounds a duration in nanoseconds to the seconds redis-cell
// replies: whole seconds, plus one when a millisecond or more is left over.
func cellSeconds(ns int64) int64 {
	s := ns / 1e9
	if (ns%1e9)/1e6 > 0 {
		s++
	}
	return s
}

// throttleArgs are CL.THROTTLE's parsed numbers.
type throttleArgs struct {
	maxBurst, count, period, quantity int64
}

// parseThrottleArgs parses args[2:] of CL.THROTTLE; bad is the first
// argument that is not an integer, nil when all are.
func parseThrottleArgs(args [][]byte) (a throttleArgs, bad []byte) {
	a.quantity = 1
	dst := [4]*int64{&a.maxBurst, &a.count, &a.period, &a.quantity}
	for i, arg := range args[2:] {
		n, ok := parseCellInt(arg)
		if !ok {
			return a, arg
		}
		*dst[i] = n
	}
	return a, nil
}

// throttleResult is the outcome of one GCRA step.
type throttleResult struct {
	limited                bool
	limit, remaining       int64
	retryAfter, resetAfter int64 // nanoseconds; retryAfter -1 s when not set
	newTAT, ttl            int64 // when admitted: the TAT to store and its time to live (ns)
}

// gcra runs redis-cell's rate_limit on the stored TAT (tat < 0: none) at
// now (ns). Arithmetic wraps as redis-cell's release build does. ok is
// false for a zero rate.
func gcra(a throttleArgs, tat, now int64) (r throttleResult, ok bool) {
	// Rate::per_period(count, period seconds): the emission interval.
	periodNs := a.period * 1e9
	var emission int64
	if a.count != 0 && periodNs != 0 {
		emission = f64ToI64(float64(periodNs) / float64(a.count))
	}
	if emission == 0 {
		return r, false
	}
	dvt := emission * (a.maxBurst + 1) // delay variation tolerance
	increment := emission * a.quantity
	r.limit = a.maxBurst + 1
	r.retryAfter = -1e9
	if tat < 0 {
		tat = now
	}
	newTAT := tat + increment
	if now > tat {
		newTAT = now + increment
	}
	var ttl int64
	if diff := now - (newTAT - dvt); diff < 0 {
		if increment <= dvt {
			r.retryAfter = -diff
		}
		r.limited = true
		ttl = tat - now
	} else {
		ttl = newTAT - now
		r.newTAT, r.ttl = newTAT, ttl
	}
	if next := dvt - ttl; next > -emission {
		r.remaining = f64ToI64(float64(next/1e3) / float64(emission/1e3))
	}
	r.resetAfter = ttl
	return r, true
}

// CL.THROTTLE key max_burst count_per_period period [quantity]
func clThrottleCommand(x *keyspace.Ctx) {
	if len(x.Args) != 5 && len(x.Args) != 6 {
		x.W.Error(errCellUsage)
		return
	}
	a, bad := parseThrottleArgs(x.Args)
	if bad != nil {
		x.W.Error(errCellParse + string(bad))
		return
	}
	// A zero rate is refused before the key is read, as redis-cell does.
	if _, ok := gcra(a, -1, 0); !ok {
		x.W.Error(errCellZeroRate)
		return
	}
	key := x.Args[1]
	sh := x.S
	e := sh.Lookup(x.DB, key)
	tat := int64(-1)
	if e != nil {
		if x.DB.Obj(e) != nil {
			x.W.Error(keyspace.ErrWrongType)
			return
		}
		n, ok := parseCellInt(x.DB.Val(e))
		if !ok {
			x.W.Error(cellParseError(x.DB.Val(e)))
			return
		}
		if n >= 0 {
			tat = n
		}
	}
	now := sh.NowMs * 1e6
	r, _ := gcra(a, tat, now)
	if !r.limited {
		// The key lives as long as the TAT is ahead, in whole milliseconds.
		if ttlMs := r.ttl / 1e6; ttlMs > 0 {
			var tmp [20]byte
			sh.StoreStringIn(x.DB, e, key, strconv.AppendInt(tmp[:0], r.newTAT, 10), sh.NowMs+ttlMs, false)
		} else if e != nil {
			// Nothing left to remember (quantity 0 on an idle limiter).
			sh.DeleteKey(x.DB, key)
		}
	}
	x.W.ArrayHeader(5)
	if r.limited {
		x.W.Int(1)
	} else {
		x.W.Int(0)
	}
	x.W.Int(r.limit)
	x.W.Int(r.remaining)
	x.W.Int(cellSeconds(r.retryAfter))
	x.W.Int(cellSeconds(r.resetAfter))
}

// cellParseError is the reply to a key whose string is not a TAT:
// redis-cell forwards Rust's integer parse error.
func cellParseError(b []byte) string {
	digits := b
	if len(digits) > 0 && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	switch {
	case len(b) == 0:
		return "Cell error: cannot parse integer from empty string"
	case len(digits) == 0:
		return "Cell error: invalid digit found in string"
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "Cell error: invalid digit found in string"
		}
	}
	if b[0] == '-' {
		return "Cell error: number too small to fit in target type"
	}
	return "Cell error: number too large to fit in target type"
}
