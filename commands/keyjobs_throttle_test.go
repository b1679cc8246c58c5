package commands

import (
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// throttleReply is CL.THROTTLE's reply.
func throttleReply(limited, limit, remaining, retry, reset int64) string {
	return rArr(rInt(limited), rInt(limit), rInt(remaining), rInt(retry), rInt(reset))
}

// redis-cell's README: CL.THROTTLE user123 15 30 60 on a new key.
func TestThrottleReadmeExample(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	expect(t, sh, throttleReply(0, 16, 15, -1, 2), "CL.THROTTLE", "user123", "15", "30", "60")
	expectOps(t, j, "an admitted call", persistence.OpSet)
	// The key is the TAT in nanoseconds, living until it is reached.
	expect(t, sh, rBulk("1700000002000000000"), "get", "user123")
	expect(t, sh, rInt(2000), "pttl", "user123")
	expect(t, sh, throttleReply(0, 16, 14, -1, 4), "cl.throttle", "user123", "15", "30", "60", "1")
}

// The cases of redis-cell's own rate limiter test (it_rate_limits): a
// limit of 5 (max_burst 4) at one token a second, through the command,
// with the clock moved as the test moves it. Durations are rounded up to
// seconds in the reply, as redis-cell's command does.
func TestThrottleRedisCellCases(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	cases := []struct {
		atMs, quantity                   int64
		limited, remaining, reset, retry int64
	}{
		{0, 6, 1, 5, 0, -1}, // never more than the maximum at once
		{0, 1, 0, 4, 1, -1}, // the burst
		{0, 1, 0, 3, 2, -1},
		{0, 1, 0, 2, 3, -1},
		{0, 1, 0, 1, 4, -1},
		{0, 1, 0, 0, 5, -1},
		{0, 1, 1, 0, 5, 1}, // limited: retry in a second
		{3000, 1, 0, 2, 3, -1},
		{3100, 1, 0, 1, 4, -1}, // reset after 3.9 s
		{4000, 1, 0, 1, 4, -1},
		{8000, 1, 0, 4, 1, -1},
		{9500, 1, 0, 4, 1, -1},
		{9500, 0, 0, 4, 1, -1}, // quantity 0 peeks
		{9500, 2, 0, 2, 3, -1}, // quantity > 1 takes more
		{9500, 5, 1, 2, 3, 3},  // quantity above what is left: limited
	}
	for i, c := range cases {
		sh.NowMs = testNowMs + c.atMs
		j.take()
		expect(t, sh, throttleReply(c.limited, 5, c.remaining, c.retry, c.reset),
			"CL.THROTTLE", "foo", "4", "1", "1", itoa(int(c.quantity)))
		var want []persistence.Opcode
		if c.atMs == 8000 || c.atMs == 9500 && c.quantity == 1 {
			// The key's deadline passed: its lazy expiry is logged first.
			want = append(want, persistence.OpDel)
		}
		if c.limited == 0 {
			want = append(want, persistence.OpSet)
		}
		expectOps(t, j, "case "+itoa(i), want...)
	}
}

// The GCRA step in nanoseconds, against the same cases' exact durations.
func TestThrottleGCRAExact(t *testing.T) {
	const s, ms = int64(1e9), int64(1e6)
	a := throttleArgs{maxBurst: 4, count: 1, period: 1, quantity: 1}
	now := int64(1_700_000_000) * s
	r, ok := gcra(a, now+6*s, now+3100*ms)
	if !ok || r.limited || r.resetAfter != 3900*ms || r.remaining != 1 || r.retryAfter != -s {
		t.Fatalf("at 3.1 s: %+v", r)
	}
	a.quantity = 5
	if r, _ = gcra(a, now+12500*ms, now+9500*ms); !r.limited || r.retryAfter != 3*s || r.resetAfter != 3*s || r.remaining != 2 {
		t.Fatalf("quantity 5 at 9.5 s: %+v", r)
	}
	a.quantity = 6
	if r, _ = gcra(a, -1, now); !r.limited || r.retryAfter != -s || r.resetAfter != 0 || r.remaining != 5 {
		t.Fatalf("quantity 6 on a new key: %+v", r)
	}
	if _, ok := gcra(throttleArgs{maxBurst: 1, count: 0, period: 1, quantity: 1}, -1, now); ok {
		t.Fatal("a zero count was accepted")
	}
	if _, ok := gcra(throttleArgs{maxBurst: 1, count: 1, period: 0, quantity: 1}, -1, now); ok {
		t.Fatal("a zero period was accepted")
	}
}

// A steady rate: 10 a minute (one per 6 s) with a burst of 2. After the
// burst, one call every 6 s is admitted and the call between is not.
func TestThrottleSteadyRate(t *testing.T) {
	sh := newTestShard(t)
	for i := int64(0); i < 3; i++ {
		expect(t, sh, throttleReply(0, 3, 2-i, -1, 6*(i+1)), "CL.THROTTLE", "steady", "2", "10", "60")
	}
	expect(t, sh, throttleReply(1, 3, 0, 6, 18), "CL.THROTTLE", "steady", "2", "10", "60")
	for step := int64(1); step <= 5; step++ {
		sh.NowMs = testNowMs + step*6000
		expect(t, sh, throttleReply(0, 3, 0, -1, 18), "CL.THROTTLE", "steady", "2", "10", "60")
		sh.NowMs += 3000
		expect(t, sh, throttleReply(1, 3, 0, 3, 15), "CL.THROTTLE", "steady", "2", "10", "60")
	}
	// Idle for the whole tolerance: the key is gone and the burst is back.
	sh.NowMs += 60000
	expect(t, sh, rInt(0), "exists", "steady")
	expect(t, sh, throttleReply(0, 3, 2, -1, 6), "CL.THROTTLE", "steady", "2", "10", "60")
}

func TestThrottleErrors(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	// Too few words is the server's arity error (redis-cell, a module
	// without an arity, answers its usage text); too many is the usage.
	arity := rErr(keyspace.ErrWrongArgs("cl.throttle"))
	expect(t, sh, arity, "CL.THROTTLE")
	expect(t, sh, arity, "CL.THROTTLE", "k")
	expect(t, sh, arity, "CL.THROTTLE", "k", "1", "1")
	expect(t, sh, rErr(errCellUsage), "CL.THROTTLE", "k", "1", "1", "1", "1", "1")
	expect(t, sh, rErr("Cell error: Couldn't parse as integer: x"), "CL.THROTTLE", "k", "x", "1", "1")
	expect(t, sh, rErr("Cell error: Couldn't parse as integer: 1.5"), "CL.THROTTLE", "k", "1", "1.5", "1")
	expect(t, sh, rErr("Cell error: Couldn't parse as integer: "), "CL.THROTTLE", "k", "1", "1", "")
	expect(t, sh, rErr("Cell error: Couldn't parse as integer: 9223372036854775808"), "CL.THROTTLE", "k", "1", "1", "1", "9223372036854775808")
	expect(t, sh, rErr(errCellZeroRate), "CL.THROTTLE", "k", "1", "0", "1")
	expect(t, sh, rErr(errCellZeroRate), "CL.THROTTLE", "k", "1", "1", "0")
	// Rust's parser takes a sign and leading zeros.
	expect(t, sh, throttleReply(0, 2, 1, -1, 1), "CL.THROTTLE", "k", "+1", "01", "1")
	expect(t, sh, rOK, "set", "s", "abc")
	expect(t, sh, rErr("Cell error: invalid digit found in string"), "CL.THROTTLE", "s", "1", "1", "1")
	expect(t, sh, rOK, "set", "s", "")
	expect(t, sh, rErr("Cell error: cannot parse integer from empty string"), "CL.THROTTLE", "s", "1", "1", "1")
	expect(t, sh, rInt(1), "rpush", "l", "a")
	j.take()
	expect(t, sh, rErr(keyspace.ErrWrongType), "CL.THROTTLE", "l", "1", "1", "1")
	expectOps(t, j, "refused calls")
}

func TestParseCellInt(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "+7": 7, "-7": -7, "007": 7, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63,
	} {
		if n, ok := parseCellInt([]byte(in)); !ok || n != want {
			t.Errorf("%q: %d %v, want %d", in, n, ok, want)
		}
	}
	for _, in := range []string{"", "+", "-", "1.0", " 1", "1 ", "0x1", "9223372036854775808", "-9223372036854775809", "99999999999999999999"} {
		if _, ok := parseCellInt([]byte(in)); ok {
			t.Errorf("%q parsed", in)
		}
	}
}

func FuzzParseCellInt(f *testing.F) {
	for _, s := range []string{"0", "+1", "-9223372036854775808", "9223372036854775808", "", "1x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := parseCellInt([]byte(s))
		if !ok {
			return
		}
		// What parses is a sign, digits, and the value they spell.
		m, ok2 := parseCellInt([]byte(strconv.FormatInt(n, 10)))
		if !ok2 || m != n {
			t.Fatalf("%q → %d does not round-trip", s, n)
		}
	})
}
