package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"path"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// walRecords decodes every record of the shard's WAL segments in fs.
func walRecords(t *testing.T, fs *persistence.MemFS) (name string, data []byte, recs []persistence.Record, offs []int) {
	t.Helper()
	for _, n := range durFiles(t, fs) {
		if strings.HasSuffix(n, ".log") {
			name = n
		}
	}
	data, err := fs.ReadFile(path.Join(durDir, name))
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(data); {
		r, n, err := persistence.DecodeRecord(data[off:])
		if err != nil {
			t.Fatalf("record at %d: %v", off, err)
		}
		recs = append(recs, r)
		offs = append(offs, off)
		off += n
	}
	return name, data, recs, offs
}

// TestExecIsOneWALRecord: the writes of an EXEC are one Batch record (one
// plain record when there is a single write), and replay restores them.
func TestExecIsOneWALRecord(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "SET", "keep", "1")
	d.round(sh, [][]string{{"MULTI"}, {"SET", "a", "1"}, {"INCR", "a"}, {"APPEND", "b", "xy"} /* a new key: logged as Set */, {"DEL", "keep"}, {"GET", "a"}, {"SELECT", "2"}, {"SET", "c", "3", "PX", "900000"}, {"EXEC"}})
	d.round(sh, [][]string{{"MULTI"}, {"SET", "single", "1"}, {"GET", "a"}, {"EXEC"}})
	d.round(sh, [][]string{{"MULTI"}, {"GET", "a"}, {"EXEC"}})
	_, _, recs, _ := walRecords(t, mem)
	var ops []string
	for _, r := range recs {
		ops = append(ops, r.Op.String())
	}
	if got, want := strings.Join(ops, " "), "Set Batch Set"; got != want {
		t.Fatalf("WAL records: %s, want %s", got, want)
	}
	entries, err := persistence.DecodeBatch(nil, recs[1].Payload)
	if err != nil {
		t.Fatal(err)
	}
	var eops []string
	for _, e := range entries {
		eops = append(eops, e.Op.String()+"@"+string(rune('0'+e.DB)))
	}
	if got, want := strings.Join(eops, " "), "Set@0 Set@0 Set@0 Del@0 Set@2"; got != want {
		t.Errorf("batch entries: %s, want %s", got, want)
	}
	want := durState(sh)
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	d2 := durOpen(t, mem.CrashClone(), clock, 1, nil)
	if got := durState(d2.shard(0)); got != want {
		t.Errorf("after replay:\n%s\nwant:\n%s", got, want)
	}
}

// TestTornExecBatchIsDroppedWhole cuts the WAL inside an EXEC's Batch
// record at every byte: recovery must give the state before the EXEC,
// never a part of it, and the whole record gives the state after it.
func TestTornExecBatchIsDroppedWhole(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "SET", "a", "10")
	d.do(sh, "SET", "b", "old")
	before := durState(sh)
	out := d.round(sh, [][]string{{"MULTI"}, {"INCR", "a"}, {"SET", "b", "new"}, {"SET", "c", "1"}, {"DEL", "nosuch"}, {"EXEC"}})
	if got := string(out[0].Out.Buf); !strings.HasSuffix(got, "*4\r\n:11\r\n+OK\r\n+OK\r\n:0\r\n") {
		t.Fatalf("EXEC replies: %q", got)
	}
	after := durState(sh)
	name, data, recs, offs := walRecords(t, mem)
	if len(recs) != 3 || recs[2].Op != persistence.OpBatch {
		t.Fatalf("want Set Set Batch, got %d records", len(recs))
	}
	start := offs[2]
	for cut := start; cut <= len(data); cut++ {
		img := mem.CrashClone()
		img.WriteFile(path.Join(durDir, name), append([]byte(nil), data[:cut]...))
		d2 := durOpen(t, img, clock, 1, nil)
		want := before
		if cut == len(data) {
			want = after
		}
		if got := durState(d2.shard(0)); got != want {
			t.Fatalf("cut at %d of %d:\n%s\nwant:\n%s", cut, len(data), got, want)
		}
		if err := d2.close(); err != nil {
			t.Fatal(err)
		}
	}
	// A torn tail made of zeros (pre-allocated space) too.
	img := mem.CrashClone()
	torn := append([]byte(nil), data[:start+5]...)
	torn = append(torn, make([]byte, len(data)-start)...)
	img.WriteFile(path.Join(durDir, name), torn)
	d3 := durOpen(t, img, clock, 1, nil)
	if got := durState(d3.shard(0)); got != before {
		t.Errorf("zero-filled torn batch:\n%s\nwant:\n%s", got, before)
	}
}

// TestBatchReplayRejectsMalformed: a Batch whose entries do not decode is
// an error and applies nothing.
func TestBatchReplayRejectsMalformed(t *testing.T) {
	sh := newTestServer(t, 1)
	var b persistence.BatchBuilder
	b.Add(0, persistence.OpSet, append(keyspace.AppendStr(nil, "k"), append(keyspace.AppendStr(nil, "v"), make([]byte, 8)...)...))
	good := b.AppendPayload(nil)
	bad := append(append([]byte(nil), good...), 0xFF) // trailing byte
	if err := sh.ApplyRecord(persistence.Record{Seq: 1, Op: persistence.OpBatch, Payload: bad}); err == nil {
		t.Fatal("malformed batch applied")
	}
	if sh.DBs[0].Len() != 0 {
		t.Fatal("a malformed batch changed the data")
	}
	if err := sh.ApplyRecord(persistence.Record{Seq: 1, Op: persistence.OpBatch, Payload: good}); err != nil {
		t.Fatal(err)
	}
	if sh.DBs[0].Len() != 1 {
		t.Fatal("batch not applied")
	}
}

// TestExecWithBgsaveSplitsUnit: a BGSAVE queued inside a transaction starts
// a snapshot holding the transaction's writes so far; their records must
// come before the snapshot's sequence or replay would apply them twice.
func TestExecWithBgsaveSplitsUnit(t *testing.T) {
	mem := persistence.NewMemFS()
	clock := newDurClock()
	d := durOpen(t, mem, clock, 1, nil)
	sh := d.shard(0)
	d.do(sh, "SET", "x", "-")
	d.do(sh, "SET", "y", "-")
	d.round(sh, [][]string{{"MULTI"}, {"APPEND", "x", "a"}, {"APPEND", "y", "1"}, {"BGSAVE"}, {"APPEND", "x", "b"}, {"APPEND", "y", "2"}, {"EXEC"}})
	want := durState(sh)
	// Finish the snapshot, then crash: recovery reads the snapshot and
	// the WAL after its sequence.
	sh.FinishSnapshotNow()
	if snaps := durFiles(t, mem); !strings.Contains(strings.Join(snaps, " "), ".snap") {
		t.Fatalf("no snapshot: %v", snaps)
	}
	d2 := durOpen(t, mem.CrashClone(), clock, 1, nil)
	if got := durState(d2.shard(0)); got != want {
		t.Errorf("after restart:\n%s\nwant:\n%s", got, want)
	}
	if v := d2.do(d2.shard(0), "GET", "x"); v != "$3\r\n-ab\r\n" {
		t.Errorf("GET x = %q", v)
	}
}

// TestWatchWithoutPersistence: the key-modified hook fires with no log.
func TestWatchWithoutPersistence(t *testing.T) {
	sh := newTestServer(t, 1)
	if sh.Journal != nil {
		t.Fatal("test server has a journal")
	}
	a := sh.Ctx.C
	b := keyspace.NewClient(2, 0, "127.0.0.1:50001", "127.0.0.1:7000", nil, time.UnixMilli(testNowMs))
	b.Authenticated = true
	expect(t, sh, rOK, "WATCH", "k", "other")
	sh.Ctx.C = b
	expect(t, sh, rOK, "SET", "k", "1")
	sh.Ctx.C = a
	if len(sh.Tx.Watched) != 0 {
		t.Errorf("a broken client keeps %d watched keys in the table", len(sh.Tx.Watched))
	}
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, "+QUEUED\r\n", "GET", "k")
	expect(t, sh, "*-1\r\n", "EXEC")
	expect(t, sh, rOK, "WATCH", "k")
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, "+QUEUED\r\n", "GET", "k")
	expect(t, sh, rArr(rBulk("1")), "EXEC")
}

// TestWatchOfClosedClientIsDropped: a connection that closes with watched
// keys leaves nothing in its shard's watch table.
func TestWatchOfClosedClientIsDropped(t *testing.T) {
	sh := newTestServer(t, 1)
	c := sh.Ctx.C
	expect(t, sh, rOK, "WATCH", "a", "b")
	if len(sh.Tx.Watched) != 2 {
		t.Fatalf("%d keys watched", len(sh.Tx.Watched))
	}
	sh.Srv.Disconnected(c)
	sh.ReapClosed()
	if len(sh.Tx.Watched) != 0 {
		t.Fatalf("%d keys still watched after the client closed", len(sh.Tx.Watched))
	}
	// A WATCH that runs after the close registers nothing.
	expect(t, sh, rOK, "WATCH", "a")
	if len(sh.Tx.Watched) != 0 {
		t.Fatalf("WATCH of a closed client registered keys")
	}
}

// TestWatchOfAWatchedKeyAddsNothing: a key watched again, in the same
// WATCH or a later one, is watched once; another client's watch of it and
// the same name in another database are watches of their own.
func TestWatchOfAWatchedKeyAddsNothing(t *testing.T) {
	sh := newTestServer(t, 1)
	a := sh.Ctx.C
	expect(t, sh, rOK, "WATCH", "k", "k", "j")
	expect(t, sh, rOK, "WATCH", "j", "k")
	if n := len(a.Tx.Watched); n != 2 {
		t.Fatalf("client watches %d keys, want 2", n)
	}
	b := keyspace.NewClient(2, 0, "127.0.0.1:50001", "127.0.0.1:7000", nil, time.UnixMilli(testNowMs))
	b.Authenticated = true
	sh.Ctx.C = b
	expect(t, sh, rOK, "WATCH", "k")
	expect(t, sh, rOK, "SELECT", "1")
	expect(t, sh, rOK, "WATCH", "k")
	sh.Ctx.C = a
	k := keyspace.WatchKey{DB: 0, Key: "k"}
	if n := len(sh.Tx.Watched[k]); n != 2 {
		t.Fatalf("%d watches of k in db 0, want 2", n)
	}
	if n := len(sh.Tx.Watched[keyspace.WatchKey{DB: 1, Key: "k"}]); n != 1 {
		t.Fatalf("%d watches of k in db 1, want 1", n)
	}
	expect(t, sh, rOK, "UNWATCH")
	if n := len(sh.Tx.Watched[k]); n != 1 {
		t.Fatalf("%d watches of k after UNWATCH, want b's", n)
	}
}

// TestExecTooLargeForOneRecord: a transaction whose writes could exceed one
// WAL record is refused whole instead of failing the log.
func TestExecTooLargeForOneRecord(t *testing.T) {
	mem := persistence.NewMemFS()
	d := durOpen(t, mem, newDurClock(), 1, nil)
	sh := d.shard(0)
	d.do(sh, "MULTI")
	d.do(sh, "SET", "small", "1")
	// Claim a huge queued write without building one: the bound is what
	// EXEC checks.
	sh.Ctx.C.Tx.LogBound += persistence.MaxPayloadSize
	if got := d.do(sh, "EXEC"); !strings.HasPrefix(got, "-EXECABORT Transaction discarded because of: ERR the transaction's writes may exceed") {
		t.Fatalf("EXEC: %q", got)
	}
	if got := d.do(sh, "SET", "after", "1"); got != rOK {
		t.Fatalf("writes after the refused EXEC: %q", got)
	}
	if got := d.do(sh, "GET", "small"); got != rNull {
		t.Fatalf("a part of the refused transaction ran: %q", got)
	}
}

// TestExecRefusedCountsExecAbort: a refused EXEC replies EXECABORT naming
// the refusal, and errorstats count it under EXECABORT, as Redis does.
func TestExecRefusedCountsExecAbort(t *testing.T) {
	sh := newTestServer(t, 1)
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, rErr("EXECABORT Transaction discarded because of: ERR wrong number of arguments for 'exec' command"), "EXEC", "x")
	info := run(t, sh, "INFO", "errorstats")
	if !strings.Contains(info, "errorstat_EXECABORT:count=1") || strings.Contains(info, "errorstat_ERR") {
		t.Errorf("errorstats: %q", info)
	}
	expect(t, sh, rErr("ERR EXEC without MULTI"), "EXEC")
}

// TestExecSetsNoBlock: the hook blocking commands read is set while EXEC
// runs queued commands and only then.
func TestExecSetsNoBlock(t *testing.T) {
	sh := newTestServer(t, 1)
	var seen []bool
	sh.Srv.Cmds.Add(&keyspace.Command{Name: "probe", Arity: 1, Flags: keyspace.FlagBlocking, Handler: func(x *keyspace.Ctx) {
		seen = append(seen, x.NoBlock)
		x.W.OK()
	}})
	expect(t, sh, rOK, "PROBE")
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, "+QUEUED\r\n", "PROBE")
	expect(t, sh, rArr(rOK), "EXEC")
	expect(t, sh, rOK, "PROBE")
	if len(seen) != 3 || seen[0] || !seen[1] || seen[2] {
		t.Errorf("NoBlock seen as %v, want [false true false]", seen)
	}
}

// TestMultiQueuedSubcommandErrors: an unknown subcommand or a subcommand's
// wrong arity is a queue-time error, as Redis finds it before queuing.
func TestMultiQueuedSubcommandErrors(t *testing.T) {
	sh := newTestServer(t, 1)
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, rErr("ERR unknown subcommand 'nosuch'. Try CLIENT HELP."), "CLIENT", "nosuch")
	expect(t, sh, rErr("EXECABORT Transaction discarded because of previous errors."), "EXEC")
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, rErr("ERR wrong number of arguments for 'config|get' command"), "CONFIG", "GET")
	expect(t, sh, rErr("EXECABORT Transaction discarded because of previous errors."), "EXEC")
	expect(t, sh, rOK, "MULTI")
	expect(t, sh, "+QUEUED\r\n", "CLIENT", "ID")
	expect(t, sh, rArr(rInt(1)), "EXEC")
}
