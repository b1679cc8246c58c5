package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// readGroup runs XREADGROUP GROUP g c STREAMS key > (no BLOCK) and returns
// the ids delivered.
func readGroup(t *testing.T, c redis.UniversalClient, key, g, consumer string) []string {
	t.Helper()
	xs, err := c.XReadGroup(ctxT(t), &redis.XReadGroupArgs{Group: g, Consumer: consumer, Streams: []string{key, ">"}, Block: -1}).Result()
	if err == redis.Nil {
		return nil
	}
	if err != nil {
		t.Fatalf("XREADGROUP %s %s: %v", g, consumer, err)
	}
	var ids []string
	for _, m := range xs[0].Messages {
		ids = append(ids, m.ID)
	}
	return ids
}

func addDelayed(t *testing.T, c redis.UniversalClient, key, id string, delayMs int) {
	t.Helper()
	args := []interface{}{"XADD", key}
	if delayMs > 0 {
		args = append(args, "DELAY", delayMs)
	}
	args = append(args, id, "v", id)
	if got, err := c.Do(ctxT(t), args...).Result(); err != nil || got != id {
		t.Fatalf("XADD %s: %v %v", id, got, err)
	}
}

// TestStreamDelay: a held entry is stored and visible to XRANGE and XREAD
// at once; XREADGROUP skips it until it is due, then delivers it once per
// group, before later entries; XPENDING does not list it before.
func TestStreamDelay(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		t.Run("shards"+strconv.Itoa(shards), func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			c := s.UniversalClient(t)
			key := "delay"
			addDelayed(t, c, key, "1-0", 0)
			addDelayed(t, c, key, "2-0", 400)
			addDelayed(t, c, key, "3-0", 0)
			addDelayed(t, c, key, "4-0", 200)
			for _, g := range []string{"a", "b"} {
				if err := c.XGroupCreate(ctxT(t), key, g, "0").Err(); err != nil {
					t.Fatal(err)
				}
			}
			if n := c.XLen(ctxT(t), key).Val(); n != 4 {
				t.Fatalf("XLEN %d", n)
			}
			xs, err := c.XRead(ctxT(t), &redis.XReadArgs{Streams: []string{key, "0"}, Block: -1}).Result()
			if err != nil || len(xs[0].Messages) != 4 {
				t.Fatalf("XREAD sees held entries: %v %v", xs, err)
			}
			if got := readGroup(t, c, key, "a", "c1"); !reflect.DeepEqual(got, []string{"1-0", "3-0"}) {
				t.Fatalf("group a before the delays: %v", got)
			}
			info, err := c.Do(ctxT(t), "XINFO", "STREAM", key).Result()
			if err != nil || !hasHeld(info, 2) {
				t.Fatalf("XINFO STREAM: %v %v", info, err)
			}
			pend, err := c.XPending(ctxT(t), key, "a").Result()
			if err != nil || pend.Count != 2 || pend.Higher != "3-0" {
				t.Fatalf("XPENDING lists held entries: %+v %v", pend, err)
			}
			if got := readGroup(t, c, key, "a", "c1"); got != nil {
				t.Fatalf("held entries delivered early: %v", got)
			}
			time.Sleep(250 * time.Millisecond)
			addDelayed(t, c, key, "5-0", 0)
			if got := readGroup(t, c, key, "a", "c2"); !reflect.DeepEqual(got, []string{"4-0", "5-0"}) {
				t.Fatalf("group a after 250 ms: %v", got)
			}
			time.Sleep(250 * time.Millisecond)
			if got := readGroup(t, c, key, "a", "c2"); !reflect.DeepEqual(got, []string{"2-0"}) {
				t.Fatalf("group a after 500 ms: %v", got)
			}
			if got := readGroup(t, c, key, "a", "c2"); got != nil {
				t.Fatalf("group a got a held entry twice: %v", got)
			}
			if got := readGroup(t, c, key, "b", "c"); !reflect.DeepEqual(got, []string{"1-0", "2-0", "3-0", "4-0", "5-0"}) {
				t.Fatalf("group b reading late: %v", got)
			}
		})
	}
}

// hasHeld reports whether an XINFO STREAM reply (RESP2 list or RESP3 map)
// has held-entries = n.
func hasHeld(info interface{}, n int64) bool {
	switch v := info.(type) {
	case []interface{}:
		for i := 0; i+1 < len(v); i += 2 {
			if v[i] == "held-entries" {
				return v[i+1] == n
			}
		}
	case map[interface{}]interface{}:
		return v["held-entries"] == n
	}
	return false
}

// TestStreamDelayRestart: holds survive a SIGKILL under fsync = always
// (replayed from the WAL) and a snapshot, with their absolute due times:
// held entries are not delivered early after the restart and are
// delivered exactly once when due.
func TestStreamDelayRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	for _, snapshot := range []bool{false, true} {
		t.Run("snapshot="+strconv.FormatBool(snapshot), func(t *testing.T) {
			dir := t.TempDir()
			p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Fsync: "always"})
			c := p.Client(t, 0)
			key := "dr"
			if err := c.XGroupCreateMkStream(ctxT(t), key, "g", "$").Err(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			addDelayed(t, c, key, "1-0", 0)
			addDelayed(t, c, key, "2-0", 2500)
			addDelayed(t, c, key, "3-0", 0)
			if got := readGroup(t, c, key, "g", "c"); !reflect.DeepEqual(got, []string{"1-0", "3-0"}) {
				t.Fatalf("before the restart: %v", got)
			}
			if snapshot {
				if err := c.Save(ctxT(t)).Err(); err != nil {
					t.Fatal(err)
				}
			}
			p.Kill(t)
			p = testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Fsync: "always"})
			c = p.Client(t, 0)
			if got := readGroup(t, c, key, "g", "c"); got != nil {
				t.Fatalf("held entry delivered after the restart, %v after XADD: %v", time.Since(start), got)
			}
			info, err := c.Do(ctxT(t), "XINFO", "STREAM", key).Result()
			if err != nil || !hasHeld(info, 1) {
				t.Fatalf("XINFO STREAM after the restart: %v %v", info, err)
			}
			time.Sleep(time.Until(start.Add(2600 * time.Millisecond)))
			if got := readGroup(t, c, key, "g", "c"); !reflect.DeepEqual(got, []string{"2-0"}) {
				t.Fatalf("when due: %v", got)
			}
			if got := readGroup(t, c, key, "g", "c"); got != nil {
				t.Fatalf("delivered twice: %v", got)
			}
			pend, err := c.XPending(ctxT(t), key, "g").Result()
			if err != nil || pend.Count != 3 {
				t.Fatalf("XPENDING after the restart: %+v %v", pend, err)
			}
		})
	}
}

// TestStreamNotifications: the keyspace events of the stream commands, as
// Redis 7.0 names them.
func TestStreamNotifications(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "KEA")
	sub := dialRaw(t, s.Addr())
	sub.send("PSUBSCRIBE", "__keyevent@0__:*")
	sub.read()
	steps := [][]interface{}{
		{"XADD", "s", "1-0", "a", "b"},
		{"XADD", "s", "MAXLEN", "1", "2-0", "a", "b"},
		{"XDEL", "s", "2-0"},
		{"XTRIM", "s", "MAXLEN", "0"},
		{"XSETID", "s", "5-0"},
		{"XGROUP", "CREATE", "s", "g", "0"},
		{"XGROUP", "CREATECONSUMER", "s", "g", "c"},
		{"XGROUP", "SETID", "s", "g", "0"},
		{"XGROUP", "DELCONSUMER", "s", "g", "c"},
		{"XGROUP", "DESTROY", "s", "g"},
	}
	for _, st := range steps {
		if err := c.Do(ctxT(t), st...).Err(); err != nil {
			t.Fatalf("%v: %v", st, err)
		}
	}
	want := []string{
		"__keyevent@0__:xadd s", "__keyevent@0__:xadd s", "__keyevent@0__:xtrim s",
		"__keyevent@0__:xdel s", "__keyevent@0__:xsetid s", "__keyevent@0__:xgroup-create s",
		"__keyevent@0__:xgroup-createconsumer s", "__keyevent@0__:xgroup-setid s", "__keyevent@0__:xgroup-delconsumer s",
		"__keyevent@0__:xgroup-destroy s",
	}
	if got := readEvents(t, sub, len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
}

// TestStreamCrossSlot: with four shards, reads of several streams follow
// the one-slot rule.
func TestStreamCrossSlot(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, testserver.Shards(4))
	for _, addr := range s.Addrs {
		r := dialRaw(t, addr)
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "XREAD", "STREAMS", "a", "b", "0", "0")
		r.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "XREADGROUP", "GROUP", "g", "c", "STREAMS", "a", "b", ">", ">")
	}
	c := s.ClusterClient(t)
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: "{x}a", ID: "1", Values: []string{"f", "1"}})
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: "{x}b", ID: "2", Values: []string{"f", "2"}})
	xs, err := c.XRead(ctxT(t), &redis.XReadArgs{Streams: []string{"{x}a", "{x}b", "0", "0"}, Block: -1}).Result()
	if err != nil || len(xs) != 2 || xs[1].Messages[0].ID != "2-0" {
		t.Fatalf("XREAD of one slot: %v %v", xs, err)
	}
}

// TestDurabilityCrashStreams: with fsync = always, producers XADD with
// explicit ids and consumers XREADGROUP and XACK as fast as they can; the
// process gets SIGKILL at a random moment; after a restart every
// acknowledged XADD and XACK is there, every delivery acknowledged to a
// consumer is pending or acked, and nothing never sent.
func TestDurabilityCrashStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	testserver.Binary(t)
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	const workers = 3
	type state struct {
		sent, acked       int // XADDs of ids 1..n to str:<id>
		delivered         int // highest id a read delivered (acknowledged to the client)
		ackSent, ackAcked int // XACKs of ids 1..n
	}
	st := make([]state, workers)
	for cycle := 0; cycle < 3; cycle++ {
		p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: dir, Shards: 1, Fsync: "always"})
		c := p.Client(t, 0)
		for id := range st {
			key := "str:" + strconv.Itoa(id)
			s := &st[id]
			if cycle == 0 {
				if err := c.XGroupCreateMkStream(ctxT(t), key, "g", "0").Err(); err != nil {
					t.Fatal(err)
				}
				continue
			}
			msgs, err := c.XRange(ctxT(t), key, "-", "+").Result()
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range msgs {
				if m.ID != strconv.Itoa(i+1)+"-0" || m.Values["n"] != strconv.Itoa(i+1) {
					t.Fatalf("worker %d: entry %d is %v", id, i, m)
				}
			}
			if len(msgs) < s.acked || len(msgs) > s.sent {
				t.Fatalf("worker %d: %d entries, %d acked, %d sent", id, len(msgs), s.acked, s.sent)
			}
			groups, err := c.XInfoGroups(ctxT(t), key).Result()
			if err != nil || len(groups) != 1 {
				t.Fatalf("worker %d: groups %v %v", id, groups, err)
			}
			last, _ := strconv.Atoi(groups[0].LastDeliveredID[:len(groups[0].LastDeliveredID)-2])
			if last < s.delivered || last > len(msgs) {
				t.Fatalf("worker %d: last delivered %d, reads acknowledged up to %d, %d entries", id, last, s.delivered, len(msgs))
			}
			pend, err := c.XPendingExt(ctxT(t), &redis.XPendingExtArgs{Stream: key, Group: "g", Start: "-", End: "+", Count: 1 << 20}).Result()
			if err != nil {
				t.Fatal(err)
			}
			// Pending are exactly the delivered ids that were not acked:
			// ids up to ackAcked are gone, ids in (ackSent, last] remain.
			isPending := map[int]bool{}
			for _, pe := range pend {
				n, _ := strconv.Atoi(pe.ID[:len(pe.ID)-2])
				isPending[n] = true
				if n <= s.ackAcked || n > last {
					t.Fatalf("worker %d: %d pending, acks acknowledged up to %d, last delivered %d", id, n, s.ackAcked, last)
				}
			}
			for n := s.ackSent + 1; n <= last; n++ {
				if !isPending[n] {
					t.Fatalf("worker %d: %d delivered and never acked but not pending (acks sent up to %d)", id, n, s.ackSent)
				}
			}
			// Resynchronise with what survived: every delivered entry acked.
			s.sent, s.acked = len(msgs), len(msgs)
			s.delivered = last
			if ids := onlyPending(idRange(1, last), isPending); len(ids) > 0 {
				if err := c.XAck(ctxT(t), key, "g", ids...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			s.ackSent, s.ackAcked = last, last
		}
		if cycle == 2 {
			_ = c.Close()
			p.Kill(t)
			break
		}
		var killed atomic.Bool
		var wg sync.WaitGroup
		for id := range st {
			wg.Add(2)
			key := "str:" + strconv.Itoa(id)
			s := &st[id]
			var mu sync.Mutex
			go func() { // producer
				defer wg.Done()
				for !killed.Load() {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					mu.Lock()
					s.sent++
					n := s.sent
					mu.Unlock()
					err := c.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: strconv.Itoa(n), Values: []string{"n", strconv.Itoa(n)}}).Err()
					cancel()
					if err != nil {
						if !killed.Load() {
							t.Errorf("XADD before the kill: %v", err)
						}
						return
					}
					mu.Lock()
					s.acked = n
					mu.Unlock()
				}
			}()
			go func() { // consumer: read, then ack what was read
				defer wg.Done()
				for !killed.Load() {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					xs, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{key, ">"}, Count: 5, Block: -1}).Result()
					if err == redis.Nil {
						cancel()
						continue
					}
					if err != nil {
						cancel()
						if !killed.Load() {
							t.Errorf("XREADGROUP before the kill: %v", err)
						}
						return
					}
					var ids []string
					for _, m := range xs[0].Messages {
						n, _ := strconv.Atoi(m.ID[:len(m.ID)-2])
						if n != s.delivered+1 {
							t.Errorf("worker %s: delivered %d after %d", key, n, s.delivered)
							killed.Store(true)
						}
						s.delivered = n
						ids = append(ids, m.ID)
					}
					s.ackSent = s.delivered
					err = c.XAck(ctx, key, "g", ids...).Err()
					cancel()
					if err != nil {
						if !killed.Load() {
							t.Errorf("XACK before the kill: %v", err)
						}
						return
					}
					s.ackAcked = s.ackSent
				}
			}()
		}
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		if cycle == 1 {
			_ = c.BgSave(context.Background()).Err()
			time.Sleep(50 * time.Millisecond)
		}
		killed.Store(true)
		p.Kill(t)
		wg.Wait()
		_ = c.Close()
		if t.Failed() {
			t.Logf("output:\n%s", p.Output())
			return
		}
		t.Logf("cycle %d: %+v", cycle, st)
	}
}

// idRange lists "n-0" for n in [from, to].
func idRange(from, to int) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, fmt.Sprintf("%d-0", n))
	}
	return out
}

// onlyPending keeps the ids that are pending.
func onlyPending(ids []string, pending map[int]bool) []string {
	var out []string
	for _, id := range ids {
		n, _ := strconv.Atoi(id[:len(id)-2])
		if pending[n] {
			out = append(out, id)
		}
	}
	return out
}

// TestStreamBlocking: XREAD BLOCK and XREADGROUP BLOCK wait for new
// entries, "$" means after the last id at the time of the call, an XADD
// inside MULTI wakes readers after EXEC, a deleted key ends a blocked
// XREADGROUP with Redis's error, timeouts reply null, and a blocked
// XREADGROUP wakes when a DELAY hold becomes due.
func TestStreamBlocking(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: "b", ID: "1", Values: []string{"f", "1"}})
	rd := dialRaw(t, s.Addr())
	entry := func(id, v string) string { return arr(bulk(id), arr(bulk("f"), bulk(v))) }
	waitBlocked := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if strings.Contains(c.Info(ctxT(t), "clients").Val(), "blocked_clients:"+strconv.FormatInt(n, 10)+"\r\n") {
				return
			}
		}
		t.Fatalf("blocked_clients never reached %d", n)
	}
	// XREAD BLOCK with $, woken by XADD.
	rd.send("XREAD", "BLOCK", "0", "STREAMS", "b", "$")
	waitBlocked(1)
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: "b", ID: "2", Values: []string{"f", "2"}})
	if got := rd.read(); got != arr(arr(bulk("b"), arr(entry("2-0", "2")))) {
		t.Fatalf("XREAD BLOCK woken: %q", got)
	}
	// Two XADDs in MULTI: the reader gets both after EXEC.
	rd.send("XREAD", "BLOCK", "0", "STREAMS", "b", "2-0")
	waitBlocked(1)
	tx := c.TxPipeline()
	tx.XAdd(ctxT(t), &redis.XAddArgs{Stream: "b", ID: "3", Values: []string{"f", "3"}})
	tx.XAdd(ctxT(t), &redis.XAddArgs{Stream: "b", ID: "4", Values: []string{"f", "4"}})
	if _, err := tx.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := rd.read(); got != arr(arr(bulk("b"), arr(entry("3-0", "3"), entry("4-0", "4")))) {
		t.Fatalf("XREAD BLOCK after EXEC: %q", got)
	}
	// Timeouts reply null.
	start := time.Now()
	rd.expect("*-1\r\n", "XREAD", "BLOCK", "50", "STREAMS", "b", "$")
	if time.Since(start) < 45*time.Millisecond {
		t.Fatalf("XREAD BLOCK 50 returned after %v", time.Since(start))
	}
	rd.expect("-ERR timeout is negative\r\n", "XREAD", "BLOCK", "-1", "STREAMS", "b", "$")
	// XREADGROUP BLOCK, woken by XADD, then a DELAY hold.
	if err := c.XGroupCreate(ctxT(t), "b", "g", "$").Err(); err != nil {
		t.Fatal(err)
	}
	rd.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "b", ">")
	waitBlocked(1)
	c.XAdd(ctxT(t), &redis.XAddArgs{Stream: "b", ID: "5", Values: []string{"f", "5"}})
	if got := rd.read(); got != arr(arr(bulk("b"), arr(entry("5-0", "5")))) {
		t.Fatalf("XREADGROUP BLOCK woken: %q", got)
	}
	rd.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "b", ">")
	waitBlocked(1)
	added := time.Now()
	expect(t, c, "6-0", "XADD", "b", "DELAY", "300", "6", "f", "6")
	got := rd.read()
	if got != arr(arr(bulk("b"), arr(entry("6-0", "6")))) || time.Since(added) < 290*time.Millisecond {
		t.Fatalf("XREADGROUP BLOCK on a held entry: %q after %v", got, time.Since(added))
	}
	// A blocked XREADGROUP whose key is deleted, or whose group is destroyed.
	rd.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "b", ">")
	waitBlocked(1)
	c.Del(ctxT(t), "b")
	if got := rd.read(); got != "-UNBLOCKED the stream key no longer exists\r\n" {
		t.Fatalf("XREADGROUP BLOCK on a deleted key: %q", got)
	}
	c.XGroupCreateMkStream(ctxT(t), "b", "g", "$")
	c.ConfigResetStat(ctxT(t))
	rd.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "b", ">")
	waitBlocked(1)
	c.XGroupDestroy(ctxT(t), "b", "g")
	if got := rd.read(); got != "-NOGROUP the consumer group this client was blocked on no longer exists\r\n" {
		t.Fatalf("XREADGROUP BLOCK on a destroyed group: %q", got)
	}
	// The failed blocked call counts once, as one error.
	if info := c.Info(ctxT(t), "errorstats", "stats").Val(); !strings.Contains(info, "errorstat_NOGROUP:count=1\r\n") || !strings.Contains(info, "total_error_replies:1\r\n") {
		t.Fatalf("error statistics after the unblocking error:\n%s", info)
	}
	// Inside MULTI BLOCK does not block.
	rd.expect("+OK\r\n", "MULTI")
	rd.expect("+QUEUED\r\n", "XREAD", "BLOCK", "0", "STREAMS", "b", "$")
	rd.expect("*1\r\n*-1\r\n", "EXEC")
}
