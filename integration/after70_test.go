package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
)

// Commands from after Redis 7.0 through go-redis: SET … IFEQ and DELIFEQ
// (Valkey 8.1 and 9.0), CL.THROTTLE (redis-cell) and WAITAOF (Redis 7.2).

func TestCompareAndSet(t *testing.T) {
	c := testserver.Start(t).Client(t)
	expect(t, c, "OK", "SET", "cas", "initial_value")
	expect(t, c, "OK", "SET", "cas", "new_value", "IFEQ", "initial_value")
	expect(t, c, nil, "SET", "cas", "x", "IFEQ", "initial_value")
	expect(t, c, "new_value", "GET", "cas")
	expect(t, c, nil, "SET", "cas:none", "x", "IFEQ", "y")
	expect(t, c, int64(0), "EXISTS", "cas:none")
	expect(t, c, "new_value", "SET", "cas", "third", "IFEQ", "new_value", "GET", "PX", 100000)
	ttlIn(t, c, "cas", 1, 100000)
	expect(t, c, "third", "SET", "cas", "fourth", "IFEQ", "nope", "GET")
	expect(t, c, "OK", "SET", "cas", "fifth", "IFEQ", "third", "KEEPTTL")
	ttlIn(t, c, "cas", 1, 100000)
	expectErr(t, c, errSyntax, "SET", "cas", "v", "IFEQ", "a", "NX")
	expectErr(t, c, errSyntax, "SET", "cas", "v", "XX", "IFEQ", "a")
	expect(t, c, int64(1), "SADD", "cas:set", "m")
	expectErr(t, c, errWrongType, "SET", "cas:set", "v", "IFEQ", "m")
	expectErr(t, c, errWrongType, "SET", "cas:set", "v", "IFEQ", "m", "GET")

	expect(t, c, int64(0), "DELIFEQ", "cas", "nope")
	expect(t, c, int64(1), "DELIFEQ", "cas", "fifth")
	expect(t, c, int64(0), "DELIFEQ", "cas", "fifth")
	expectErr(t, c, errWrongType, "DELIFEQ", "cas:set", "m")
	expectErr(t, c, errArity("delifeq"), "DELIFEQ", "cas")
}

// The exact bytes of the new replies, in RESP2 and after HELLO 3.
func TestAfter70RawReplies(t *testing.T) {
	s := testserver.Start(t, testserver.Fsync("always"))
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			null := "$-1\r\n"
			if proto == "3" {
				null = "_\r\n"
				if got := r.do("HELLO", "3"); !strings.HasPrefix(got, "%") {
					t.Fatalf("HELLO 3: %q", got)
				}
			}
			p := "raw" + proto + ":"
			r.expect("+OK\r\n", "SET", p+"k", "a")
			r.expect(null, "SET", p+"k", "b", "IFEQ", "x")
			r.expect("+OK\r\n", "SET", p+"k", "b", "IFEQ", "a")
			r.expect(bulk("b"), "SET", p+"k", "c", "IFEQ", "b", "GET")
			r.expect(null, "SET", p+"none", "c", "IFEQ", "b", "GET")
			r.expect(":0\r\n", "DELIFEQ", p+"k", "b")
			r.expect(":1\r\n", "DELIFEQ", p+"k", "c")
			ints := func(n ...string) string {
				return "*" + strconv.Itoa(len(n)) + "\r\n:" + strings.Join(n, "\r\n:") + "\r\n"
			}
			// redis-cell's README example, then the same key again.
			r.expect(ints("0", "16", "15", "-1", "2"), "CL.THROTTLE", p+"user123", "15", "30", "60")
			r.expect(ints("0", "16", "14", "-1", "4"), "CL.THROTTLE", p+"user123", "15", "30", "60")
			// A burst of one: the second call waits the whole period.
			r.expect(ints("0", "1", "0", "-1", "60"), "CL.THROTTLE", p+"one", "0", "1", "60")
			r.expect(ints("1", "1", "0", "60", "60"), "CL.THROTTLE", p+"one", "0", "1", "60")
			// More than the burst at once is never admitted, nor retried.
			r.expect(ints("1", "3", "3", "-1", "0"), "CL.THROTTLE", p+"big", "2", "1", "60", "5")
			r.expect("-Cell error: Couldn't parse as integer: x\r\n", "CL.THROTTLE", p+"e", "x", "1", "1")
			r.expect("-Cell error: Zero rates are not supported\r\n", "CL.THROTTLE", p+"e", "1", "0", "1")
			// WAITAOF under fsync always: the reply leaves after the sync.
			r.expect(ints("1", "0"), "WAITAOF", "1", "0", "0")
			r.expect(ints("1", "0"), "WAITAOF", "1", "1", "50")
		})
	}
}

// WAITAOF under the other policies: everysec answers local 1 once the
// periodic fsync covered the write; no refuses numlocal as Redis refuses
// it with appendonly no.
func TestWaitaofPolicies(t *testing.T) {
	every := testserver.Start(t, testserver.Fsync("everysec")).Client(t)
	expect(t, every, "OK", "SET", "w", "1")
	start := time.Now()
	expect(t, every, []interface{}{int64(1), int64(0)}, "WAITAOF", "1", "0", "5000")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("WAITAOF 1 0 under everysec took %v", d)
	}
	none := testserver.Start(t, testserver.Fsync("no")).Client(t)
	expect(t, none, "OK", "SET", "w", "1")
	expectErr(t, none, "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.", "WAITAOF", "1", "0", "0")
	expect(t, none, []interface{}{int64(0), int64(0)}, "WAITAOF", "0", "0", "0")
	nolog := testserver.Start(t).Client(t)
	expectErr(t, nolog, "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.", "WAITAOF", "1", "0", "0")
}

// The new commands' effects reach a replica, WAITAOF counts it, and a
// limiter's state survives SIGKILL and a restart under fsync always.
func TestAfter70ReplicaAndCrash(t *testing.T) {
	p := startPrimary(t, 1)
	pc := p.Client(t, 0)
	r := startReplica(t, p, 1)
	rc := r.Client(t, 0)
	waitFor(t, 10*time.Second, "the replica's link", func() bool { return linkUp(rc) })

	expect(t, pc, "OK", "SET", "k", "v1")
	expect(t, pc, "OK", "SET", "k", "v2", "IFEQ", "v1")
	expect(t, pc, "OK", "SET", "d", "x")
	expect(t, pc, int64(1), "DELIFEQ", "d", "x")
	expect(t, pc, []interface{}{int64(0), int64(10), int64(9), int64(-1), int64(600)}, "CL.THROTTLE", "th", 9, 1, 600)
	expect(t, pc, []interface{}{int64(0), int64(10), int64(8), int64(-1), int64(1200)}, "CL.THROTTLE", "th", 9, 1, 600)
	expect(t, pc, []interface{}{int64(0), int64(1), int64(0), int64(-1), int64(600)}, "CL.THROTTLE", "one", 0, 1, 600)
	expect(t, pc, []interface{}{int64(1), int64(1)}, "WAITAOF", "1", "1", "0")
	expect(t, rc, "v2", "GET", "k")
	expect(t, rc, int64(0), "EXISTS", "d")
	expect(t, rc, value(t, pc, "GET", "th"), "GET", "th")
	ttlIn(t, rc, "th", 1190000, 1200000)
	expectErr(t, rc, "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.", "WAITAOF", "0", "0", "0")

	p.Kill(t)
	p = p.Restart(t)
	pc = p.Client(t, 0)
	expect(t, pc, "v2", "GET", "k")
	got := value(t, pc, "CL.THROTTLE", "th", 9, 1, 600).([]interface{})
	if len(got) != 5 || got[0] != int64(0) || got[1] != int64(10) || got[2] != int64(7) || got[3] != int64(-1) {
		t.Errorf("CL.THROTTLE after the restart: %v, want [0 10 7 -1 ~1800]", got)
	} else if reset := got[4].(int64); reset < 1750 || reset > 1800 {
		t.Errorf("reset after %d s after the restart, want about 1800", reset)
	}
	got = value(t, pc, "CL.THROTTLE", "one", 0, 1, 600).([]interface{})
	if len(got) != 5 || got[0] != int64(1) || got[2] != int64(0) {
		t.Errorf("a full limiter after the restart: %v, want limited", got)
	}
}

// On one shard and on four behind a ClusterClient: each key's limiter and
// compare-and-set run on its owner shard.
func TestAfter70Topologies(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			expect(t, c, []interface{}{int64(0), int64(3), int64(2), int64(-1), int64(60)}, "CL.THROTTLE", "top:"+k, 2, 1, 60)
			expect(t, c, "OK", "SET", "cas:"+k, "v")
			expect(t, c, "OK", "SET", "cas:"+k, "w", "IFEQ", "v")
			expect(t, c, int64(1), "DELIFEQ", "cas:"+k, "w")
		}
		for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			// The second call: one left, full again in 120 s less the time
			// since the first.
			got := value(t, c, "CL.THROTTLE", "top:"+k, 2, 1, 60).([]interface{})
			if len(got) != 5 || got[0] != int64(0) || got[2] != int64(1) || got[4].(int64) < 110 || got[4].(int64) > 120 {
				t.Errorf("second CL.THROTTLE of top:%s: %v, want [0 3 1 -1 ~120]", k, got)
			}
		}
	})
}
