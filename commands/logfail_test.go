package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// lfRun is one connection's batch in a drain of lfStart.
type lfRun struct {
	c    *keyspace.Client
	cmds [][]string
}

// lfClient attaches a new authenticated client to sh.
func lfClient(d *durServer, sh *keyspace.Shard, id int64) *keyspace.Client {
	c := keyspace.NewClient(id, sh.Idx, "127.0.0.1:50000", "127.0.0.1:7000", nil, d.clock.now())
	c.Authenticated = true
	return c
}

// lfRound runs the batches of several clients as one drain of sh, commits
// them as one group and waits for every reply; it returns the batches
// delivered (a parked one is not, and the one of a client a write served
// follows that write's).
func lfRound(d *durServer, sh *keyspace.Shard, runs ...lfRun) []*keyspace.Batch {
	d.t.Helper()
	x := sh.Ctx
	sh.NowMs = d.clock.now().UnixMilli()
	var out []*keyspace.Batch
	for _, r := range runs {
		b := durNewBatch(r.c, d.sink, r.cmds...)
		if !sh.Run(b) {
			sh.Queue(b)
			out = append(out, b)
		}
		if len(sh.Blk.Resume) > 0 {
			// As drain does: the clients a write served finish now.
			for _, bc := range sh.Blk.Resume {
				out = append(out, bc.Batch)
			}
			sh.ResumeBlocked()
		}
	}
	sh.Commit()
	sh.Ctx.C, sh.Ctx.W, sh.Ctx.Batch = x.C, x.W, x.Batch
	got := d.wait(len(out))
	for i := range out {
		if got[i] != out[i] {
			d.t.Fatalf("batch %d delivered out of order", i)
		}
	}
	return out
}

// lfDo runs one command of c as its own group and returns the reply.
func lfDo(d *durServer, sh *keyspace.Shard, c *keyspace.Client, args ...string) string {
	d.t.Helper()
	return string(lfRound(d, sh, lfRun{c, [][]string{args}})[0].Out.Buf)
}

const (
	notAcked  = "-ERR write-ahead log failed, the write was not acknowledged: "
	ioerrRead = "-IOERR this read saw writes that the write-ahead log of shard 0 failed to make durable: "
	ioerrShut = "-IOERR the write-ahead log of shard 0 failed: "
)

// TestLogFailureRefusedIncrCountsOnce: an INCR whose fsync fails is
// refused, and then it is as if it never ran: no other client reads it, no
// snapshot taken afterwards holds it, a restart does not load it (though
// its record was handed to the kernel, which may write it out after the
// failed fsync), and the client's retry counts once.
func TestLogFailureRefusedIncrCountsOnce(t *testing.T) {
	mem := persistence.NewMemFS()
	efs := persistence.NewErrorFS(mem)
	clock := newDurClock()
	d := durOpen(t, efs, clock, 1, nil)
	sh := d.shard(0)
	a, b := lfClient(d, sh, 101), lfClient(d, sh, 102)
	if got := lfDo(d, sh, a, "SET", "n", "10"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-wal-", Nth: 1})
	incr := lfRound(d, sh, lfRun{a, [][]string{{"INCR", "n"}}})[0]
	if got := string(incr.Out.Buf); !strings.HasPrefix(got, notAcked) || !incr.CloseAfter {
		t.Fatalf("INCR whose fsync failed: %q (close %v)", got, incr.CloseAfter)
	}
	// Another client does not read the refused increment.
	if got := lfDo(d, sh, b, "GET", "n"); !strings.HasPrefix(got, ioerrShut) {
		t.Errorf("GET after the refused INCR: %q, want %s…", got, ioerrShut)
	}
	if got := lfDo(d, sh, b, "INCR", "n"); !strings.HasPrefix(got, "-MISCONF ") {
		t.Errorf("INCR after the failure: %q, want -MISCONF", got)
	}
	// No snapshot of the refused state is taken.
	if got := lfDo(d, sh, b, "SAVE"); !strings.HasPrefix(got, ioerrShut) {
		t.Errorf("SAVE after the failure: %q, want %s…", got, ioerrShut)
	}
	for _, n := range durFiles(t, mem) {
		if strings.Contains(n, "-snap-") {
			t.Errorf("a snapshot was written after the failure: %s", n)
		}
	}
	// Commands allowed on a stale replica still run (INFO tells the
	// cause); the others, PING included as on a stale replica or while
	// loading, are refused: a health check sees the shard is down.
	if got := lfDo(d, sh, b, "INFO", "persistence"); !strings.Contains(got, "aof_last_write_status:err\r\n") {
		t.Errorf("INFO after the failure: %q", got)
	}
	if got := lfDo(d, sh, b, "PING"); !strings.HasPrefix(got, ioerrShut) {
		t.Errorf("PING after the failure: %q", got)
	}
	if got := lfDo(d, sh, b, "CONFIG", "GET", "maxmemory"); strings.HasPrefix(got, "-") {
		t.Errorf("CONFIG GET after the failure: %q", got)
	}
	// Scripts and transactions read nothing either.
	if got := lfDo(d, sh, b, "EVAL", "return redis.call('GET', KEYS[1])", "1", "n"); !strings.HasPrefix(got, "-IOERR ") {
		t.Errorf("EVAL reading after the failure: %q", got)
	}
	tx := string(lfRound(d, sh, lfRun{b, [][]string{{"MULTI"}, {"GET", "n"}, {"EXEC"}}})[0].Out.Buf)
	if !strings.HasPrefix(tx, "+OK\r\n"+ioerrShut) || !strings.Contains(tx, "-EXECABORT ") {
		t.Errorf("MULTI, GET, EXEC after the failure: %q", tx)
	}
	if err := d.close(); !errors.Is(err, persistence.ErrInjected) {
		t.Errorf("close: %v", err)
	}
	// A restart (the page cache kept what was written) and a crash both
	// load the acknowledged state, and the retried INCR counts once.
	for _, fs := range []*persistence.MemFS{mem.CrashClone(), mem} {
		r := durOpen(t, fs, clock, 1, nil)
		rs := r.shard(0)
		c := lfClient(r, rs, 201)
		if got := lfDo(r, rs, c, "GET", "n"); got != "$2\r\n10\r\n" {
			t.Errorf("GET after the restart: %q, want 10", got)
		}
		if got := lfDo(r, rs, c, "INCR", "n"); got != ":11\r\n" {
			t.Errorf("retried INCR after the restart: %q, want 11", got)
		}
		if err := r.close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLogFailureReadsInFailedGroup: reads that share a group whose fsync
// fails get no write error. A read that ran before the group's first
// write saw only durable state: its reply leaves as it is, as do the
// replies of a batch before its first write. A read that ran after it may
// have seen the refused write: it gets an IOERR, not the write's error.
func TestLogFailureReadsInFailedGroup(t *testing.T) {
	efs := persistence.NewErrorFS(persistence.NewMemFS())
	clock := newDurClock()
	d := durOpen(t, efs, clock, 1, nil)
	sh := d.shard(0)
	x, w, y, z := lfClient(d, sh, 101), lfClient(d, sh, 102), lfClient(d, sh, 103), lfClient(d, sh, 104)
	if got := lfDo(d, sh, x, "SET", "a", "1"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	q := lfClient(d, sh, 105)
	if got := string(lfRound(d, sh, lfRun{q, [][]string{{"MULTI"}, {"GET", "a"}}})[0].Out.Buf); got != "+OK\r\n+QUEUED\r\n" {
		t.Fatalf("MULTI, GET: %q", got)
	}
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-wal-", Nth: 1})
	bs := lfRound(d, sh,
		lfRun{x, [][]string{{"GET", "a"}}},
		lfRun{w, [][]string{{"GET", "a"}, {"INCR", "a"}, {"GET", "a"}}},
		lfRun{y, [][]string{{"GET", "a"}}},
		lfRun{z, [][]string{{"INCR", "a"}}},
	)
	if got := string(bs[0].Out.Buf); got != "$1\r\n1\r\n" || bs[0].CloseAfter {
		t.Errorf("GET before the group's first write: %q (close %v), want its reply", got, bs[0].CloseAfter)
	}
	if got := string(bs[1].Out.Buf); !strings.HasPrefix(got, "$1\r\n1\r\n"+notAcked) || strings.Count(got, "\r\n") != 3 || !bs[1].CloseAfter {
		t.Errorf("GET, INCR, GET: %q (close %v), want the first GET's reply then the write's error", got, bs[1].CloseAfter)
	}
	if got := string(bs[2].Out.Buf); !strings.HasPrefix(got, ioerrRead) || strings.Contains(got, "not acknowledged") || !bs[2].CloseAfter {
		t.Errorf("GET after the refused write: %q (close %v), want %s…", got, bs[2].CloseAfter, ioerrRead)
	}
	if got := string(bs[3].Out.Buf); !strings.HasPrefix(got, notAcked) || !bs[3].CloseAfter {
		t.Errorf("INCR: %q (close %v), want the write's error", got, bs[3].CloseAfter)
	}
	// The failure is known now: reads are refused plainly, without
	// closing the connection.
	r := lfRound(d, sh, lfRun{y, [][]string{{"GET", "a"}, {"TIME"}}})[0]
	got := string(r.Out.Buf)
	if i := strings.Index(got, "\r\n"); !strings.HasPrefix(got, ioerrShut) || i < 0 || !strings.HasPrefix(got[i+2:], "*2\r\n") || r.CloseAfter {
		t.Errorf("GET, TIME after the failure: %q (close %v)", got, r.CloseAfter)
	}
	// A transaction queued before the failure does not read either.
	if got := lfDo(d, sh, q, "EXEC"); !strings.HasPrefix(got, "-EXECABORT ") || !strings.Contains(got, "IOERR") {
		t.Errorf("EXEC of a GET queued before the failure: %q", got)
	}
}

// TestLogFailureAbandonsSnapshot: a BGSAVE started after a write whose
// fsync then fails would hold that write: the snapshot is never
// published, and a restart loads the state without the write.
func TestLogFailureAbandonsSnapshot(t *testing.T) {
	mem := persistence.NewMemFS()
	efs := persistence.NewErrorFS(mem)
	clock := newDurClock()
	d := durOpen(t, efs, clock, 1, nil)
	sh := d.shard(0)
	a, b := lfClient(d, sh, 101), lfClient(d, sh, 102)
	if got := lfDo(d, sh, a, "SET", "n", "10"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-wal-", Nth: 1})
	bs := lfRound(d, sh, lfRun{a, [][]string{{"INCR", "n"}}}, lfRun{b, [][]string{{"BGSAVE"}}})
	if got := string(bs[0].Out.Buf); !strings.HasPrefix(got, notAcked) {
		t.Errorf("INCR: %q", got)
	}
	if got := string(bs[1].Out.Buf); !strings.HasPrefix(got, ioerrRead) {
		t.Errorf("BGSAVE after the refused INCR: %q, want %s…", got, ioerrRead)
	}
	// Finishing the snapshot (as at shutdown) abandons it.
	if err := d.close(); !errors.Is(err, persistence.ErrInjected) {
		t.Errorf("close: %v", err)
	}
	for _, n := range durFiles(t, mem) {
		if strings.Contains(n, "-snap-") {
			t.Errorf("the snapshot holding the refused write was published: %s", n)
		}
	}
	r := durOpen(t, mem, clock, 1, nil)
	rs := r.shard(0)
	if got := lfDo(r, rs, lfClient(r, rs, 201), "GET", "n"); got != "$2\r\n10\r\n" {
		t.Errorf("GET after the restart: %q, want 10", got)
	}
}

// TestLogFailureEverySecWrite: under fsync = everysec a failed write
// refuses its group's writes the same way; reads of the shard are refused
// until a restart, which loads the acknowledged state.
func TestLogFailureEverySecWrite(t *testing.T) {
	mem := persistence.NewMemFS()
	efs := persistence.NewErrorFS(mem)
	clock := newDurClock()
	everysec := func(o *keyspace.DiskOptions) { o.Policy = persistence.FsyncEverySec }
	d := durOpen(t, efs, clock, 1, everysec)
	sh := d.shard(0)
	a, b := lfClient(d, sh, 101), lfClient(d, sh, 102)
	if got := lfDo(d, sh, a, "SET", "n", "10"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	efs.Inject(persistence.Injection{Op: persistence.FSWrite, PathContains: "-wal-", Nth: 1})
	bs := lfRound(d, sh, lfRun{b, [][]string{{"GET", "n"}}}, lfRun{a, [][]string{{"INCR", "n"}}}, lfRun{b, [][]string{{"GET", "n"}}})
	if got := string(bs[0].Out.Buf); got != "$2\r\n10\r\n" {
		t.Errorf("GET before the write: %q", got)
	}
	if got := string(bs[1].Out.Buf); !strings.HasPrefix(got, notAcked) {
		t.Errorf("INCR: %q", got)
	}
	if got := string(bs[2].Out.Buf); !strings.HasPrefix(got, ioerrRead) {
		t.Errorf("GET after the refused write: %q", got)
	}
	if got := lfDo(d, sh, b, "GET", "n"); !strings.HasPrefix(got, ioerrShut) {
		t.Errorf("GET after the failure: %q", got)
	}
	_ = d.close()
	r := durOpen(t, mem, clock, 1, everysec)
	rs := r.shard(0)
	if got := lfDo(r, rs, lfClient(r, rs, 201), "INCR", "n"); got != ":11\r\n" {
		t.Errorf("retried INCR after the restart: %q, want 11", got)
	}
}

// TestLogFailureServedBlockedClient: a BLPOP served by a push whose fsync
// then fails popped a refused element: its reply is the write's error too.
func TestLogFailureServedBlockedClient(t *testing.T) {
	efs := persistence.NewErrorFS(persistence.NewMemFS())
	clock := newDurClock()
	d := durOpen(t, efs, clock, 1, nil)
	sh := d.shard(0)
	bl, p := lfClient(d, sh, 101), lfClient(d, sh, 102)
	if bs := lfRound(d, sh, lfRun{bl, [][]string{{"BLPOP", "q", "0"}}}); len(bs) != 0 {
		t.Fatalf("BLPOP did not park: %q", bs[0].Out.Buf)
	}
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-wal-", Nth: 1})
	bs := lfRound(d, sh, lfRun{p, [][]string{{"LPUSH", "q", "v"}}})
	if len(bs) != 2 {
		t.Fatalf("%d batches delivered, want the push and the served BLPOP", len(bs))
	}
	for i, what := range []string{"LPUSH", "served BLPOP"} {
		if got := string(bs[i].Out.Buf); !strings.HasPrefix(got, notAcked) || !bs[i].CloseAfter {
			t.Errorf("%s: %q (close %v), want the write's error", what, got, bs[i].CloseAfter)
		}
	}
}

// dropJournal is a shard's WAL journal that, once armed, drops the records
// appended to it and fails, as the WAL does with a record too large
// (ErrRecordTooLarge): the last sequence stays where it was.
type dropJournal struct {
	*keyspace.WALJournal
	armed bool
	err   error
}

var errDropped = errors.New("record dropped")

func (j *dropJournal) Append(db uint16, op persistence.Opcode, payload []byte) {
	if j.armed {
		j.err = errDropped
		return
	}
	j.WALJournal.Append(db, op, payload)
}

func (j *dropJournal) Err() error {
	if j.err != nil {
		return j.err
	}
	return j.WALJournal.Err()
}

func (j *dropJournal) Commit(g interface{ Committed(error) }, commands int) bool {
	if j.err != nil {
		g.Committed(j.err)
		return false
	}
	return j.WALJournal.Commit(g, commands)
}

// TestLogFailureDroppedRecord: a write whose record the log dropped leaves
// the last sequence unchanged, so nothing says memory holds an undurable
// write but the failure itself: the write is refused all the same, and
// the shard stops serving its data.
func TestLogFailureDroppedRecord(t *testing.T) {
	clock := newDurClock()
	d := durOpen(t, persistence.NewMemFS(), clock, 1, nil)
	sh := d.shard(0)
	x, a, y := lfClient(d, sh, 101), lfClient(d, sh, 102), lfClient(d, sh, 103)
	if got := lfDo(d, sh, a, "SET", "n", "10"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	j := &dropJournal{WALJournal: sh.Journal.(*keyspace.WALJournal), armed: true}
	sh.Journal = j
	defer func() { sh.Journal = j.WALJournal }()
	bs := lfRound(d, sh,
		lfRun{x, [][]string{{"GET", "n"}}},
		lfRun{a, [][]string{{"INCR", "n"}, {"GET", "n"}}},
		lfRun{y, [][]string{{"GET", "n"}}},
	)
	if got := string(bs[0].Out.Buf); got != "$2\r\n10\r\n" {
		t.Errorf("GET before the dropped write: %q", got)
	}
	if got := string(bs[1].Out.Buf); !strings.HasPrefix(got, "-ERR write-ahead log failed, the write was not acknowledged: record dropped") ||
		strings.Count(got, "\r\n") != 1 || !bs[1].CloseAfter {
		t.Errorf("INCR whose record was dropped, GET: %q (close %v)", got, bs[1].CloseAfter)
	}
	if got := string(bs[2].Out.Buf); !strings.HasPrefix(got, "-IOERR the write-ahead log of shard 0 failed: record dropped") {
		t.Errorf("GET after the dropped write: %q", got)
	}
}

// TestLogFailureEverySecBackgroundFsync: under fsync = everysec a failed
// background fsync finds every write in memory acknowledged already: the
// shard refuses writes from then on but goes on serving reads.
func TestLogFailureEverySecBackgroundFsync(t *testing.T) {
	efs := persistence.NewErrorFS(persistence.NewMemFS())
	clock := newDurClock()
	d := durOpen(t, efs, clock, 1, func(o *keyspace.DiskOptions) { o.Policy = persistence.FsyncEverySec })
	sh := d.shard(0)
	a := lfClient(d, sh, 101)
	efs.Inject(persistence.Injection{Op: persistence.FSSync, PathContains: "-wal-"})
	if got := lfDo(d, sh, a, "SET", "n", "10"); got != rOK {
		t.Fatalf("SET: %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sh.Journal.Err() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the background fsync did not fail")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := lfDo(d, sh, a, "GET", "n"); got != "$2\r\n10\r\n" {
		t.Errorf("GET after the failed background fsync: %q, want the acknowledged 10", got)
	}
	if got := lfDo(d, sh, a, "INCR", "n"); !strings.HasPrefix(got, "-MISCONF ") {
		t.Errorf("INCR after the failed background fsync: %q, want -MISCONF", got)
	}
	if got := lfDo(d, sh, a, "GET", "n"); got != "$2\r\n10\r\n" {
		t.Errorf("GET after the refused INCR: %q", got)
	}
}
