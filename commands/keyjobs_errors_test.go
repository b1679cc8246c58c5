package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"
	"testing"
)

// Tests of the exact replies of the key jobs: every error and every
// rejection, each checked to change nothing (no WAL record, key, value,
// deadline or CHANGES note), and the reply types under RESP3.

// kjFixture fills a shard with one key of every key-job type (and the
// strings the jobs read), for the tables that check that errors and
// rejections change nothing. It returns the first semaphore token.
func kjFixture(t *testing.T, sh *keyspace.Shard) int64 {
	t.Helper()
	bad := []byte(idemRec('P', "fp", "own", ""))
	bad[9] ^= 1
	expect(t, sh, rInt(1), "LEASE", "l", "1000")
	t1 := kjInt(t, run(t, sh, "SEMAPHORE", "s", "2", "1000"))
	expect(t, sh, rInt(1), "SETV", "v", "a")
	expect(t, sh, rInt(2), "LIMIT", "m", "3", "1000")
	expect(t, sh, rInt(1), "ONCE", "o", "1000")
	expect(t, sh, rOK, "SET", "n", "10", "PX", "5000")
	expect(t, sh, rOK, "SET", "str", "hello")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "i", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "c", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "IDEM", "c", "COMPLETE", "fp", "own", "res")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "p", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "PERSIST", "p")
	expect(t, sh, rOK, "SET", "bad", string(bad), "PX", "1000")
	return t1
}

// TestKeyJobsErrorsChangeNothing checks the exact text of every error a
// key job replies, and that no error writes a WAL record, changes a key,
// value or deadline, creates a key or adds a CHANGES note.
func TestKeyJobsErrorsChangeNothing(t *testing.T) {
	sh, j := kjShard(t)
	kjFixture(t, sh)
	cur := kjInt(t, run(t, sh, "CHANGES", "START"))
	j.take()
	before := kjState(sh, sh.NowMs)
	invalid := func(cmd string) string { return "ERR invalid expire time in '" + cmd + "' command" }
	tok129 := strings.Repeat("t", 129)
	for _, tc := range []struct {
		err  string
		args []string
	}{
		// LEASE / RELEASE
		{invalid("lease"), []string{"LEASE", "x", "0"}},
		{invalid("lease"), []string{"LEASE", "x", "-1"}},
		{invalid("lease"), []string{"LEASE", "x", "9223372036854775807"}},
		{keyspace.ErrNotInt, []string{"LEASE", "x", "1.5"}},
		{keyspace.ErrNotInt, []string{"LEASE", "x", "soon"}},
		{keyspace.ErrWrongArgs("lease"), []string{"LEASE", "x"}},
		{keyspace.ErrWrongArgs("lease"), []string{"LEASE", "x", "1", "2"}},
		{keyspace.ErrWrongType, []string{"LEASE", "str", "100"}},
		{keyspace.ErrWrongType, []string{"LEASE", "v", "100"}},
		{keyspace.ErrWrongType, []string{"LEASE", "s", "100"}},
		{keyspace.ErrWrongType, []string{"LEASE", "i", "100"}},
		{keyspace.ErrNotInt, []string{"RELEASE", "l", "x"}},
		{keyspace.ErrNotInt, []string{"RELEASE", "missing", "x"}},
		{keyspace.ErrWrongType, []string{"RELEASE", "str", "1"}},
		{keyspace.ErrWrongType, []string{"RELEASE", "v", "1"}},
		{keyspace.ErrWrongType, []string{"RELEASE", "m", "1"}},
		{keyspace.ErrWrongType, []string{"RELEASE", "o", "1"}},
		{keyspace.ErrWrongArgs("release"), []string{"RELEASE", "l"}},
		// SEMAPHORE
		{errPositiveMax, []string{"SEMAPHORE", "x", "0", "100"}},
		{errPositiveMax, []string{"SEMAPHORE", "s", "-1", "100"}},
		{keyspace.ErrNotInt, []string{"SEMAPHORE", "x", "two", "100"}},
		{invalid("semaphore"), []string{"SEMAPHORE", "x", "1", "0"}},
		{invalid("semaphore"), []string{"SEMAPHORE", "s", "5", "-3"}},
		{keyspace.ErrNotInt, []string{"SEMAPHORE", "x", "1", "soon"}},
		{keyspace.ErrWrongType, []string{"SEMAPHORE", "l", "5", "100"}},
		{keyspace.ErrWrongType, []string{"SEMAPHORE", "str", "5", "100"}},
		{keyspace.ErrWrongArgs("semaphore"), []string{"SEMAPHORE", "x", "1"}},
		// LIMIT
		{errPositiveMax, []string{"LIMIT", "x", "0", "100"}},
		{errPositiveMax, []string{"LIMIT", "m", "-2", "100"}},
		{keyspace.ErrNotInt, []string{"LIMIT", "x", "a", "100"}},
		{invalid("limit"), []string{"LIMIT", "x", "3", "0"}},
		{invalid("limit"), []string{"LIMIT", "m", "3", "-1"}},
		{keyspace.ErrNotInt, []string{"LIMIT", "x", "3", "soon"}},
		{keyspace.ErrWrongType, []string{"LIMIT", "str", "3", "100"}},
		{keyspace.ErrWrongType, []string{"LIMIT", "o", "3", "100"}},
		{keyspace.ErrWrongType, []string{"LIMIT", "s", "3", "100"}},
		{keyspace.ErrWrongArgs("limit"), []string{"LIMIT", "x", "3"}},
		// ONCE
		{invalid("once"), []string{"ONCE", "x", "0"}},
		{invalid("once"), []string{"ONCE", "o", "-1"}},
		{keyspace.ErrNotInt, []string{"ONCE", "x", "x"}},
		{keyspace.ErrWrongType, []string{"ONCE", "m", "100"}},
		{keyspace.ErrWrongType, []string{"ONCE", "str", "100"}},
		{keyspace.ErrWrongArgs("once"), []string{"ONCE", "x"}},
		// TAKE
		{errPositiveCount, []string{"TAKE", "n", "0"}},
		{errPositiveCount, []string{"TAKE", "n", "-1"}},
		{errPositiveCount, []string{"TAKE", "missing", "0"}},
		{keyspace.ErrNotInt, []string{"TAKE", "n", "x"}},
		{keyspace.ErrNotInt, []string{"TAKE", "n", "1.5"}},
		{keyspace.ErrWrongType, []string{"TAKE", "str", "1"}},
		{keyspace.ErrWrongType, []string{"TAKE", "v", "1"}},
		{keyspace.ErrWrongType, []string{"TAKE", "l", "1"}},
		{keyspace.ErrWrongType, []string{"TAKE", "c", "1"}},
		{keyspace.ErrWrongArgs("take"), []string{"TAKE", "n"}},
		// INCRBY … MAX
		{keyspace.ErrSyntax, []string{"INCRBY", "n", "1", "MAX"}},
		{keyspace.ErrSyntax, []string{"INCRBY", "n", "1", "CAP", "10"}},
		{keyspace.ErrSyntax, []string{"INCRBY", "n", "1", "MAX", "10", "x"}},
		{keyspace.ErrNotInt, []string{"INCRBY", "n", "1", "MAX", "ten"}},
		{keyspace.ErrNotInt, []string{"INCRBY", "n", "one", "MAX", "10"}},
		{keyspace.ErrNotInt, []string{"INCRBY", "str", "1", "MAX", "10"}},
		{keyspace.ErrWrongType, []string{"INCRBY", "v", "1", "MAX", "10"}},
		{keyspace.ErrWrongType, []string{"INCRBY", "l", "1", "MAX", "10"}},
		{keyspace.ErrWrongArgs("decrby"), []string{"DECRBY", "n", "1", "MAX", "10"}},
		// SETV
		{errSetVExists, []string{"SETV", "v", "b"}},
		{errSetVExists, []string{"SETV", "str", "b"}},
		{errSetVMismatch, []string{"SETV", "v", "b", "2"}},
		{errSetVMismatch, []string{"SETV", "str", "b", "1"}},
		{errSetVNoKey, []string{"SETV", "missing", "b", "1"}},
		{errSetVVersion, []string{"SETV", "v", "b", "0"}},
		{errSetVVersion, []string{"SETV", "v", "b", "-1"}},
		{keyspace.ErrNotInt, []string{"SETV", "v", "b", "x"}},
		{keyspace.ErrSyntax, []string{"SETV", "v", "b", "1", "extra"}},
		{keyspace.ErrWrongType, []string{"SETV", "l", "b"}},
		{keyspace.ErrWrongType, []string{"SETV", "o", "b", "1"}},
		{keyspace.ErrWrongArgs("setv"), []string{"SETV", "v"}},
		// IDEM
		{errIdemAction, []string{"IDEM", "x", "ABORT", "fp", "own", "100"}},
		{errIdemAction, []string{"IDEM", "i", "RENEW", "fp", "own", "100"}},
		{errIdemFP, []string{"IDEM", "x", "BEGIN", "", "own", "100"}},
		{errIdemFP, []string{"IDEM", "x", "BEGIN", tok129, "own", "100"}},
		{errIdemFP, []string{"IDEM", "i", "COMPLETE", "", "own", "r"}},
		{errIdemOwner, []string{"IDEM", "x", "BEGIN", "fp", "", "100"}},
		{errIdemOwner, []string{"IDEM", "i", "COMPLETE", "fp", tok129, "r"}},
		{errIdemTTL, []string{"IDEM", "x", "BEGIN", "fp", "own", "0"}},
		{errIdemTTL, []string{"IDEM", "x", "BEGIN", "fp", "own", "604800001"}},
		{errIdemTTL, []string{"IDEM", "x", "BEGIN", "fp", "own", "-1"}},
		{errIdemTTL, []string{"IDEM", "x", "BEGIN", "fp", "own", "1e3"}},
		{errIdemResult, []string{"IDEM", "i", "COMPLETE", "fp", "own", strings.Repeat("r", keyspace.IdemMaxResult+1)}},
		{errIdemMalformed, []string{"IDEM", "str", "BEGIN", "fp", "own", "100"}},
		{errIdemMalformed, []string{"IDEM", "str", "COMPLETE", "fp", "own", "r"}},
		{errIdemMalformed, []string{"IDEM", "bad", "BEGIN", "fp", "own", "100"}},
		{errIdemMalformed, []string{"IDEM", "bad", "COMPLETE", "fp", "own", "r"}},
		{errIdemMalformed, []string{"IDEM", "v", "BEGIN", "fp", "own", "100"}},
		{errIdemMalformed, []string{"IDEM", "n", "BEGIN", "fp", "own", "100"}},
		{keyspace.ErrWrongType, []string{"IDEM", "l", "BEGIN", "fp", "own", "100"}},
		{keyspace.ErrWrongType, []string{"IDEM", "o", "COMPLETE", "fp", "own", "r"}},
		{errIdemNoTTL, []string{"IDEM", "p", "BEGIN", "fp", "own", "100"}},
		{errIdemNoTTL, []string{"IDEM", "p", "COMPLETE", "fp", "own", "r"}},
		{keyspace.ErrWrongArgs("idem"), []string{"IDEM", "x", "BEGIN", "fp", "own"}},
		{keyspace.ErrWrongArgs("idem"), []string{"IDEM", "x", "COMPLETE", "fp", "own", "r", "extra"}},
		// GETEX key ms
		{invalid("getex"), []string{"GETEX", "n", "0"}},
		{invalid("getex"), []string{"GETEX", "n", "-5"}},
		{keyspace.ErrNotInt, []string{"GETEX", "n", "9223372036854775808"}},
		{keyspace.ErrSyntax, []string{"GETEX", "n", "soon"}},
		{keyspace.ErrWrongType, []string{"GETEX", "l", "100"}},
		{keyspace.ErrWrongType, []string{"GETEX", "m", "100"}},
		// CHANGES
		{"ERR CHANGES takes START or a cursor returned by this shard", []string{"CHANGES", "soon"}},
		{keyspace.ErrWrongArgs("changes"), []string{"CHANGES"}},
	} {
		if got := run(t, sh, tc.args...); got != rErr(tc.err) {
			t.Errorf("%.80q: got %.120q, want %q", tc.args, got, rErr(tc.err))
		}
		if recs := j.take(); len(recs) != 0 {
			t.Errorf("%.80q wrote %v", tc.args, recs)
		}
		if after := kjState(sh, sh.NowMs); after != before {
			t.Fatalf("%.80q changed the keyspace:\n got  %s\n want %s", tc.args, after, before)
		}
	}
	expect(t, sh, rArr(), "CHANGES", strconv.FormatInt(cur, 10))
}

// TestKeyJobsRejectionsChangeNothing checks the exact reply of every "no"
// answer (null bulk, 0, IDEM probes, identical COMPLETE) and that none of
// them writes a WAL record, changes the keyspace or adds a CHANGES note.
func TestKeyJobsRejectionsChangeNothing(t *testing.T) {
	sh, j := kjShard(t)
	t1 := kjFixture(t, sh)
	expect(t, sh, rInt(t1+1), "SEMAPHORE", "s", "2", "500")
	kjAt(sh, 100)
	cur := kjInt(t, run(t, sh, "CHANGES", "START"))
	j.take()
	before := kjState(sh, sh.NowMs)
	for _, tc := range []struct {
		want string
		args []string
	}{
		{rNull, []string{"LEASE", "l", "5000"}},
		{rInt(0), []string{"RELEASE", "l", "2"}},
		{rInt(0), []string{"RELEASE", "l", "0"}},
		{rInt(0), []string{"RELEASE", "missing", "1"}},
		{rNull, []string{"SEMAPHORE", "s", "2", "5000"}},
		{rNull, []string{"SEMAPHORE", "s", "1", "5000"}},
		{rInt(0), []string{"RELEASE", "s", strconv.FormatInt(t1+2, 10)}},
		{rInt(0), []string{"RELEASE", "s", "1"}},
		{rNull, []string{"LIMIT", "m", "1", "5000"}},
		{rInt(0), []string{"ONCE", "o", "5000"}},
		{rNull, []string{"TAKE", "n", "11"}},
		{rNull, []string{"TAKE", "missing", "1"}},
		{rNull, []string{"INCRBY", "n", "1", "MAX", "10"}},
		{rNull, []string{"INCRBY", "missing", "11", "MAX", "10"}},
		{rNull, []string{"INCRBY", "missing", "-1", "MAX", "-2"}},
		{rNull, []string{"GETEX", "missing", "5000"}},
		{rArr(rBulk("pending")), []string{"IDEM", "i", "BEGIN", "fp", "own", "604800000"}},
		{rArr(rBulk("pending")), []string{"IDEM", "i", "begin", "fp", "other", "604800000"}},
		{rArr(rBulk("conflict")), []string{"IDEM", "i", "BEGIN", "fp2", "own", "604800000"}},
		{rArr(rBulk("conflict")), []string{"IDEM", "c", "BEGIN", "fp2", "own", "604800000"}},
		{rArr(rBulk("completed"), rBulk("res")), []string{"IDEM", "c", "BEGIN", "fp", "other", "604800000"}},
		{rInt(1), []string{"IDEM", "c", "COMPLETE", "fp", "own", "res"}},
		{rInt(1), []string{"IDEM", "c", "complete", "fp", "own", "res"}},
		{rInt(0), []string{"IDEM", "c", "COMPLETE", "fp", "own", "changed"}},
		{rInt(0), []string{"IDEM", "c", "COMPLETE", "fp", "other", "res"}},
		{rInt(0), []string{"IDEM", "i", "COMPLETE", "fp", "other", "r"}},
		{rInt(0), []string{"IDEM", "i", "COMPLETE", "fp2", "own", "r"}},
		{rInt(0), []string{"IDEM", "missing", "COMPLETE", "fp", "own", "r"}},
	} {
		if got := run(t, sh, tc.args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
		if recs := j.take(); len(recs) != 0 {
			t.Errorf("%q wrote %v", tc.args, recs)
		}
		if after := kjState(sh, sh.NowMs); after != before {
			t.Fatalf("%q changed the keyspace:\n got  %s\n want %s", tc.args, after, before)
		}
	}
	expect(t, sh, rInt(0), "EXISTS", "missing")
	expect(t, sh, rArr(), "CHANGES", strconv.FormatInt(cur, 10))
	// Nothing moved a deadline either (kjState includes them): spot-check
	// the ones a rejection could have refreshed.
	expect(t, sh, rInt(900), "PTTL", "o")
	expect(t, sh, rInt(900), "PTTL", "m")
	expect(t, sh, rInt(900), "PTTL", "i")
	expect(t, sh, rInt(900), "PTTL", "c")
}

// TestKeyJobsResp3Replies checks the exact reply types under RESP3: the
// "no" answers are RESP3 nulls, tokens and counts integers, IDEM replies
// arrays of bulk strings and CHANGES notes arrays with a null SET detail.
func TestKeyJobsResp3Replies(t *testing.T) {
	sh, _ := kjShard(t)
	sh.Ctx.W.Proto = 3
	const null = "_\r\n"
	cur := kjInt(t, run(t, sh, "CHANGES", "START"))
	expect(t, sh, rInt(1), "LEASE", "l", "1000")
	expect(t, sh, null, "LEASE", "l", "1000")
	expect(t, sh, rInt(1), "RELEASE", "l", "1")
	t1 := kjInt(t, run(t, sh, "SEMAPHORE", "s", "1", "1000"))
	expect(t, sh, null, "SEMAPHORE", "s", "1", "1000")
	expect(t, sh, rInt(0), "LIMIT", "m", "1", "1000")
	expect(t, sh, null, "LIMIT", "m", "1", "1000")
	expect(t, sh, rInt(1), "ONCE", "o", "1000")
	expect(t, sh, rInt(0), "ONCE", "o", "1000")
	expect(t, sh, rOK, "SET", "n", "3")
	expect(t, sh, rInt(1), "TAKE", "n", "2")
	expect(t, sh, null, "TAKE", "n", "2")
	expect(t, sh, null, "TAKE", "missing", "2")
	expect(t, sh, rInt(3), "INCRBY", "n", "2", "MAX", "3")
	expect(t, sh, null, "INCRBY", "n", "1", "MAX", "3")
	expect(t, sh, rInt(1), "SETV", "v", "x")
	expect(t, sh, rBulk("x"), "GETEX", "v", "1000")
	expect(t, sh, null, "GETEX", "missing", "1000")
	expect(t, sh, "*1\r\n$8\r\nacquired\r\n", "IDEM", "i", "BEGIN", "fp", "own", "1000")
	expect(t, sh, "*1\r\n$7\r\npending\r\n", "IDEM", "i", "BEGIN", "fp", "own", "1000")
	expect(t, sh, "*1\r\n$8\r\nconflict\r\n", "IDEM", "i", "BEGIN", "xx", "own", "1000")
	expect(t, sh, rInt(1), "IDEM", "i", "COMPLETE", "fp", "own", "")
	expect(t, sh, "*2\r\n$9\r\ncompleted\r\n$0\r\n\r\n", "IDEM", "i", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "RELEASE", "s", strconv.FormatInt(t1, 10))
	expect(t, sh, rArr(
		rArr(rInt(cur+1), rBulk("LEASE"), rBulk("l"), rInt(1)),
		rArr(rInt(cur+2), rBulk("RELEASE"), rBulk("l"), rInt(1)),
		rArr(rInt(cur+3), rBulk("SET"), rBulk("n"), null),
		rArr(rInt(cur+4), rBulk("SETV"), rBulk("v"), rInt(1)),
		rArr(rInt(cur+5), rBulk("RELEASE"), rBulk("s"), rInt(t1)),
	), "CHANGES", strconv.FormatInt(cur, 10))
}
