package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
)

// countJournal counts records and keeps nothing, like a WAL whose buffer
// has already grown: the allocation figures cover building the payload.
type countJournal struct {
	nopJournal
	n int
}

func (j *countJournal) Append(uint16, persistence.Opcode, []byte) { j.n++ }

var (
	benchFP     = strings.Repeat("f", 64)
	benchOwner  = strings.Repeat("o", 32)
	benchResult = strings.Repeat("r", 1024)
)

// keyJobCase is one zero-allocation case: setup commands, then the call
// measured, with the records it may write per call.
type keyJobCase struct {
	name    string
	setup   [][]string
	call    []string
	records int
}

var keyJobCases = []keyJobCase{
	{"IdemBeginPending", [][]string{{"IDEM", "i", "BEGIN", benchFP, benchOwner, "600000"}},
		[]string{"IDEM", "i", "BEGIN", benchFP, "other-owner", "600000"}, 0},
	{"IdemBeginConflict", [][]string{{"IDEM", "i", "BEGIN", benchFP, benchOwner, "600000"}},
		[]string{"IDEM", "i", "BEGIN", strings.Repeat("g", 64), benchOwner, "600000"}, 0},
	{"IdemBeginCompleted", [][]string{{"IDEM", "i", "BEGIN", benchFP, benchOwner, "600000"}, {"IDEM", "i", "COMPLETE", benchFP, benchOwner, benchResult}},
		[]string{"IDEM", "i", "BEGIN", benchFP, "other-owner", "600000"}, 0},
	{"IdemCompleteRepeat", [][]string{{"IDEM", "i", "BEGIN", benchFP, benchOwner, "600000"}, {"IDEM", "i", "COMPLETE", benchFP, benchOwner, benchResult}},
		[]string{"IDEM", "i", "COMPLETE", benchFP, benchOwner, benchResult}, 0},
	{"LimitAdmit", [][]string{{"LIMIT", "l", "9223372036854775807", "600000"}},
		[]string{"LIMIT", "l", "9223372036854775807", "600000"}, 1},
	{"LimitFull", [][]string{{"LIMIT", "l", "1", "600000"}},
		[]string{"LIMIT", "l", "1", "600000"}, 0},
	// A burst of a billion at one a second: every call is admitted and moves
	// the TAT a second on.
	{"ThrottleAdmit", [][]string{{"CL.THROTTLE", "g", "1000000000", "1", "1"}},
		[]string{"CL.THROTTLE", "g", "1000000000", "1", "1"}, 1},
	{"ThrottleLimited", [][]string{{"CL.THROTTLE", "g", "0", "1", "3600"}},
		[]string{"CL.THROTTLE", "g", "0", "1", "3600"}, 0},
	{"OnceExisting", [][]string{{"ONCE", "o", "600000"}},
		[]string{"ONCE", "o", "600000"}, 0},
	{"TakeExisting", [][]string{{"SET", "t", "9223372036854775807"}},
		[]string{"TAKE", "t", "1"}, 1},
	{"LeaseHeld", [][]string{{"LEASE", "l", "600000"}},
		[]string{"LEASE", "l", "600000"}, 0},
}

// keyJobShard prepares a shard with a counting journal for c.
func keyJobShard(t *testing.T, c keyJobCase) (*keyspace.Shard, *countJournal) {
	sh := newTestShard(t)
	j := &countJournal{}
	sh.Journal = j
	sh.Ctx.W.Buf = make([]byte, 0, 4096)
	for _, s := range c.setup {
		execArgv(sh, toArgv(s...))
	}
	return sh, j
}

// leaseGrantRelease grants an existing, free lease and releases it,
// writing the token into a reused argument buffer.
func leaseGrantRelease(sh *keyspace.Shard, lease, release [][]byte, tok []byte) {
	execArgv(sh, lease)
	release[2] = strconv.AppendInt(tok[:0], sh.DBs[0].Obj(sh.DBs[0].Find(lease[1])).(*keyspace.LeaseObj).Token, 10)
	execArgv(sh, release)
}

func TestKeyJobsZeroAlloc(t *testing.T) {
	for _, c := range keyJobCases {
		sh, j := keyJobShard(t, c)
		argv := toArgv(c.call...)
		execArgv(sh, argv)
		if strings.HasPrefix(string(sh.Ctx.W.Buf), "-") {
			t.Fatalf("%s: %q", c.name, sh.Ctx.W.Buf)
		}
		j.n = 0
		allocs := testing.AllocsPerRun(200, func() { execArgv(sh, argv) })
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per call, want 0", c.name, allocs)
		}
		if want := c.records * 201; j.n != want {
			t.Errorf("%s: %d records over 201 calls, want %d", c.name, j.n, want)
		}
	}
	sh := newTestShard(t)
	sh.Journal = &countJournal{}
	lease, release, tok := toArgv("LEASE", "l", "1000"), toArgv("RELEASE", "l", "0"), make([]byte, 0, 20)
	leaseGrantRelease(sh, lease, release, tok)
	if allocs := testing.AllocsPerRun(200, func() { leaseGrantRelease(sh, lease, release, tok) }); allocs != 0 {
		t.Errorf("LEASE+RELEASE on an existing key: %.1f allocations, want 0", allocs)
	}
	if got := sh.DBs[0].Obj(sh.DBs[0].Find([]byte("l"))).(*keyspace.LeaseObj).Token; got != 202 {
		t.Errorf("token after 202 grants: %d", got)
	}
}

func BenchmarkKeyJobs(b *testing.B) {
	for _, c := range keyJobCases {
		b.Run(c.name, func(b *testing.B) {
			sh := benchShard(b)
			sh.Journal = &countJournal{}
			for _, s := range c.setup {
				execArgv(sh, toArgv(s...))
			}
			argv := toArgv(c.call...)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				execArgv(sh, argv)
			}
		})
	}
	b.Run("LeaseGrantRelease", func(b *testing.B) {
		sh := benchShard(b)
		sh.Journal = &countJournal{}
		lease, release, tok := toArgv("LEASE", "l", "1000"), toArgv("RELEASE", "l", "0"), make([]byte, 0, 20)
		leaseGrantRelease(sh, lease, release, tok)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			leaseGrantRelease(sh, lease, release, tok)
		}
	})
}
