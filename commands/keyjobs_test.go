package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/ruvio/ruvio/persistence"
)

// kjShard is a one-shard test server with a capturing journal.
func kjShard(t *testing.T) (*keyspace.Shard, *recJournal) {
	sh := newTestShard(t)
	return sh, attachJournal(sh)
}

// kjAt moves the shard's clock to testNowMs+ms.
func kjAt(sh *keyspace.Shard, ms int64) { sh.NowMs = testNowMs + ms }

// kjInt parses an integer reply.
func kjInt(t *testing.T, reply string) int64 {
	t.Helper()
	if !strings.HasPrefix(reply, ":") {
		t.Fatalf("want an integer reply, got %q", reply)
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(reply[1:], "\r\n"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const rWrongType = "-" + keyspace.ErrWrongType + "\r\n"

func TestKeyJobsLease(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rInt(1), "LEASE", "l", "1000")
	expectOps(t, j, "LEASE grant", persistence.OpLease)
	expect(t, sh, rNull, "LEASE", "l", "1000")
	expectOps(t, j, "LEASE while held")
	expect(t, sh, "+lease\r\n", "TYPE", "l")
	expect(t, sh, rWrongType, "GET", "l")
	expect(t, sh, rInt(-1), "PTTL", "l")
	expect(t, sh, rInt(0), "RELEASE", "l", "2")
	expect(t, sh, rInt(0), "RELEASE", "nokey", "1")
	expectOps(t, j, "RELEASE mismatch")
	expect(t, sh, rInt(1), "RELEASE", "l", "1")
	expectOps(t, j, "RELEASE", persistence.OpRelease)
	expect(t, sh, rInt(0), "RELEASE", "l", "1")
	// The token keeps counting across RELEASE and expiry.
	expect(t, sh, rInt(2), "LEASE", "l", "100")
	kjAt(sh, 99)
	expect(t, sh, rNull, "LEASE", "l", "100")
	kjAt(sh, 100) // the hold ends at its deadline
	expect(t, sh, rInt(0), "RELEASE", "l", "2")
	expect(t, sh, rInt(3), "LEASE", "l", "100")
	expect(t, sh, rInt(1), "RELEASE", "l", "3")
	// DEL restarts the count.
	expect(t, sh, rInt(1), "DEL", "l")
	expect(t, sh, rInt(1), "LEASE", "l", "100")
	j.take()

	expect(t, sh, rOK, "SET", "s", "v")
	j.take()
	expect(t, sh, rWrongType, "LEASE", "s", "100")
	expect(t, sh, rWrongType, "RELEASE", "s", "1")
	expect(t, sh, rErr("ERR invalid expire time in 'lease' command"), "LEASE", "x", "0")
	expect(t, sh, rErr("ERR invalid expire time in 'lease' command"), "LEASE", "x", "-5")
	expect(t, sh, rErr(keyspace.ErrNotInt), "LEASE", "x", "1.5")
	expect(t, sh, rErr(keyspace.ErrNotInt), "RELEASE", "l", "one")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("lease")), "LEASE", "x")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("release")), "RELEASE", "x", "1", "2")
	expect(t, sh, rInt(0), "EXISTS", "x")
	expectOps(t, j, "rejections")
}

func TestKeyJobsSemaphore(t *testing.T) {
	sh, j := kjShard(t)
	if unsafe.Sizeof(keyspace.SemHolder{}) != 16 {
		t.Fatalf("a holder takes %d bytes, want 16", unsafe.Sizeof(keyspace.SemHolder{}))
	}
	t1 := kjInt(t, run(t, sh, "SEMAPHORE", "s", "3", "1000"))
	if t1 < testNowMs*1e6 {
		t.Errorf("first token %d does not start from the clock", t1)
	}
	kjAt(sh, 10)
	expect(t, sh, rInt(t1+1), "SEMAPHORE", "s", "3", "2000")
	expect(t, sh, rInt(t1+2), "SEMAPHORE", "s", "3", "500")
	expectOps(t, j, "grants", persistence.OpSemaphoreAcquire, persistence.OpSemaphoreAcquire, persistence.OpSemaphoreAcquire)
	expect(t, sh, rNull, "SEMAPHORE", "s", "3", "1000")
	expectOps(t, j, "full")
	expect(t, sh, "+semaphore\r\n", "TYPE", "s")
	expect(t, sh, rWrongType, "GET", "s")
	e := sh.DBs[0].Find([]byte("s"))
	s := sh.DBs[0].Obj(e).(*keyspace.SemObj)
	if s.First.Token != t1 || len(s.More) != 2 || cap(s.More) != 2 {
		t.Errorf("holders: first %+v, more len %d cap %d", s.First, len(s.More), cap(s.More))
	}
	// The key's deadline is the latest holder deadline.
	if e.ExpireAt != testNowMs+2010 {
		t.Errorf("key deadline %d, want %d", e.ExpireAt, testNowMs+2010)
	}
	// Releasing the first holder moves the last one into the object.
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(t1, 10))
	expectOps(t, j, "release", persistence.OpSemaphoreRelease)
	if s.First.Token != t1+2 || len(s.More) != 1 || cap(s.More) != 1 {
		t.Errorf("after release: first %+v, more %v cap %d", s.First, s.More, cap(s.More))
	}
	expect(t, sh, rInt(0), "RELEASE", "s", strconv.FormatInt(t1, 10))
	expect(t, sh, rInt(0), "RELEASE", "s", "12345")
	expectOps(t, j, "stale release")
	// An expired holder frees its slot.
	kjAt(sh, 510)
	expect(t, sh, rInt(t1+3), "SEMAPHORE", "s", "2", "100")
	expect(t, sh, rNull, "SEMAPHORE", "s", "2", "100")
	expect(t, sh, rInt(0), "RELEASE", "s", strconv.FormatInt(t1+2, 10))
	// Releasing the holder with the latest deadline lowers the key's.
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(t1+1, 10))
	if e.ExpireAt != testNowMs+610 {
		t.Errorf("key deadline after release %d, want %d", e.ExpireAt, testNowMs+610)
	}
	// The key goes with its last holder.
	j.take()
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(t1+3, 10))
	expectOps(t, j, "last release", persistence.OpDel)
	expect(t, sh, rInt(0), "EXISTS", "s")
	// ... and after the last deadline even when nobody touches it: the
	// key deadline is the holder deadline, so expiry removes it.
	kjAt(sh, 1000)
	t2 := kjInt(t, run(t, sh, "SEMAPHORE", "s", "1", "50"))
	if t2 <= t1+3 {
		t.Errorf("a new incarnation's token %d is not above the old ones (%d)", t2, t1+3)
	}
	expect(t, sh, rInt(50), "PTTL", "s")
	kjAt(sh, 1050)
	expect(t, sh, rInt(0), "EXISTS", "s")

	expect(t, sh, rOK, "SET", "str", "v")
	expect(t, sh, rWrongType, "SEMAPHORE", "str", "1", "100")
	expect(t, sh, rErr(errPositiveMax), "SEMAPHORE", "x", "0", "100")
	expect(t, sh, rErr(keyspace.ErrNotInt), "SEMAPHORE", "x", "two", "100")
	expect(t, sh, rErr("ERR invalid expire time in 'semaphore' command"), "SEMAPHORE", "x", "1", "0")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("semaphore")), "SEMAPHORE", "x", "1")
	expect(t, sh, rInt(0), "EXISTS", "x")
}

func TestKeyJobsSemaphoreExactSlice(t *testing.T) {
	s := &keyspace.SemObj{}
	for i := int64(1); i <= 5; i++ {
		s.Add(keyspace.SemHolder{Token: i, Until: 100 * i})
		if n := s.Count(); n != int(i) || len(s.More) != cap(s.More) {
			t.Fatalf("after %d adds: count %d, more len %d cap %d", i, n, len(s.More), cap(s.More))
		}
	}
	for _, tok := range []int64{3, 1, 5, 2, 4} {
		if !s.Remove(tok) || len(s.More) != cap(s.More) {
			t.Fatalf("remove %d: more len %d cap %d", tok, len(s.More), cap(s.More))
		}
	}
	if s.Count() != 0 || s.More != nil {
		t.Fatalf("not empty: %+v", s)
	}
	for i := int64(1); i <= 4; i++ {
		s.Add(keyspace.SemHolder{Token: i, Until: 100 * i})
	}
	semObjPrune(s, 250)
	if s.Count() != 2 || len(s.More) != cap(s.More) || semObjLatest(s) != 400 {
		t.Fatalf("after prune: %+v", s)
	}
}

func TestKeyJobsSetV(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rInt(1), "SETV", "v", "a")
	expectOps(t, j, "create", persistence.OpSetV)
	expect(t, sh, rBulk("a"), "GET", "v")
	expect(t, sh, "+string\r\n", "TYPE", "v")
	expect(t, sh, rArr(rBulk("a"), rNull), "MGET", "v", "nokey")
	expect(t, sh, rInt(1), "STRLEN", "v")
	expect(t, sh, rErr(errSetVExists), "SETV", "v", "b")
	expect(t, sh, rErr(errSetVMismatch), "SETV", "v", "b", "2")
	expect(t, sh, rErr(errSetVNoKey), "SETV", "nokey", "b", "1")
	expect(t, sh, rErr(errSetVVersion), "SETV", "v", "b", "0")
	expect(t, sh, rErr(keyspace.ErrNotInt), "SETV", "v", "b", "x")
	expect(t, sh, rErr(keyspace.ErrSyntax), "SETV", "v", "b", "1", "extra")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("setv")), "SETV", "v")
	for _, c := range [][]string{{"INCR", "v"}, {"DECR", "v"}, {"INCRBY", "v", "1"}, {"DECRBY", "v", "1"},
		{"INCRBYFLOAT", "v", "1"}, {"INCRBY", "v", "1", "MAX", "10"}, {"TAKE", "v", "1"}, {"APPEND", "v", "x"}} {
		expect(t, sh, rWrongType, c...)
	}
	expect(t, sh, rBulk("a"), "GET", "v")
	expectOps(t, j, "rejections")
	expect(t, sh, rInt(1), "PEXPIRE", "v", "5000")
	j.take()
	expect(t, sh, rInt(2), "SETV", "v", "bb", "1")
	expectOps(t, j, "update", persistence.OpSetV)
	expect(t, sh, rBulk("bb"), "GET", "v")
	expect(t, sh, rInt(5000), "PTTL", "v") // SETV keeps the deadline
	expect(t, sh, rInt(3), "SETV", "v", "", "2")
	expect(t, sh, rBulk(""), "GET", "v")
	// A plain SET replaces it with a plain string.
	expect(t, sh, rOK, "SET", "v", "plain")
	expect(t, sh, rInt(1), "INCR", "n")
	expect(t, sh, rErr(errSetVExists), "SETV", "v", "x")
	expect(t, sh, rErr(errSetVMismatch), "SETV", "v", "x", "3")
	expect(t, sh, rErr(keyspace.ErrNotInt), "INCR", "v")
	expect(t, sh, rOK, "SET", "v", "5")
	expect(t, sh, rInt(6), "INCR", "v")
	expect(t, sh, rInt(1), "LEASE", "l", "100")
	expect(t, sh, rWrongType, "SETV", "l", "x")
}

func TestKeyJobsLimit(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rInt(2), "LIMIT", "l", "3", "1000")
	expect(t, sh, rInt(1000), "PTTL", "l")
	kjAt(sh, 400)
	expect(t, sh, rInt(1), "LIMIT", "l", "3", "1000")
	expect(t, sh, rInt(0), "LIMIT", "l", "3", "1000")
	expectOps(t, j, "admissions", persistence.OpLimit, persistence.OpLimit, persistence.OpLimit)
	expect(t, sh, rNull, "LIMIT", "l", "3", "1000")
	expect(t, sh, rNull, "LIMIT", "l", "3", "1000")
	expectOps(t, j, "rejections")
	expect(t, sh, rInt(600), "PTTL", "l") // the window is not moved
	expect(t, sh, "+limit\r\n", "TYPE", "l")
	expect(t, sh, rWrongType, "GET", "l")
	kjAt(sh, 999)
	expect(t, sh, rNull, "LIMIT", "l", "3", "1000")
	kjAt(sh, 1000)
	expect(t, sh, rInt(2), "LIMIT", "l", "3", "1000")
	expect(t, sh, rInt(0), "LIMIT", "one", "1", "10")
	expect(t, sh, rNull, "LIMIT", "one", "1", "10")
	expect(t, sh, rOK, "SET", "s", "1")
	expect(t, sh, rWrongType, "LIMIT", "s", "3", "1000")
	expect(t, sh, rErr(errPositiveMax), "LIMIT", "x", "0", "1000")
	expect(t, sh, rErr(keyspace.ErrNotInt), "LIMIT", "x", "a", "1000")
	expect(t, sh, rErr("ERR invalid expire time in 'limit' command"), "LIMIT", "x", "3", "0")
	expect(t, sh, rErr(keyspace.ErrNotInt), "LIMIT", "x", "3", "soon")
}

func TestKeyJobsOnce(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rInt(1), "ONCE", "o", "1000")
	expectOps(t, j, "first", persistence.OpOnce)
	kjAt(sh, 500)
	expect(t, sh, rInt(0), "ONCE", "o", "5000")
	expectOps(t, j, "later")
	expect(t, sh, rInt(500), "PTTL", "o") // not refreshed
	expect(t, sh, "+once\r\n", "TYPE", "o")
	expect(t, sh, rWrongType, "GET", "o")
	kjAt(sh, 1000)
	expect(t, sh, rInt(1), "ONCE", "o", "1000")
	expect(t, sh, rOK, "SET", "s", "1")
	expect(t, sh, rWrongType, "ONCE", "s", "100")
	expect(t, sh, rErr("ERR invalid expire time in 'once' command"), "ONCE", "x", "0")
	expect(t, sh, rErr(keyspace.ErrNotInt), "ONCE", "x", "x")
	if e := sh.DBs[0].Find([]byte("o")); e == nil || unsafe.Sizeof(sh.DBs[0].Obj(e).(keyspace.OnceObj)) != 0 {
		t.Error("a ONCE key should hold a zero-size value")
	}
}

func TestKeyJobsTake(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rOK, "SET", "t", "10", "PX", "5000")
	j.take()
	expect(t, sh, rInt(7), "TAKE", "t", "3")
	expectOps(t, j, "take", persistence.OpSet)
	expect(t, sh, rInt(5000), "PTTL", "t")
	expect(t, sh, rNull, "TAKE", "t", "8")
	expect(t, sh, rNull, "TAKE", "missing", "1")
	expectOps(t, j, "shortfall")
	expect(t, sh, rInt(0), "EXISTS", "missing")
	expect(t, sh, rInt(0), "TAKE", "t", "7")
	expect(t, sh, rBulk("0"), "GET", "t")
	expect(t, sh, rErr(errPositiveCount), "TAKE", "t", "0")
	expect(t, sh, rErr(errPositiveCount), "TAKE", "t", "-1")
	expect(t, sh, rErr(keyspace.ErrNotInt), "TAKE", "t", "x")
	expect(t, sh, rOK, "SET", "s", "abc")
	expect(t, sh, rWrongType, "TAKE", "s", "1")
	expect(t, sh, rInt(1), "LIMIT", "lim", "2", "100")
	expect(t, sh, rWrongType, "TAKE", "lim", "1")
	expect(t, sh, rErr(keyspace.ErrNotInt), "TAKE", "missing", "x")
}

func TestKeyJobsIncrbyMax(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rInt(5), "INCRBY", "c", "5", "MAX", "10")
	expect(t, sh, rInt(10), "INCRBY", "c", "5", "max", "10")
	expectOps(t, j, "accepted", persistence.OpSet, persistence.OpSet)
	expect(t, sh, rNull, "INCRBY", "c", "1", "MAX", "10")
	expect(t, sh, rNull, "INCRBY", "new", "11", "MAX", "10")
	expectOps(t, j, "rejected")
	expect(t, sh, rInt(0), "EXISTS", "new")
	expect(t, sh, rInt(7), "INCRBY", "c", "-3", "MAX", "10")
	expect(t, sh, rInt(12), "INCRBY", "c", "5") // plain INCRBY unchanged
	expect(t, sh, rNull, "INCRBY", "c", "-1", "MAX", "10")
	expect(t, sh, rErr(keyspace.ErrSyntax), "INCRBY", "c", "1", "MAX")
	expect(t, sh, rErr(keyspace.ErrSyntax), "INCRBY", "c", "1", "LIMIT", "10")
	expect(t, sh, rErr(keyspace.ErrSyntax), "INCRBY", "c", "1", "MAX", "10", "x")
	expect(t, sh, rErr(keyspace.ErrNotInt), "INCRBY", "c", "1", "MAX", "ten")
	expect(t, sh, rErr(keyspace.ErrNotInt), "INCRBY", "c", "one", "MAX", "10")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("incrby")), "INCRBY", "c")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("decrby")), "DECRBY", "c", "1", "MAX", "10")
	expect(t, sh, rOK, "SET", "big", "9223372036854775807")
	// A sum above every int64 is above every limit: a null rejection.
	j.take()
	expect(t, sh, rNull, "INCRBY", "big", "1", "MAX", "9223372036854775807")
	expect(t, sh, rNull, "INCRBY", "big", "9223372036854775807", "MAX", "9223372036854775807")
	expectOps(t, j, "INCRBY MAX past int64")
	expect(t, sh, rBulk("9223372036854775807"), "GET", "big")
	// A sum below every int64 is the INCRBY overflow error.
	expect(t, sh, rOK, "SET", "small", "-9223372036854775808")
	j.take()
	expect(t, sh, rErr(keyspace.ErrOverflow), "INCRBY", "small", "-1", "MAX", "0")
	expectOps(t, j, "INCRBY MAX below int64")
	expect(t, sh, rOK, "SET", "s", "x")
	expect(t, sh, rErr(keyspace.ErrNotInt), "INCRBY", "s", "1", "MAX", "10")
	expect(t, sh, rInt(1), "ONCE", "o", "100")
	expect(t, sh, rWrongType, "INCRBY", "o", "1", "MAX", "10")
}

func TestKeyJobsGetex(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rOK, "SET", "k", "v", "PX", "100")
	j.take()
	expect(t, sh, rBulk("v"), "GET", "k")
	expectOps(t, j, "GET")
	expect(t, sh, rInt(100), "PTTL", "k")
	expect(t, sh, rBulk("v"), "GETEX", "k", "5000")
	expectOps(t, j, "GETEX", persistence.OpExpire)
	expect(t, sh, rInt(5000), "PTTL", "k")
	expect(t, sh, rNull, "GETEX", "missing", "5000")
	expectOps(t, j, "GETEX missing")
	expect(t, sh, rInt(0), "EXISTS", "missing")
	expect(t, sh, rInt(1), "SETV", "v", "x")
	expect(t, sh, rBulk("x"), "GETEX", "v", "100")
	expect(t, sh, rInt(100), "PTTL", "v")
}

// idemRec builds the record bytes a test expects.
func idemRec(state byte, fp, owner, result string) string {
	return string(buildIdemRecord(state, []byte(fp), []byte(owner), []byte(result)))
}

func TestKeyJobsIdemStateMachine(t *testing.T) {
	sh, j := kjShard(t)
	acquired, pending, conflict := rArr(rBulk("acquired")), rArr(rBulk("pending")), rArr(rBulk("conflict"))
	completed := func(r string) string { return rArr(rBulk("completed"), rBulk(r)) }

	expect(t, sh, acquired, "IDEM", "k", "BEGIN", "fp", "own", "1000")
	expectOps(t, j, "acquire", persistence.OpIdempotencyPut)
	expect(t, sh, "+string\r\n", "TYPE", "k")
	expect(t, sh, rBulk(idemRec('P', "fp", "own", "")), "GET", "k")
	if n := len(sh.DBs[0].Val(sh.DBs[0].Find([]byte("k")))); n != 11+2+3 {
		t.Errorf("pending record is %d bytes, want %d", n, 11+2+3)
	}
	kjAt(sh, 100)
	expect(t, sh, pending, "IDEM", "k", "begin", "fp", "own", "99999")
	expect(t, sh, pending, "IDEM", "k", "BEGIN", "fp", "other", "1000")
	expect(t, sh, conflict, "IDEM", "k", "BEGIN", "fp2", "own", "1000")
	expect(t, sh, rInt(900), "PTTL", "k") // a longer retry TTL does not extend
	expect(t, sh, rInt(0), "IDEM", "k", "COMPLETE", "fp", "other", "r")
	expect(t, sh, rInt(0), "IDEM", "k", "COMPLETE", "fp2", "own", "r")
	expect(t, sh, rInt(0), "IDEM", "missing", "COMPLETE", "fp", "own", "r")
	expectOps(t, j, "probes")
	expect(t, sh, rInt(1), "IDEM", "k", "Complete", "fp", "own", "result\x00bytes")
	expectOps(t, j, "complete", persistence.OpIdempotencyPut)
	if n := len(sh.DBs[0].Val(sh.DBs[0].Find([]byte("k")))); n != 11+2+3+12 {
		t.Errorf("completed record is %d bytes, want %d", n, 11+2+3+12)
	}
	expect(t, sh, rInt(900), "PTTL", "k") // completion does not extend
	expect(t, sh, completed("result\x00bytes"), "IDEM", "k", "BEGIN", "fp", "another", "1000")
	expect(t, sh, conflict, "IDEM", "k", "BEGIN", "fpX", "own", "1000")
	expect(t, sh, rInt(1), "IDEM", "k", "COMPLETE", "fp", "own", "result\x00bytes")
	expect(t, sh, rInt(0), "IDEM", "k", "COMPLETE", "fp", "own", "changed")
	expect(t, sh, rInt(0), "IDEM", "k", "COMPLETE", "fp", "other", "result\x00bytes")
	expectOps(t, j, "repeats")
	expect(t, sh, rBulk(idemRec('C', "fp", "own", "result\x00bytes")), "GET", "k")
	// Expired: the next BEGIN acquires again.
	kjAt(sh, 1000)
	expect(t, sh, rInt(0), "IDEM", "k", "COMPLETE", "fp", "own", "result\x00bytes")
	expect(t, sh, acquired, "IDEM", "k", "BEGIN", "fp2", "own2", "10")
	// An empty result is a result.
	expect(t, sh, rInt(1), "IDEM", "k", "COMPLETE", "fp2", "own2", "")
	expect(t, sh, completed(""), "IDEM", "k", "BEGIN", "fp2", "x", "10")
	expect(t, sh, rInt(1), "IDEM", "k", "COMPLETE", "fp2", "own2", "")
}

func TestKeyJobsIdemErrors(t *testing.T) {
	sh, j := kjShard(t)
	long := strings.Repeat("f", 129)
	maxTok := strings.Repeat("f", 128)
	expect(t, sh, rErr(errIdemAction), "IDEM", "k", "ABORT", "fp", "own", "1000")
	expect(t, sh, rErr(errIdemFP), "IDEM", "k", "BEGIN", "", "own", "1000")
	expect(t, sh, rErr(errIdemFP), "IDEM", "k", "BEGIN", long, "own", "1000")
	expect(t, sh, rErr(errIdemOwner), "IDEM", "k", "BEGIN", "fp", "", "1000")
	expect(t, sh, rErr(errIdemOwner), "IDEM", "k", "COMPLETE", "fp", long, "r")
	for _, ttl := range []string{"0", "-1", "604800001", "1.5", "x", ""} {
		expect(t, sh, rErr(errIdemTTL), "IDEM", "k", "BEGIN", "fp", "own", ttl)
	}
	expect(t, sh, rErr(keyspace.ErrWrongArgs("idem")), "IDEM", "k", "BEGIN", "fp", "own")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("idem")), "IDEM", "k", "BEGIN", "fp", "own", "1", "x")
	expect(t, sh, rErr(errIdemResult), "IDEM", "k", "COMPLETE", "fp", "own", strings.Repeat("r", keyspace.IdemMaxResult+1))
	expect(t, sh, rInt(0), "EXISTS", "k")
	expectOps(t, j, "argument errors")

	// Bounds that are allowed.
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "b", "BEGIN", maxTok, maxTok, "604800000")
	big := strings.Repeat("r", keyspace.IdemMaxResult)
	expect(t, sh, rInt(1), "IDEM", "b", "COMPLETE", maxTok, maxTok, big)
	if n := len(sh.DBs[0].Val(sh.DBs[0].Find([]byte("b")))); n != 11+256+keyspace.IdemMaxResult {
		t.Errorf("largest record is %d bytes", n)
	}
	// proto-max-bulk-len must admit result + tokens + 11.
	expect(t, sh, rOK, "CONFIG", "SET", "proto-max-bulk-len", "1048576")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "p", "BEGIN", "fp", "own", "1000")
	j.take()
	expect(t, sh, rErr("ERR IDEM record of 1048577 bytes exceeds proto-max-bulk-len (1048576)"),
		"IDEM", "p", "COMPLETE", "fp", "own", strings.Repeat("r", 1048576-11-5+1))
	expect(t, sh, rInt(1), "IDEM", "p", "COMPLETE", "fp", "own", strings.Repeat("r", 1048576-11-5))
	expectOps(t, j, "limit", persistence.OpIdempotencyPut)

	// Fail closed on anything that is not a live, well-formed record.
	expect(t, sh, rOK, "SET", "plain", "hello")
	expect(t, sh, rErr(errIdemMalformed), "IDEM", "plain", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rErr(errIdemMalformed), "IDEM", "plain", "COMPLETE", "fp", "own", "r")
	expect(t, sh, rBulk("hello"), "GET", "plain")
	expect(t, sh, rInt(1), "SETV", "sv", "x")
	expect(t, sh, rErr(errIdemMalformed), "IDEM", "sv", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "LEASE", "ls", "1000")
	expect(t, sh, rWrongType, "IDEM", "ls", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rWrongType, "IDEM", "ls", "COMPLETE", "fp", "own", "r")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "n", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "PERSIST", "n")
	j.take()
	expect(t, sh, rErr(errIdemNoTTL), "IDEM", "n", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rErr(errIdemNoTTL), "IDEM", "n", "COMPLETE", "fp", "own", "r")
	// A record rewritten by SET with a deadline but a damaged header.
	bad := []byte(idemRec('P', "fp", "own", ""))
	bad[9] ^= 1
	expect(t, sh, rOK, "SET", "bad", string(bad), "PX", "1000")
	j.take()
	expect(t, sh, rErr(errIdemMalformed), "IDEM", "bad", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rErr(errIdemMalformed), "IDEM", "bad", "COMPLETE", "fp", "own", "r")
	expect(t, sh, rBulk(string(bad)), "GET", "bad")
	expectOps(t, j, "fail closed")
	// A record SET back verbatim with a TTL is a record again.
	expect(t, sh, rOK, "SET", "copy", idemRec('C', "fp", "own", "res"), "PX", "1000")
	expect(t, sh, rArr(rBulk("completed"), rBulk("res")), "IDEM", "copy", "BEGIN", "fp", "own", "1000")
}

func TestKeyJobsIdemRecordParsing(t *testing.T) {
	good := buildIdemRecord(keyspace.IdemCompleted, []byte("fingerprint"), []byte("owner"), []byte("result"))
	r, ok := parseIdemRecord(good)
	if !ok || string(r.fp) != "fingerprint" || string(r.owner) != "owner" || string(r.result) != "result" || r.state != keyspace.IdemCompleted {
		t.Fatalf("parse %q: %+v %v", good, r, ok)
	}
	// Any single-byte change to the header, and any change of length, is
	// rejected.
	for i := 0; i < keyspace.IdemHeaderLen; i++ {
		for _, d := range []byte{1, 0x80, 0xFF} {
			b := bytes.Clone(good)
			b[i] ^= d
			if _, ok := parseIdemRecord(b); ok {
				t.Errorf("byte %d ^ %#x accepted", i, d)
			}
		}
	}
	for _, b := range [][]byte{good[:len(good)-1], append(bytes.Clone(good), 'x'), nil, good[:keyspace.IdemHeaderLen], []byte("hello world")} {
		if _, ok := parseIdemRecord(b); ok {
			t.Errorf("%q accepted", b)
		}
	}
	// A pending record with a result is not a record.
	p := buildIdemRecord(keyspace.IdemPending, []byte("f"), []byte("o"), []byte("r"))
	if _, ok := parseIdemRecord(p); ok {
		t.Error("pending record with a result accepted")
	}
	// HTTP middleware sizes: 64-byte digest and 32-byte owner.
	if n := len(buildIdemRecord(keyspace.IdemPending, make([]byte, 64), make([]byte, 32), nil)); n != 107 {
		t.Errorf("pending HTTP record is %d bytes, want 107", n)
	}
}

func TestKeyJobsChanges(t *testing.T) {
	sh, _ := kjShard(t)
	expect(t, sh, rOK, "SET", "before", "1")
	if stateOf(sh).changes != nil {
		t.Fatal("the feed exists before CHANGES START")
	}
	expect(t, sh, rErr("ERR CHANGES is not started on this shard (the feed is empty after a restart); resync and call CHANGES START"), "CHANGES", "0")
	c0 := kjInt(t, run(t, sh, "CHANGES", "START"))
	if c0 != testNowMs<<20 {
		t.Errorf("first cursor %d", c0)
	}
	expect(t, sh, rArr(), "CHANGES", strconv.FormatInt(c0, 10))
	expect(t, sh, rOK, "SET", "a", "1")
	expect(t, sh, rInt(1), "SETV", "v", "x")
	expect(t, sh, rInt(2), "SETV", "v", "y", "1")
	expect(t, sh, rInt(1), "LEASE", "l", "1000")
	expect(t, sh, rInt(1), "RELEASE", "l", "1")
	expect(t, sh, rInt(1), "INCR", "n")                      // not noted
	expect(t, sh, rInt(1), "ONCE", "o", "100")               // not noted
	expect(t, sh, rInt(0), "RELEASE", "l", "1")              // rejected: not noted
	expect(t, sh, rNull, "SET", "a", "2", "NX")              // not written: not noted
	s := kjInt(t, run(t, sh, "SEMAPHORE", "s", "2", "1000")) // not noted
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(s, 10))
	note := func(c int64, cmd, key, detail string) string {
		return rArr(rInt(c), rBulk(cmd), rBulk(key), detail)
	}
	all := []string{
		note(c0+1, "SET", "a", rNull),
		note(c0+2, "SETV", "v", rInt(1)),
		note(c0+3, "SETV", "v", rInt(2)),
		note(c0+4, "LEASE", "l", rInt(1)),
		note(c0+5, "RELEASE", "l", rInt(1)),
		note(c0+6, "RELEASE", "s", rInt(s)),
	}
	expect(t, sh, rArr(all...), "CHANGES", strconv.FormatInt(c0, 10))
	expect(t, sh, rArr(all[3:]...), "CHANGES", strconv.FormatInt(c0+3, 10))
	expect(t, sh, rArr(), "CHANGES", strconv.FormatInt(c0+6, 10))
	// START again keeps the feed and returns its newest cursor.
	expect(t, sh, rInt(c0+6), "CHANGES", "start")
	expect(t, sh, rErr("ERR CHANGES cursor "+strconv.FormatInt(c0+7, 10)+" is ahead of this shard's feed (last "+strconv.FormatInt(c0+6, 10)+"); resync and call CHANGES START"),
		"CHANGES", strconv.FormatInt(c0+7, 10))
	expect(t, sh, rErr("ERR CHANGES cursor "+strconv.FormatInt(c0-1, 10)+" has fallen out of the buffer (oldest held "+strconv.FormatInt(c0+1, 10)+"); resync and call CHANGES START"),
		"CHANGES", strconv.FormatInt(c0-1, 10))
	expect(t, sh, rErr("ERR CHANGES takes START or a cursor returned by this shard"), "CHANGES", "soon")
	expect(t, sh, rErr(keyspace.ErrWrongArgs("changes")), "CHANGES")

	// At most 1024 notes per call; the ring keeps changes_capacity notes.
	for i := 0; i < 1500; i++ {
		run(t, sh, "SET", "k", "v")
	}
	got := run(t, sh, "CHANGES", strconv.FormatInt(c0+6, 10))
	if !strings.HasPrefix(got, "*1024\r\n") {
		t.Errorf("CHANGES returned %.20q", got)
	}
}

func TestKeyJobsChangesCapacity(t *testing.T) {
	sh, _ := kjShard(t)
	sh.Srv.Opts.Config.Keyspace.ChangesCapacity = 4
	c0 := kjInt(t, run(t, sh, "CHANGES", "START"))
	for i := 0; i < 6; i++ {
		run(t, sh, "SET", "k"+strconv.Itoa(i), "v")
	}
	if len(stateOf(sh).changes.Notes) != 4 {
		t.Fatalf("ring of %d notes", len(stateOf(sh).changes.Notes))
	}
	expect(t, sh, rErr("ERR CHANGES cursor "+strconv.FormatInt(c0+1, 10)+" has fallen out of the buffer (oldest held "+strconv.FormatInt(c0+3, 10)+"); resync and call CHANGES START"),
		"CHANGES", strconv.FormatInt(c0+1, 10))
	note := func(c int64, key string) string { return rArr(rInt(c), rBulk("SET"), rBulk(key), rNull) }
	expect(t, sh, rArr(note(c0+3, "k2"), note(c0+4, "k3"), note(c0+5, "k4"), note(c0+6, "k5")), "CHANGES", strconv.FormatInt(c0+2, 10))
}

func TestKeyJobsCommandTable(t *testing.T) {
	sh := newTestShard(t)
	for _, tc := range []struct {
		name string
		fast bool
	}{{"lease", true}, {"release", false}, {"semaphore", false}, {"limit", true}, {"once", true},
		{"take", true}, {"setv", false}, {"idem", false}, {"incrby", true}} {
		c := sh.Srv.Cmds[tc.name]
		if c == nil {
			t.Fatalf("%s is not registered", tc.name)
		}
		cats := strings.Join(c.ACLCategories(), " ")
		if !strings.Contains(cats, "write") || strings.Contains(cats, "fast") != tc.fast {
			t.Errorf("%s categories %q", tc.name, cats)
		}
		if c.FirstKey != 1 || c.LastKey != 1 {
			t.Errorf("%s key positions %d %d", tc.name, c.FirstKey, c.LastKey)
		}
	}
	// The commands that can create a key are refused under memory
	// pressure (write admission); the ones that only shrink or drop state
	// are not.
	for name, deny := range map[string]bool{"lease": true, "semaphore": true, "limit": true, "once": true,
		"setv": true, "idem": true, "incrby": true, "release": false, "take": false} {
		if got := sh.Srv.Cmds[name].Flags&keyspace.FlagDenyOOM != 0; got != deny {
			t.Errorf("%s denyoom %v, want %v", name, got, deny)
		}
	}
	// The contract: "+@write" covers IDEM, and no native key job is
	// dangerous (a user with "+@all -@dangerous" runs them all).
	for _, name := range []string{"lease", "release", "semaphore", "limit", "once", "take", "setv", "idem", "changes"} {
		cats := sh.Srv.Cmds[name].ACLCategories()
		if slices.Contains(cats, "dangerous") || slices.Contains(cats, "admin") {
			t.Errorf("%s categories %v include dangerous or admin", name, cats)
		}
	}
	if !slices.Contains(sh.Srv.Cmds["idem"].ACLCategories(), "write") {
		t.Error("IDEM is not in @write")
	}
	if sh.Srv.Cmds["changes"].FirstKey != 0 {
		t.Error("CHANGES takes no key")
	}
	// GETEX key ms is a write (it moves a deadline) and O(1). CHANGES
	// changes no key: it is a read of the shard's feed.
	if cats := strings.Join(sh.Srv.Cmds["getex"].ACLCategories(), " "); cats != "write fast string" {
		t.Errorf("getex categories %q", cats)
	}
	if cats := strings.Join(sh.Srv.Cmds["changes"].ACLCategories(), " "); cats != "read slow keyspace" {
		t.Errorf("changes categories %q", cats)
	}
}

func TestKeyJobsCopyRenameObject(t *testing.T) {
	sh := newTestShard(t)
	run(t, sh, "LEASE", "l", "1000")
	run(t, sh, "SEMAPHORE", "s", "2", "1000")
	run(t, sh, "SETV", "v", "x")
	run(t, sh, "LIMIT", "m", "5", "1000")
	run(t, sh, "ONCE", "o", "1000")
	for _, k := range []string{"l", "s", "v", "m", "o"} {
		typ := run(t, sh, "TYPE", k)
		expect(t, sh, rInt(1), "COPY", k, k+"2")
		expect(t, sh, typ, "TYPE", k+"2")
		expect(t, sh, rOK, "RENAME", k+"2", k+"3")
		expect(t, sh, typ, "TYPE", k+"3")
	}
	expect(t, sh, rBulk("lease"), "OBJECT", "ENCODING", "l")
	expect(t, sh, rBulk("embstr"), "OBJECT", "ENCODING", "v")
	// COPY is deep: changing the copy leaves the source alone.
	expect(t, sh, rInt(2), "SETV", "v3", "y", "1")
	expect(t, sh, rBulk("x"), "GET", "v")
	expect(t, sh, rNull, "LEASE", "l3", "10") // the copy is held too
}

// TestKeyJobsSemaphoreDeadline checks that every grant and release leaves
// the key's deadline at its latest live holder's, even after a client
// removed or moved it, and that the active expiry cycle removes the key at
// that deadline without anyone touching it.
func TestKeyJobsSemaphoreDeadline(t *testing.T) {
	sh, j := kjShard(t)
	db := sh.DBs[0]
	deadline := func() int64 { return db.Find([]byte("s")).ExpireAt - testNowMs }
	t1 := kjInt(t, run(t, sh, "SEMAPHORE", "s", "3", "100"))
	if d := deadline(); d != 100 {
		t.Fatalf("deadline %d", d)
	}
	kjAt(sh, 10)
	expect(t, sh, rInt(t1+1), "SEMAPHORE", "s", "3", "500")
	if d := deadline(); d != 510 {
		t.Fatalf("deadline %d, want 510", d)
	}
	expect(t, sh, rInt(1), "PERSIST", "s")
	expect(t, sh, rInt(t1+2), "SEMAPHORE", "s", "3", "50")
	if d := deadline(); d != 510 {
		t.Errorf("after PERSIST and a grant: deadline %d, want 510", d)
	}
	expect(t, sh, rInt(1), "PEXPIRE", "s", "100000")
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(t1+2, 10))
	if d := deadline(); d != 510 {
		t.Errorf("after PEXPIRE and a release: deadline %d, want 510", d)
	}
	expect(t, sh, rInt(1), "PERSIST", "s")
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(t1+1, 10))
	if d := deadline(); d != 100 {
		t.Errorf("after PERSIST and a release: deadline %d, want 100", d)
	}
	// The records replay to the same deadline.
	recs := append([]persistence.Record(nil), j.recs...)
	if got, want := kjState(kjReplay(t, recs), sh.NowMs), kjState(sh, sh.NowMs); got != want {
		t.Errorf("replay differs:\n got  %s\n want %s", got, want)
	}
	// Untouched: at the last holder's deadline the active expiry cycle
	// removes the key; nothing looks it up.
	kjAt(sh, 99)
	sh.ActiveExpireCycle()
	if db.Find([]byte("s")) == nil {
		t.Fatal("the key went before its last holder's deadline")
	}
	kjAt(sh, 100)
	for i := 0; i < 10 && db.Find([]byte("s")) != nil; i++ {
		sh.ActiveExpireCycle()
	}
	if db.Find([]byte("s")) != nil || db.Len() != 0 {
		t.Error("the semaphore outlived its last holder's deadline")
	}
}

// TestKeyJobsSemaphoreCopyExact checks that a copied semaphore keeps the
// exactly sized holder slice (append would round its capacity up).
func TestKeyJobsSemaphoreCopyExact(t *testing.T) {
	sh := newTestShard(t)
	for i := 0; i < 18; i++ {
		if r := run(t, sh, "SEMAPHORE", "s", "100", "1000"); !strings.HasPrefix(r, ":") {
			t.Fatal(r)
		}
	}
	expect(t, sh, rInt(1), "COPY", "s", "s2")
	for _, k := range []string{"s", "s2"} {
		s := sh.DBs[0].Obj(sh.DBs[0].Find([]byte(k))).(*keyspace.SemObj)
		if s.Count() != 18 || len(s.More) != 17 || cap(s.More) != 17 {
			t.Errorf("%s: %d holders, more len %d cap %d", k, s.Count(), len(s.More), cap(s.More))
		}
	}
}

// TestKeyJobsBoundaries checks the expiry boundaries: a deadline of now+ttl
// is live until the millisecond before it and gone at it.
func TestKeyJobsBoundaries(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rInt(1), "ONCE", "o", "1000")
	kjAt(sh, 999)
	expect(t, sh, rInt(0), "ONCE", "o", "1000")
	expect(t, sh, rInt(1), "PTTL", "o")
	kjAt(sh, 1000)
	expect(t, sh, rInt(1), "ONCE", "o", "1000")
	expect(t, sh, rInt(1000), "PTTL", "o")

	kjAt(sh, 0)
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "i", "BEGIN", "fp", "own", "1000")
	kjAt(sh, 999)
	expect(t, sh, rArr(rBulk("pending")), "IDEM", "i", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "IDEM", "i", "COMPLETE", "fp", "own", "r")
	expect(t, sh, rInt(1), "PTTL", "i")
	kjAt(sh, 1000)
	expect(t, sh, rInt(0), "IDEM", "i", "COMPLETE", "fp", "own", "r")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "i", "BEGIN", "fp", "own", "1")
	kjAt(sh, 1001)
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "i", "BEGIN", "fp", "own", "1")

	// LIMIT: rejections do not count, so a higher max admits exactly the
	// calls it adds.
	kjAt(sh, 0)
	expect(t, sh, rInt(2), "LIMIT", "m", "3", "1000")
	expect(t, sh, rInt(1), "LIMIT", "m", "3", "1000")
	expect(t, sh, rInt(0), "LIMIT", "m", "3", "1000")
	for i := 0; i < 5; i++ {
		expect(t, sh, rNull, "LIMIT", "m", "3", "1000")
	}
	expect(t, sh, rInt(1), "LIMIT", "m", "5", "1000")
	expect(t, sh, rInt(0), "LIMIT", "m", "5", "1000")
	expect(t, sh, rNull, "LIMIT", "m", "5", "1000")
	expect(t, sh, rNull, "LIMIT", "m", "2", "1000")
	kjAt(sh, 999)
	expect(t, sh, rNull, "LIMIT", "m", "5", "1000")
	kjAt(sh, 1000)
	expect(t, sh, rInt(4), "LIMIT", "m", "5", "1000")

	// LEASE: a hold ends at its deadline; the token still counts on.
	kjAt(sh, 0)
	expect(t, sh, rInt(1), "LEASE", "l", "1")
	expect(t, sh, rNull, "LEASE", "l", "1")
	kjAt(sh, 1)
	expect(t, sh, rInt(0), "RELEASE", "l", "1")
	expect(t, sh, rInt(2), "LEASE", "l", "1")
	j.take()
}

// TestKeyJobsIdemBinaryTokens checks that fingerprints, owners and results
// are compared byte for byte, NUL and high bytes included.
func TestKeyJobsIdemBinaryTokens(t *testing.T) {
	sh, _ := kjShard(t)
	fp, owner, result := "\x00\xff\r\n", "\x00", "\x00\x01\xfe\xff\r\n"
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "b", "BEGIN", fp, owner, "1000")
	expect(t, sh, rArr(rBulk("conflict")), "IDEM", "b", "BEGIN", "\x00\xff\r", owner, "1000")
	expect(t, sh, rArr(rBulk("conflict")), "IDEM", "b", "BEGIN", "\x00\xfe\r\n", owner, "1000")
	expect(t, sh, rArr(rBulk("pending")), "IDEM", "b", "BEGIN", fp, "\x01", "1000")
	expect(t, sh, rInt(0), "IDEM", "b", "COMPLETE", fp, "\x00\x00", result)
	expect(t, sh, rInt(1), "IDEM", "b", "COMPLETE", fp, owner, result)
	expect(t, sh, rArr(rBulk("completed"), rBulk(result)), "IDEM", "b", "BEGIN", fp, "x", "1000")
	expect(t, sh, rInt(0), "IDEM", "b", "COMPLETE", fp, owner, result[:len(result)-1])
	expect(t, sh, rBulk(idemRec('C', fp, owner, result)), "GET", "b")
	expect(t, sh, rInt(int64(11+len(fp)+len(owner)+len(result))), "STRLEN", "b")
}

// TestKeyJobsChangesCost checks that recording notes allocates nothing and
// that a shard that never ran CHANGES START has no feed at all.
func TestKeyJobsChangesCost(t *testing.T) {
	sh := newTestShard(t)
	sh.Journal = &countJournal{}
	sh.Ctx.W.Buf = make([]byte, 0, 4096)
	set, lease, release := toArgv("SET", "k", "v"), toArgv("LEASE", "l", "1000"), toArgv("RELEASE", "l", "0")
	tok := make([]byte, 0, 20)
	cycle := func() {
		execArgv(sh, set)
		leaseGrantRelease(sh, lease, release, tok)
	}
	cycle()
	if stateOf(sh).changes != nil {
		t.Fatal("a feed exists before CHANGES START")
	}
	if a := testing.AllocsPerRun(100, cycle); a != 0 {
		t.Errorf("before START: %.1f allocations", a)
	}
	execArgv(sh, toArgv("CHANGES", "START"))
	if a := testing.AllocsPerRun(100, cycle); a != 0 {
		t.Errorf("with the feed armed: %.1f allocations", a)
	}
	if got := stateOf(sh).changes.Last - stateOf(sh).changes.Base; got != 3*101 {
		t.Errorf("%d notes, want %d", got, 3*101)
	}
}
