package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// Tests of the key jobs' persistence: replaying their WAL records and
// loading their snapshot encodings rebuild the live state, malformed
// records and values are refused, IDEM's record and its torn completions,
// and the start-up check of proto_max_bulk_len against IDEM's largest
// record. kjState, kjReplay and kjSnapshotCopy serve the other key-job
// tests too.

// kjState dumps the observable state of every live key at now: values,
// deadlines, and the fields of key-job values (semaphores list their live
// holders only, since an expired holder is as good as absent).
func kjState(sh *keyspace.Shard, now int64) string {
	var lines []string
	for i, db := range sh.DBs {
		db.Each(func(e *keyspace.Entry) {
			if e.Expired(now) {
				return
			}
			var v string
			switch o := db.Obj(e).(type) {
			case nil:
				v = strconv.Quote(string(db.Val(e)))
			case *keyspace.LeaseObj:
				v = fmt.Sprintf("lease token=%d until=%d", o.Token, o.Until)
			case *keyspace.SemObj:
				var hs []string
				for _, h := range append([]keyspace.SemHolder{o.First}, o.More...) {
					if h.Until > now {
						hs = append(hs, fmt.Sprintf("%d@%d", h.Token, h.Until))
					}
				}
				slices.Sort(hs)
				v = fmt.Sprintf("semaphore last=%d holders=%v", o.Last, hs)
			case *keyspace.SetvObj:
				v = fmt.Sprintf("setv %d %q", o.Version, o.Val)
			case *keyspace.LimitObj:
				v = fmt.Sprintf("limit %d", o.Count)
			case keyspace.OnceObj:
				v = "once"
			default:
				v = fmt.Sprintf("%T", o)
			}
			lines = append(lines, fmt.Sprintf("db%d %q %s deadline=%d", i, e.KeyView(), v, e.ExpireAt))
		})
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// kjReplay applies records to a fresh shard through the WAL framing.
func kjReplay(t *testing.T, recs []persistence.Record) *keyspace.Shard {
	t.Helper()
	sh := newTestShard(t)
	durApply(t, sh, recs)
	return sh
}

// kjSnapshotCopy rebuilds sh through the snapshot encoding of every entry.
func kjSnapshotCopy(t *testing.T, sh *keyspace.Shard) *keyspace.Shard {
	t.Helper()
	out := newTestShard(t)
	for i, db := range sh.DBs {
		db.Each(func(e *keyspace.Entry) {
			kind, val := keyspace.KindString, db.Val(e)
			if sv, ok := db.Obj(e).(keyspace.SnapshotValue); ok {
				kind, val = sv.SnapshotKind(), sv.AppendSnapshot(nil)
			} else if db.Obj(e) != nil {
				t.Fatalf("%T has no snapshot encoding", db.Obj(e))
			}
			if err := out.LoadSnapshotEntry(uint16(i), kind, []byte(e.KeyView()), val, e.ExpireAt); err != nil {
				t.Fatal(err)
			}
		})
	}
	return out
}

// TestKeyJobsReplayMatchesLive runs a random workload of every key job,
// checks that each command writes at most its one record (plus the
// deletion of a key found expired) and nothing when rejected, and that
// replaying the records, or loading a snapshot, rebuilds the same state.
func TestKeyJobsReplayMatchesLive(t *testing.T) {
	sh, j := kjShard(t)
	rng := uint64(12345)
	rnd := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	var all []persistence.Record
	semTokens := map[string][]string{}
	leaseTokens := map[string]int{}
	keys := []string{"a", "b", "c", "d"}
	now := int64(0)
	seen := map[persistence.Opcode]int{}
	defer func() {
		for _, op := range []persistence.Opcode{persistence.OpLease, persistence.OpRelease, persistence.OpSemaphoreAcquire,
			persistence.OpSemaphoreRelease, persistence.OpSetV, persistence.OpLimit, persistence.OpOnce, persistence.OpIdempotencyPut,
			persistence.OpSet, persistence.OpDel, persistence.OpExpire} {
			if seen[op] == 0 {
				t.Errorf("the workload never wrote %s", op)
			}
		}
		t.Logf("records by opcode: %v", seen)
	}()
	for step := 0; step < 3000; step++ {
		now += int64(rnd(40))
		kjAt(sh, now)
		k := keys[rnd(len(keys))]
		ttl := strconv.Itoa(1 + rnd(400))
		var args []string
		c := rnd(16)
		if rnd(4) != 0 {
			// Mostly a key of the command's own family, sometimes a
			// shared one, for wrong-type and replacement cases.
			k = "home" + strconv.Itoa(c/2)
		}
		switch c {
		case 0:
			args = []string{"LEASE", k, ttl}
		case 1:
			args = []string{"RELEASE", k, strconv.Itoa(leaseTokens[k] + rnd(2))}
		case 2:
			args = []string{"SEMAPHORE", k, strconv.Itoa(1 + rnd(4)), strconv.Itoa(1 + rnd(1500))}
		case 3:
			if ts := semTokens[k]; len(ts) > 0 {
				args = []string{"RELEASE", k, ts[rnd(len(ts))]}
			} else {
				args = []string{"RELEASE", k, "1"}
			}
		case 4:
			if rnd(2) == 0 {
				args = []string{"SETV", k, "v" + strconv.Itoa(step)}
			} else {
				args = []string{"SETV", k, "v" + strconv.Itoa(step), strconv.Itoa(1 + rnd(3))}
			}
		case 5:
			args = []string{"LIMIT", k, strconv.Itoa(1 + rnd(3)), ttl}
		case 6:
			args = []string{"ONCE", k, ttl}
		case 7:
			args = []string{"TAKE", k, strconv.Itoa(1 + rnd(3))}
		case 8:
			args = []string{"INCRBY", k, strconv.Itoa(rnd(5) - 1), "MAX", "6"}
		case 9:
			args = []string{"IDEM", k, "BEGIN", "fp" + strconv.Itoa(rnd(2)), "o" + strconv.Itoa(rnd(2)), ttl}
		case 10:
			args = []string{"IDEM", k, "COMPLETE", "fp" + strconv.Itoa(rnd(2)), "o" + strconv.Itoa(rnd(2)), "r" + strconv.Itoa(rnd(2))}
		case 11:
			args = []string{"SET", k, strconv.Itoa(rnd(8))}
		case 12:
			args = []string{"DEL", k}
		case 13:
			args = []string{"GETEX", k, ttl}
		case 14:
			args = []string{"PEXPIRE", k, ttl}
		default:
			args = []string{"SET", k, strconv.Itoa(rnd(8)), "PX", ttl}
		}
		reply := run(t, sh, args...)
		if args[0] == "LEASE" && strings.HasPrefix(reply, ":") {
			leaseTokens[k] = int(kjInt(t, reply))
		}
		if args[0] == "SEMAPHORE" && strings.HasPrefix(reply, ":") {
			semTokens[k] = append(semTokens[k], strings.TrimSuffix(reply[1:], "\r\n"))
		}
		recs := append([]persistence.Record(nil), j.recs...)
		j.recs = j.recs[:0]
		rejected := strings.HasPrefix(reply, "-") || reply == rNull || (reply == rInt(0) && (args[0] == "RELEASE" || args[0] == "ONCE" || args[0] == "IDEM")) ||
			strings.HasPrefix(reply, "*1\r\n$7\r\npending") || strings.HasPrefix(reply, "*1\r\n$8\r\nconflict") || strings.HasPrefix(reply, "*2\r\n$9\r\ncompleted")
		if args[0] == "IDEM" && args[2] == "COMPLETE" && reply == rInt(1) && len(recs) == 0 {
			rejected = true // identical repeat
		}
		if args[0] == "GETEX" || args[0] == "PEXPIRE" || args[0] == "SET" || args[0] == "DEL" {
			rejected = len(recs) == 0
		}
		if len(recs) > 0 && recs[0].Op == persistence.OpDel && (len(recs) == 2 || rejected) {
			// A key found expired is deleted first, with its own record.
			all = append(all, recs[0])
			recs = recs[1:]
		}
		if rejected && len(recs) != 0 || !rejected && len(recs) != 1 {
			t.Fatalf("step %d %q replied %q and wrote %d records", step, args, reply, len(recs))
		}
		all = append(all, recs...)
		for _, r := range recs {
			seen[r.Op]++
		}
		if step%500 == 499 {
			want := kjState(sh, sh.NowMs)
			durCmp := func(what, got string) {
				if got != want {
					t.Fatalf("step %d: %s differs:\n got  %s\n want %s", step, what, got, want)
				}
			}
			durCmp("replay", kjState(kjReplay(t, all), sh.NowMs))
			durCmp("snapshot", kjState(kjSnapshotCopy(t, sh), sh.NowMs))
		}
	}
}

func TestKeyJobsReplayErrors(t *testing.T) {
	sh := newTestShard(t)
	for _, op := range []persistence.Opcode{persistence.OpLease, persistence.OpRelease, persistence.OpSemaphoreAcquire,
		persistence.OpSemaphoreRelease, persistence.OpSetV, persistence.OpLimit, persistence.OpOnce, persistence.OpIdempotencyPut} {
		if err := sh.ApplyRecord(persistence.Record{Seq: 1, Op: op, Payload: []byte{1, 'k'}}); err == nil {
			t.Errorf("%s: a truncated payload was accepted", op)
		}
		p := append([]byte{1, 'k'}, make([]byte, 40)...)
		if err := sh.ApplyRecord(persistence.Record{Seq: 1, Op: op, Payload: p}); err == nil {
			t.Errorf("%s: trailing bytes were accepted", op)
		}
	}
	for _, kind := range []uint8{keyspace.KindLease, keyspace.KindSemaphore, keyspace.KindSetV, keyspace.KindLimit} {
		if _, _, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), kind, []byte{1, 2, 3}); err == nil {
			t.Errorf("kind %d: a short value was accepted", kind)
		}
	}
	if _, _, err := keyspace.DecodeSnapshotValue(keyspace.DefaultValueConfig(), keyspace.KindSemaphore, persistence.AppendU64(persistence.AppendU64(nil, 1), 1<<40)); err == nil {
		t.Error("a semaphore claiming too many holders was accepted")
	}
}

func TestKeyJobsIdemStartupCheck(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		warn  bool
	}{{1 << 20, true}, {keyspace.IdemMaxRecordLen - 1, true}, {keyspace.IdemMaxRecordLen, false}, {512 << 20, false}} {
		core, logs := observer.New(zap.WarnLevel)
		opts := testOptions(t, 1, nil)
		opts.Config.Limits.ProtoMaxBulkLen = tc.limit
		opts.Live = config.NewLive(opts.Config)
		opts.Logger = zap.New(core)
		if _, err := keyspace.NewServer(opts); err != nil {
			t.Fatal(err)
		}
		got := logs.FilterMessageSnippet("proto_max_bulk_len").Len() == 1
		if got != tc.warn {
			t.Errorf("proto_max_bulk_len %d: warned %v, want %v (%v)", tc.limit, got, tc.warn, logs.All())
		}
	}
}

// TestKeyJobsIdemWALRecord checks the payload of IdempotencyPut (opcode
// 53): key, the whole packed record and the absolute deadline in one
// record, for the creation and for the completion (same deadline), in the
// database the command ran in.
func TestKeyJobsIdemWALRecord(t *testing.T) {
	sh, j := kjShard(t)
	if persistence.OpIdempotencyPut != 53 {
		t.Fatalf("IdempotencyPut is opcode %d", persistence.OpIdempotencyPut)
	}
	want := func(state byte, result string, at int64) []byte {
		p := keyspace.AppendStr(nil, "k")
		p = persistence.AppendBytes(p, []byte(idemRec(state, "fp", "own", result)))
		return persistence.AppendI64(p, at)
	}
	expect(t, sh, rOK, "SELECT", "1")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "k", "BEGIN", "fp", "own", "1000")
	kjAt(sh, 400)
	expect(t, sh, rInt(1), "IDEM", "k", "COMPLETE", "fp", "own", "res")
	if len(j.recs) != 2 {
		t.Fatalf("%d records", len(j.recs))
	}
	for i, w := range [][]byte{want('P', "", testNowMs+1000), want('C', "res", testNowMs+1000)} {
		r := j.recs[i]
		if r.Op != persistence.OpIdempotencyPut || r.DB != 1 || !bytes.Equal(r.Payload, w) {
			t.Errorf("record %d: %s db %d %q, want IdempotencyPut db 1 %q", i, r.Op, r.DB, r.Payload, w)
		}
	}
	// Databases are separate: the same key in database 0 is still free.
	expect(t, sh, rOK, "SELECT", "0")
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "k", "BEGIN", "fp2", "own", "1000")
}

// TestKeyJobsIdemTornCompletion cuts the WAL frame of a completion at every
// offset: no prefix decodes, so recovery keeps the pending record with its
// deadline and never a completed record without one.
func TestKeyJobsIdemTornCompletion(t *testing.T) {
	sh, j := kjShard(t)
	expect(t, sh, rArr(rBulk("acquired")), "IDEM", "k", "BEGIN", "fp", "own", "1000")
	expect(t, sh, rInt(1), "IDEM", "k", "COMPLETE", "fp", "own", "result")
	create, complete := j.recs[0], j.recs[1]
	frame, err := persistence.AppendRecord(nil, complete)
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(frame); cut++ {
		if _, _, err := persistence.DecodeRecord(frame[:cut]); err == nil {
			t.Fatalf("a completion cut at %d of %d bytes decoded", cut, len(frame))
		}
	}
	// Only the creation survives: pending, with the original deadline.
	re := kjReplay(t, []persistence.Record{create})
	expect(t, re, rArr(rBulk("pending")), "IDEM", "k", "BEGIN", "fp", "x", "1000")
	expect(t, re, rInt(1000), "PTTL", "k")
	// Both survive: completed, with the same deadline.
	re = kjReplay(t, []persistence.Record{create, complete})
	expect(t, re, rArr(rBulk("completed"), rBulk("result")), "IDEM", "k", "BEGIN", "fp", "x", "1000")
	expect(t, re, rInt(1000), "PTTL", "k")
}
