package integration_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/types/rdb"
)

// restoreCrashValue is the value RESTORE writes as number i: a hash, a
// sorted set, a list or a stream with a consumer group and a pending
// entry, of a few entries that depend on i.
func restoreCrashValue(i int) rdb.Value {
	s := strconv.Itoa(i)
	if i%4 == 3 {
		id := rdb.StreamID{Ms: uint64(i), Seq: 1}
		return rdb.Value{Kind: rdb.KindStream, Stream: &rdb.Stream{
			Entries: []rdb.StreamEntry{{ID: rdb.StreamID{Ms: 1}, Fields: [][]byte{[]byte("n"), []byte(s)}}, {ID: id, Fields: [][]byte{[]byte("f"), []byte("v" + s)}}},
			LastID:  id, FirstID: rdb.StreamID{Ms: 1}, EntriesAdded: 2,
			Groups: []rdb.StreamGroup{{Name: []byte("g"), LastID: id, EntriesRead: 2,
				PEL:       []rdb.StreamPending{{ID: id, DeliveryTime: 1700000000000, DeliveryCount: uint64(i)}},
				Consumers: []rdb.StreamConsumer{{Name: []byte("c" + s), SeenTime: 1700000000000, PEL: []rdb.StreamID{id}}}}},
		}}
	}
	switch i % 3 {
	case 0:
		return rdb.Value{Kind: rdb.KindHash, Pairs: [][]byte{[]byte("n"), []byte(s), []byte("f"), []byte("v" + s)}}
	case 1:
		return rdb.Value{Kind: rdb.KindZSet, Z: []rdb.ZEntry{{Member: []byte("m" + s), Score: float64(i)}, {Member: []byte("x"), Score: -1}}}
	}
	return rdb.Value{Kind: rdb.KindList, Elems: [][]byte{[]byte(s), []byte("tail")}}
}

// TestDurabilityCrashRestore: with fsync = always, RESTOREs of new keys
// and RESTORE … REPLACE of one key run until SIGKILL; after a restart
// every acknowledged restore is there with its contents and deadline,
// and nothing that was never sent.
func TestDurabilityCrashRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t)
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	sent, acked := 0, 0
	want := func(i int) string {
		v := restoreCrashValue(i)
		return rdbContentsAsKey(v)
	}
	for cycle := 0; cycle < 3; cycle++ {
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
		c := p.Client(t, 0)
		if cycle > 0 {
			for i := 1; i <= sent+1; i++ {
				got := keyContents(t, c, "r:"+strconv.Itoa(i))
				switch {
				case i <= acked && got != want(i):
					t.Fatalf("cycle %d: acknowledged r:%d is %q, want %q", cycle, i, got, want(i))
				case i > sent && got != "none":
					t.Fatalf("cycle %d: r:%d was never sent but holds %q", cycle, i, got)
				case i > acked && i <= sent && got != "none" && got != want(i):
					t.Fatalf("cycle %d: r:%d holds %q", cycle, i, got)
				}
				if i <= acked && i%5 == 0 {
					if ttl := c.TTL(ctxT(t), "r:"+strconv.Itoa(i)).Val(); ttl < 100*time.Hour {
						t.Fatalf("r:%d lost its deadline (ttl %v)", i, ttl)
					}
				}
			}
			// "same" holds the last acknowledged version or a later sent one.
			if acked > 0 {
				got := keyContents(t, c, "same")
				ok := false
				for i := acked; i <= sent; i++ {
					ok = ok || got == want(i)
				}
				if !ok {
					t.Fatalf("cycle %d: same is %q, acked %d sent %d", cycle, got, acked, sent)
				}
			}
			// Resume after what survived.
			for sent > acked && keyContents(t, c, "r:"+strconv.Itoa(sent)) == "none" {
				sent--
			}
			acked = sent
		}
		if cycle == 2 {
			_ = c.Close()
			p.Kill(t)
			break
		}
		var killed atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			for !killed.Load() {
				i := sent + 1
				payload := string(rdb.AppendDump(nil, ptr(restoreCrashValue(i))))
				ttl := 0
				if i%5 == 0 {
					ttl = 1000 * 3600 * 1000
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				sent = i
				err := c.Do(ctx, "RESTORE", "r:"+strconv.Itoa(i), ttl, payload).Err()
				if err == nil {
					err = c.Do(ctx, "RESTORE", "same", 0, payload, "REPLACE").Err()
				}
				cancel()
				if err != nil {
					if !killed.Load() {
						t.Errorf("before the kill: %v", err)
					}
					return
				}
				acked = i
			}
		}()
		time.Sleep(time.Duration(200+rng.IntN(300)) * time.Millisecond)
		if cycle == 1 {
			_ = c.BgSave(context.Background()).Err()
			time.Sleep(50 * time.Millisecond)
		}
		killed.Store(true)
		p.Kill(t)
		<-done
		_ = c.Close()
		if t.Failed() {
			t.Logf("output:\n%s", p.Output())
			return
		}
		if acked < 10 {
			t.Fatalf("only %d restores acknowledged", acked)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// rdbContentsAsKey is keyContents' description of a key holding v.
func rdbContentsAsKey(v rdb.Value) string {
	var parts []string
	switch v.Kind {
	case rdb.KindList:
		for _, e := range v.Elems {
			parts = append(parts, string(e))
		}
	case rdb.KindHash:
		for i := 0; i < len(v.Pairs); i += 2 {
			parts = append(parts, string(v.Pairs[i])+"="+string(v.Pairs[i+1]))
		}
		sortStrings(parts)
	case rdb.KindStream:
		// As streamFull prints XINFO STREAM FULL COUNT 0 in RESP3.
		st := v.Stream
		var entries []any
		for _, e := range st.Entries {
			var fv []any
			for _, f := range e.Fields {
				fv = append(fv, string(f))
			}
			entries = append(entries, []any{e.ID.String(), fv})
		}
		var groups []any
		for _, g := range st.Groups {
			var pel, consumers []any
			for _, c := range g.Consumers {
				var cp []any
				for _, id := range c.PEL {
					for _, p := range g.PEL {
						if p.ID == id {
							cp = append(cp, []any{id.String(), p.DeliveryTime, int64(p.DeliveryCount)})
							pel = append(pel, []any{id.String(), string(c.Name), p.DeliveryTime, int64(p.DeliveryCount)})
						}
					}
				}
				consumers = append(consumers, map[string]any{"name": string(c.Name), "seen-time": c.SeenTime, "pel-count": int64(len(c.PEL)), "pending": cp})
			}
			groups = append(groups, map[string]any{"name": string(g.Name), "last-delivered-id": g.LastID.String(), "entries-read": g.EntriesRead,
				"lag": int64(0), "pel-count": int64(len(g.PEL)), "pending": pel, "consumers": consumers})
		}
		return "stream " + strconv.Quote(canonReply(map[string]any{"length": int64(len(st.Entries)), "last-generated-id": st.LastID.String(),
			"max-deleted-entry-id": st.MaxDeletedID.String(), "entries-added": int64(st.EntriesAdded), "recorded-first-entry-id": st.FirstID.String(),
			"entries": entries, "groups": groups}))
	case rdb.KindZSet:
		for _, z := range v.Z {
			parts = append(parts, string(z.Member)+"="+strconv.FormatFloat(z.Score, 'g', -1, 64))
		}
		// By score, as ZRANGE gives them.
		if len(parts) == 2 {
			parts[0], parts[1] = parts[1], parts[0]
		}
	}
	return v.Kind.String() + " " + strconv.Quote(joinNUL(parts))
}

func sortStrings(s []string) { slices.Sort(s) }

func joinNUL(s []string) string { return strings.Join(s, "\x00") }
