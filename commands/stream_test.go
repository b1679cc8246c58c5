package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/stream"
)

// TestStreamReplay: every stream mutation writes records whose replay
// gives the same state (entries, metadata, groups, PELs, consumers,
// holds and deferrals), and reads and refused writes log nothing.
func TestStreamReplay(t *testing.T) {
	c := newDurReplayChecker(t)
	at := func(ms int64) { c.src.NowMs = ms }
	at(testNowMs)
	c.do(persistence.OpStreamAdd, "XADD", "s", "*", "a", "1", "b", "2")
	c.do(persistence.OpStreamAdd, "XADD", "s", "*", "a", "3")
	c.do(persistence.OpStreamAdd, "XADD", "s", strconv.FormatInt(testNowMs, 10)+"-*", "c", "x")
	c.do(persistence.OpStreamAdd, "XADD", "s", "DELAY", "1000", "*", "held", "1")
	c.do(persistence.OpStreamAdd, "XADD", "s", "*", "a", "5")
	c.do(persistence.OpStreamGroupCreate, "XGROUP", "CREATE", "s", "g", "0")
	c.do(persistence.OpStreamGroupCreate, "XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "3")
	c.do(persistence.OpStreamGroupCreate, "XGROUP", "CREATE", "new", "g", "$", "MKSTREAM")
	c.do(persistence.OpStreamConsumerCreate, "XGROUP", "CREATECONSUMER", "s", "g", "idle")
	// A new consumer and the read are one unit.
	c.do(persistence.OpBatch, "XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "s", ">")
	c.do(persistence.OpBatch, "XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">")
	at(testNowMs + 1500)
	c.do(persistence.OpStreamGroupRead, "XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", ">")
	c.do(persistence.OpStreamClaim, "XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0")
	c.do(persistence.OpStreamAdd, "XADD", "s", "*", "for", "g2")
	c.do(persistence.OpBatch, "XREADGROUP", "GROUP", "g2", "c1", "NOACK", "STREAMS", "s", ">")
	c.do(persistence.OpBatch, "XCLAIM", "s", "g", "c3", "0", strconv.FormatInt(testNowMs, 10)+"-0", "RETRYCOUNT", "7", "LASTID", "99999999999999-0")
	c.do(persistence.OpBatch, "XAUTOCLAIM", "s", "g", "c4", "0", "0", "COUNT", "2")
	c.do(persistence.OpStreamAck, "XACK", "s", "g", strconv.FormatInt(testNowMs, 10)+"-1", "1-1")
	c.do(persistence.OpStreamDel, "XDEL", "s", strconv.FormatInt(testNowMs, 10)+"-2", "5-5")
	c.do(persistence.OpBatch, "XAUTOCLAIM", "s", "g", "c4", "0", "0")
	c.do(persistence.OpBatch, "XCLAIM", "s", "g", "c5", "0", strconv.FormatInt(testNowMs, 10)+"-4", "FORCE", "JUSTID", "TIME", "12345")
	c.do(persistence.OpStreamGroupSetID, "XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD", "0")
	c.do(persistence.OpStreamConsumerDel, "XGROUP", "DELCONSUMER", "s", "g", "c5")
	c.do(persistence.OpStreamGroupDestroy, "XGROUP", "DESTROY", "s", "g2")
	c.do(persistence.OpStreamTrim, "XTRIM", "s", "MAXLEN", "~", "1")
	c.do(persistence.OpStreamAdd, "XADD", "s", "MINID", "=", strconv.FormatInt(testNowMs+1500, 10), "*", "z", "1")
	c.do(persistence.OpStreamSetID, "XSETID", "s", "99999999999999-5", "ENTRIESADDED", "50", "MAXDELETEDID", "3-3")
	c.do(persistence.OpStreamAdd, "XADD", "s", "MAXLEN", "0", "*", "gone", "1")
	c.do(persistence.OpCopy, "COPY", "s", "s2")
	c.do(persistence.OpRename, "RENAME", "s2", "s3")
	c.do(persistence.OpStreamAdd, "XADD", "s3", "*", "after", "copy")
	n := len(c.j.recs)
	for _, cmd := range [][]string{
		{"XRANGE", "s", "-", "+"}, {"XLEN", "s"}, {"XREAD", "STREAMS", "s", "0"}, {"XINFO", "STREAM", "s", "FULL"},
		{"XPENDING", "s", "g"}, {"XADD", "s", "NOMKSTREAM", "1-1", "a", "b"}, {"XADD", "nokey", "NOMKSTREAM", "*", "a", "b"},
		{"XDEL", "s", "1-1"}, {"XACK", "s", "g", "1-1"}, {"XTRIM", "s", "MAXLEN", "100"}, {"XGROUP", "CREATE", "s", "g", "0"},
		{"XGROUP", "DESTROY", "s", "nope"}, {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "new", ">"},
		{"XGROUP", "CREATECONSUMER", "s", "g", "c1"},
	} {
		run(t, c.src, cmd...)
	}
	if len(c.j.recs) != n {
		t.Fatalf("reads and refused writes logged %d records", len(c.j.recs)-n)
	}
}

// TestStreamDelayDelivery: a held entry is visible to XRANGE and XREAD at
// once, skipped by XREADGROUP until due, then delivered once per group
// before later entries.
func TestStreamDelayDelivery(t *testing.T) {
	sh := newTestShard(t)
	sh.NowMs = 1000
	expect(t, sh, rBulk("1-0"), "XADD", "s", "1-0", "n", "1")
	expect(t, sh, rBulk("2-0"), "XADD", "s", "DELAY", "500", "2-0", "n", "2")
	expect(t, sh, rBulk("3-0"), "XADD", "s", "3-0", "n", "3")
	expect(t, sh, rOK, "XGROUP", "CREATE", "s", "a", "0")
	expect(t, sh, rOK, "XGROUP", "CREATE", "s", "b", "0")
	entry := func(id, n string) string { return rArr(rBulk(id), rArr(rBulk("n"), rBulk(n))) }
	read := func(entries ...string) string { return rArr(rArr(rBulk("s"), rArr(entries...))) }
	expect(t, sh, rArr(entry("1-0", "1"), entry("2-0", "2"), entry("3-0", "3")), "XRANGE", "s", "-", "+")
	expect(t, sh, read(entry("2-0", "2"), entry("3-0", "3")), "XREAD", "STREAMS", "s", "1-0")
	expect(t, sh, read(entry("1-0", "1"), entry("3-0", "3")), "XREADGROUP", "GROUP", "a", "c", "STREAMS", "s", ">")
	expect(t, sh, "*-1\r\n", "XREADGROUP", "GROUP", "a", "c", "STREAMS", "s", ">")
	if got := run(t, sh, "XINFO", "STREAM", "s"); !strings.Contains(got, rBulk("held-entries")+rInt(1)) {
		t.Fatalf("XINFO STREAM without held-entries: %q", got)
	}
	expect(t, sh, rArr(rInt(2), rBulk("1-0"), rBulk("3-0"), rArr(rArr(rBulk("c"), rBulk("2")))), "XPENDING", "s", "a")
	sh.NowMs = 1499
	expect(t, sh, "*-1\r\n", "XREADGROUP", "GROUP", "a", "c", "STREAMS", "s", ">")
	sh.NowMs = 1500
	expect(t, sh, rBulk("4-0"), "XADD", "s", "4-0", "n", "4")
	expect(t, sh, read(entry("2-0", "2"), entry("4-0", "4")), "XREADGROUP", "GROUP", "a", "c", "STREAMS", "s", ">")
	expect(t, sh, "*-1\r\n", "XREADGROUP", "GROUP", "a", "c", "STREAMS", "s", ">")
	// Group b reads only now: everything is due, in id order.
	expect(t, sh, read(entry("1-0", "1"), entry("2-0", "2")), "XREADGROUP", "GROUP", "b", "c", "COUNT", "2", "STREAMS", "s", ">")
	expect(t, sh, read(entry("3-0", "3"), entry("4-0", "4")), "XREADGROUP", "GROUP", "b", "c", "STREAMS", "s", ">")
	if got := run(t, sh, "XINFO", "STREAM", "s"); strings.Contains(got, "held-entries") {
		t.Fatalf("XINFO STREAM reports held entries after the delay: %q", got)
	}
	expect(t, sh, rErr("ERR The DELAY argument must be >= 0."), "XADD", "s", "DELAY", "-1", "*", "a", "b")
	expect(t, sh, rErr(keyspace.ErrNotInt), "XADD", "s", "DELAY", "x", "*", "a", "b")
}

// TestStreamSnapshotEncoding: a stream with groups, PELs, deferrals and
// holds round-trips through its snapshot encoding; corrupt bytes are
// refused.
func TestStreamSnapshotEncoding(t *testing.T) {
	sh := newTestShard(t)
	sh.NowMs = 1000
	run(t, sh, "XADD", "s", "1-0", "a", "1")
	run(t, sh, "XADD", "s", "DELAY", "100", "2-0", "a", "2")
	run(t, sh, "XADD", "s", "3-0", "b", "3", "c", "4")
	run(t, sh, "XGROUP", "CREATE", "s", "g", "0")
	run(t, sh, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	e := sh.DBs[0].Find([]byte("s"))
	o := sh.DBs[0].Obj(e).(*keyspace.StreamObj)
	_, got, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), o.SnapshotKind(), o.AppendSnapshot(nil))
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*keyspace.StreamObj); g.String() != o.String() {
		t.Fatalf("got %s, want %s", g, o)
	}
	if !strings.Contains(o.String(), "deferred=2-0") || !strings.Contains(o.String(), "hold=2-0@1100") {
		t.Fatalf("state without the hold or the deferral: %s", o)
	}
	if _, _, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), keyspace.KindStream, []byte{1, 2, 3}); err == nil {
		t.Fatal("corrupt stream encoding accepted")
	}
}

// TestStreamWALGolden pins the payload of StreamAdd (100): a change of
// these bytes is a format change.
func TestStreamWALGolden(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	sh.NowMs = 1000
	run(t, sh, "XADD", "k", "MAXLEN", "0", "DELAY", "5", "7-1", "f", "v")
	if len(j.recs) != 1 || j.recs[0].Op != 100 || keyspace.KindStream != 100 {
		t.Fatalf("records %v", j.recs)
	}
	const want = "016b" + "0700000000000000" + "0100000000000000" + "ed03000000000000" +
		"0700000000000000" + "0100000000000000" + "0100000000000000" + "0166" + "0176"
	if got := hex.EncodeToString(j.recs[0].Payload); got != want {
		t.Fatalf("payload %s, want %s", got, want)
	}
}

// TestStreamErrors: Redis's error texts, and nothing changes.
func TestStreamErrors(t *testing.T) {
	sh := newTestShard(t)
	j := attachJournal(sh)
	run(t, sh, "SET", "str", "v")
	j.take()
	wrong := rErr(keyspace.ErrWrongType)
	for _, cmd := range [][]string{
		{"XADD", "str", "*", "a", "b"}, {"XLEN", "str"}, {"XRANGE", "str", "-", "+"}, {"XREVRANGE", "str", "+", "-"},
		{"XREAD", "STREAMS", "str", "0"}, {"XDEL", "str", "1-1"}, {"XTRIM", "str", "MAXLEN", "1"}, {"XSETID", "str", "1-1"},
		{"XGROUP", "CREATE", "str", "g", "0"}, {"XACK", "str", "g", "1-1"}, {"XPENDING", "str", "g"},
		{"XCLAIM", "str", "g", "c", "0", "1-1"}, {"XAUTOCLAIM", "str", "g", "c", "0", "0"}, {"XINFO", "STREAM", "str"},
		{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "str", ">"},
	} {
		expect(t, sh, wrong, cmd...)
	}
	expect(t, sh, rErr("ERR wrong number of arguments for 'xadd' command"), "XADD", "s", "*", "a")
	expect(t, sh, rErr("ERR The ID specified in XADD must be greater than 0-0"), "XADD", "s", "0-0", "a", "b")
	expect(t, sh, rErr(errInvalidStreamID), "XADD", "s", "1-x", "a", "b")
	expect(t, sh, rErr("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"), "XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "b")
	expect(t, sh, rErr("ERR syntax error, LIMIT cannot be used without the special ~ option"), "XADD", "s", "MAXLEN", "1", "LIMIT", "5", "*", "a", "b")
	expect(t, sh, rErr("ERR The MAXLEN argument must be >= 0."), "XTRIM", "s", "MAXLEN", "-1")
	expect(t, sh, rErr("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"), "XTRIM", "s", "LIMIT", "1")
	expect(t, sh, rErr("ERR syntax error, XTRIM must be called with a trimming strategy"), "XTRIM", "s", "LIMIT", "0")
	expect(t, sh, rErr(keyspace.ErrNoSuchKey), "XSETID", "s", "1-1")
	expect(t, sh, rErr(errXGroupNoKey), "XGROUP", "CREATE", "s", "g", "0")
	expect(t, sh, rErr("ERR unknown subcommand 'nope'. Try XGROUP HELP."), "XGROUP", "nope")
	expect(t, sh, rErr("ERR wrong number of arguments for 'xgroup|help' command"), "XGROUP", "HELP", "x")
	expect(t, sh, rErr("ERR invalid start ID for the interval"), "XRANGE", "s", "(18446744073709551615-18446744073709551615", "+")
	expect(t, sh, rErr("ERR Missing GROUP option for XREADGROUP"), "XREADGROUP", "COUNT", "1", "NOACK", "STREAMS", "s", ">")
	expect(t, sh, rErr("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."), "XREAD", "STREAMS", "s", ">")
	expect(t, sh, rErr("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."), "XREAD", "STREAMS", "s", "t", "0")
	expect(t, sh, rErr("NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"), "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	expect(t, sh, rErr("NOGROUP No such key 's' or consumer group 'g'"), "XPENDING", "s", "g")
	expectOps(t, j, "refused stream commands")
	if _, ok := any(&keyspace.StreamObj{S: stream.New()}).(keyspace.SnapshotValue); !ok {
		t.Fatal("streamObj is not a snapshotValue")
	}
}

// BenchmarkStreamReadAck is one XREADGROUP … COUNT 1 > and one XACK per
// iteration against a shard with a recording journal, with 50 consumers
// taking turns.
func BenchmarkStreamReadAck(b *testing.B) {
	sh := newTestServer(b, 1)
	attachJournal(sh)
	fields := []string{"f1", "value-1", "f2", "value-2", "f3", "value-3", "f4", "value-4", "f5", "value-5"}
	for i := 0; i < b.N+1; i++ {
		execArgv(sh, toArgv(append([]string{"XADD", "s", strconv.Itoa(i + 1)}, fields...)...))
	}
	execArgv(sh, toArgv("XGROUP", "CREATE", "s", "g", "0"))
	j := sh.Journal.(*recJournal)
	consumers := make([][]byte, 50)
	for i := range consumers {
		consumers[i] = []byte("c" + strconv.Itoa(i))
	}
	read := toArgv("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">")
	ack := toArgv("XACK", "s", "g", "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		read[3] = consumers[i%50]
		execArgv(sh, read)
		ack[3] = []byte(strconv.Itoa(i+1) + "-0")
		if got := execArgv(sh, ack); string(got) != ":1\r\n" {
			b.Fatalf("XACK: %q", got)
		}
		if len(j.recs) > 1024 {
			j.recs = j.recs[:0]
		}
	}
}
