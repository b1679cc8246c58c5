package integration_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
)

// TestMultiRawReplies checks every reply and error path of MULTI, EXEC,
// DISCARD, WATCH and UNWATCH byte for byte.
func TestMultiRawReplies(t *testing.T) {
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	const queued = "+QUEUED\r\n"

	rc.expect("-ERR EXEC without MULTI\r\n", "EXEC")
	rc.expect("-ERR DISCARD without MULTI\r\n", "DISCARD")
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("-ERR MULTI calls can not be nested\r\n", "MULTI")
	rc.expect("-ERR WATCH inside MULTI is not allowed\r\n", "WATCH", "x")
	rc.expect(queued, "SET", "a", "x")
	rc.expect(queued, "INCR", "a")
	rc.expect(queued, "SET", "b", "1")
	// A runtime error does not stop the rest; the misplaced MULTI and
	// WATCH did not abort the transaction either.
	rc.expect("*3\r\n+OK\r\n-ERR value is not an integer or out of range\r\n+OK\r\n", "EXEC")
	rc.expect("$1\r\n1\r\n", "GET", "b")

	// Queue-time errors abort EXEC.
	for _, bad := range [][]string{{"NOSUCHCMD", "x"}, {"GET"}, {"SET", "k"}, {"SAVE"}} {
		rc.expect("+OK\r\n", "MULTI")
		rc.expect(queued, "SET", "c", "1")
		if got := rc.do(bad...); !strings.HasPrefix(got, "-") {
			t.Errorf("%v inside MULTI: want an error, got %q", bad, got)
		}
		rc.expect(queued, "SET", "c", "2")
		rc.expect("-EXECABORT Transaction discarded because of previous errors.\r\n", "EXEC")
		rc.expect("$-1\r\n", "GET", "c")
	}
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("-ERR Command not allowed inside a transaction\r\n", "SAVE")
	rc.expect("+OK\r\n", "DISCARD")
	// EXEC with arguments is refused and ends the transaction.
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("-EXECABORT Transaction discarded because of: ERR wrong number of arguments for 'exec' command\r\n", "EXEC", "x")
	rc.expect("-ERR EXEC without MULTI\r\n", "EXEC")

	// DISCARD drops queued commands; an empty transaction replies *0.
	rc.expect("+OK\r\n", "MULTI")
	rc.expect(queued, "SET", "d", "1")
	rc.expect("+OK\r\n", "DISCARD")
	rc.expect("$-1\r\n", "GET", "d")
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("*0\r\n", "EXEC")

	// CLIENT LIST: x in MULTI with the queued count, d once a watch broke.
	rc.expect("+OK\r\n", "MULTI")
	rc.expect(queued, "PING")
	rc.expect(queued, "CLIENT", "INFO")
	rc.expect(queued, "PING")
	info := rc.do("EXEC")
	// As in Redis, the transaction is still open while EXEC runs it.
	if !strings.Contains(info, " flags=x ") || !strings.Contains(info, " multi=3 ") {
		t.Errorf("CLIENT INFO inside EXEC: want flags=x multi=3, got %q", info)
	}
	if got := rc.do("CLIENT", "INFO"); !strings.Contains(got, " flags=N ") || !strings.Contains(got, " multi=-1 ") {
		t.Errorf("CLIENT INFO after EXEC: got %q", got)
	}
	other := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "WATCH", "w")
	other.expect("+OK\r\n", "SET", "w", "1")
	if got := rc.do("CLIENT", "INFO"); !strings.Contains(got, " flags=d ") {
		t.Errorf("CLIENT INFO with a broken watch: want flags=d, got %q", got)
	}
	rc.expect("+OK\r\n", "MULTI")
	rc.expect(queued, "GET", "w")
	rc.expect("*-1\r\n", "EXEC")
	// UNWATCH clears a broken watch.
	rc.expect("+OK\r\n", "WATCH", "w")
	other.expect("+OK\r\n", "SET", "w", "2")
	rc.expect("+OK\r\n", "UNWATCH")
	rc.expect("+OK\r\n", "MULTI")
	rc.expect(queued, "GET", "w")
	rc.expect("*1\r\n$1\r\n2\r\n", "EXEC")

	// RESP3: a failed watch is a null, replies keep their RESP3 types.
	r3 := dialRaw(t, s.Addr())
	if got := r3.do("HELLO", "3"); !strings.HasPrefix(got, "%") {
		t.Fatalf("HELLO 3: %q", got)
	}
	r3.expect("+OK\r\n", "WATCH", "w")
	other.expect("+OK\r\n", "SET", "w", "3")
	r3.expect("+OK\r\n", "MULTI")
	r3.expect(queued, "GET", "w")
	r3.expect("_\r\n", "EXEC")
	r3.expect("+OK\r\n", "MULTI")
	r3.expect(queued, "GET", "nosuch")
	r3.expect(queued, "EXISTS", "w")
	r3.expect("*2\r\n_\r\n:1\r\n", "EXEC")

	// RESET ends a transaction and drops watches.
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+RESET\r\n", "RESET")
	rc.expect("-ERR EXEC without MULTI\r\n", "EXEC")

	// EXEC, and the queued commands once run, appear in commandstats;
	// queuing alone counts nothing.
	st := dialRaw(t, s.Addr())
	st.expect("+OK\r\n", "MULTI")
	st.expect(queued, "ECHO", "hi")
	before := rc.do("INFO", "commandstats")
	if strings.Contains(before, "cmdstat_echo:") {
		t.Errorf("a queued command was counted before EXEC: %q", before)
	}
	st.expect("*1\r\n$2\r\nhi\r\n", "EXEC")
	after := st.do("INFO", "commandstats")
	for _, want := range []string{"cmdstat_echo:calls=1,", "cmdstat_exec:calls=", "cmdstat_multi:calls="} {
		if !strings.Contains(after, want) {
			t.Errorf("INFO commandstats: missing %q in %q", want, after)
		}
	}
}

// TestMultiQueuedInfoIsCommand: INFO sent inside MULTI is queued, so
// TestMultiRawReplies reads commandstats only outside transactions; this
// checks that the queued INFO above replied QUEUED, not stats.
func TestMultiQueuedInfoIsCommand(t *testing.T) {
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "INFO", "commandstats")
	if got := rc.do("EXEC"); !strings.HasPrefix(got, "*1\r\n$") {
		t.Errorf("EXEC of INFO: %q", got)
	}
}

// TestMultiWatch checks what breaks a WATCH and what does not, through
// go-redis.
func TestMultiWatch(t *testing.T) {
	s := testserver.Start(t)
	c := s.Client(t)
	other := s.Client(t)

	// run watches key on a dedicated connection, lets change act, then
	// runs a transaction; it returns whether EXEC ran.
	run := func(t *testing.T, key string, change func()) bool {
		t.Helper()
		err := c.Watch(ctxT(t), func(tx *redis.Tx) error {
			change()
			_, err := tx.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
				p.Ping(ctxT(t))
				return nil
			})
			return err
		}, key)
		if err != nil && !errors.Is(err, redis.TxFailedErr) {
			t.Fatalf("watch %s: %v", key, err)
		}
		return err == nil
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	breaks := map[string]func(){
		"SET from another client": func() { must(other.Set(ctxT(t), "k", "v2", 0).Err()) },
		"DEL":                     func() { must(other.Del(ctxT(t), "k").Err()) },
		"EXPIRE":                  func() { must(other.Expire(ctxT(t), "k", time.Hour).Err()) },
		"INCR":                    func() { must(other.Set(ctxT(t), "k", "1", 0).Err()) },
		"APPEND":                  func() { must(other.Append(ctxT(t), "k", "x").Err()) },
		"RENAME away":             func() { must(other.Rename(ctxT(t), "k", "k2").Err()) },
		"RENAME onto":             func() { must(other.Set(ctxT(t), "k3", "z", 0).Err()); must(other.Rename(ctxT(t), "k3", "k").Err()) },
		"FLUSHDB":                 func() { must(other.FlushDB(ctxT(t)).Err()) },
		"FLUSHALL":                func() { must(other.FlushAll(ctxT(t)).Err()) },
		"SWAPDB":                  func() { must(other.Do(ctxT(t), "SWAPDB", "0", "1").Err()) },
		"MOVE":                    func() { must(other.Move(ctxT(t), "k", 2).Err()) },
		"SET by the watcher":      func() { must(c.Set(ctxT(t), "k", "mine", 0).Err()) },
		"expiry after WATCH": func() {
			must(other.PExpire(ctxT(t), "k", 20*time.Millisecond).Err())
			time.Sleep(60 * time.Millisecond)
		},
	}
	for name, change := range breaks {
		t.Run("breaks/"+name, func(t *testing.T) {
			must(c.FlushAll(ctxT(t)).Err())
			must(c.Set(ctxT(t), "k", "v", 0).Err())
			if run(t, "k", change) {
				t.Errorf("%s did not break the WATCH", name)
			}
		})
	}
	keeps := map[string]func(){
		"GET":                func() { must(other.Get(ctxT(t), "k").Err()) },
		"DEL of another key": func() { must(other.Del(ctxT(t), "other").Err()) },
		"SET of the name in db 1": func() {
			must(other.Do(ctxT(t), "SELECT", "1").Err())
			must(other.Set(ctxT(t), "k", "x", 0).Err())
			must(other.Do(ctxT(t), "SELECT", "0").Err())
		},
		"FLUSHDB of an empty db": func() {
			must(other.Do(ctxT(t), "SELECT", "3").Err())
			must(other.FlushDB(ctxT(t)).Err())
			must(other.Do(ctxT(t), "SELECT", "0").Err())
		},
		"EXPIRE of a missing key":     func() { must(other.Expire(ctxT(t), "nokey", time.Hour).Err()) },
		"PERSIST of a persistent key": func() { must(other.Persist(ctxT(t), "k").Err()) },
	}
	for name, change := range keeps {
		t.Run("keeps/"+name, func(t *testing.T) {
			must(c.FlushAll(ctxT(t)).Err())
			must(c.Set(ctxT(t), "k", "v", 0).Err())
			if !run(t, "k", change) {
				t.Errorf("%s broke the WATCH", name)
			}
		})
	}
	// SMOVE of a member the watched destination set already holds leaves
	// it unchanged; one it lacks changes it.
	for _, tc := range []struct {
		member string
		keeps  bool
	}{{"a", true}, {"b", false}} {
		t.Run("SMOVE into a watched set of "+tc.member, func(t *testing.T) {
			must(c.FlushAll(ctxT(t)).Err())
			must(c.SAdd(ctxT(t), "src", "a", "b").Err())
			must(c.SAdd(ctxT(t), "k", "a").Err())
			if got := run(t, "k", func() { must(other.SMove(ctxT(t), "src", "k", tc.member).Err()) }); got != tc.keeps {
				t.Errorf("EXEC ran: %v, want %v", got, tc.keeps)
			}
		})
	}
	t.Run("keeps/DEL of a missing watched key", func(t *testing.T) {
		must(c.FlushAll(ctxT(t)).Err())
		if !run(t, "absent", func() { must(other.Del(ctxT(t), "absent").Err()) }) {
			t.Error("DEL of a missing key broke the WATCH")
		}
	})
	t.Run("keeps/stale key deleted by expiry", func(t *testing.T) {
		must(c.FlushAll(ctxT(t)).Err())
		must(c.Do(ctxT(t), "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
		defer c.Do(ctxT(t), "DEBUG", "SET-ACTIVE-EXPIRE", "1")
		must(c.Set(ctxT(t), "stale", "v", time.Millisecond).Err())
		time.Sleep(10 * time.Millisecond)
		if !run(t, "stale", func() { _ = other.Get(ctxT(t), "stale").Err() }) {
			t.Error("the lazy deletion of a key already expired at WATCH broke it")
		}
	})
	t.Run("breaks/SET of a key already expired at WATCH", func(t *testing.T) {
		// The write's lazy deletion of the stale key changes nothing; the
		// new value does, as in Redis 7.0.
		must(c.FlushAll(ctxT(t)).Err())
		must(c.Do(ctxT(t), "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
		defer c.Do(ctxT(t), "DEBUG", "SET-ACTIVE-EXPIRE", "1")
		must(c.Set(ctxT(t), "stale", "v", time.Millisecond).Err())
		time.Sleep(10 * time.Millisecond)
		if run(t, "stale", func() { must(other.Set(ctxT(t), "stale", "new", 0).Err()) }) {
			t.Error("a new value of a key expired at WATCH did not break it")
		}
	})
	t.Run("breaks/key with a TTL expiring between WATCH and EXEC", func(t *testing.T) {
		// Nothing deletes the key before EXEC (no access, active expiry
		// off): EXEC itself sees that it expired.
		must(c.FlushAll(ctxT(t)).Err())
		must(c.Do(ctxT(t), "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
		defer c.Do(ctxT(t), "DEBUG", "SET-ACTIVE-EXPIRE", "1")
		must(c.Set(ctxT(t), "ttl", "v", 30*time.Millisecond).Err())
		if run(t, "ttl", func() { time.Sleep(60 * time.Millisecond) }) {
			t.Error("a watched key that expired before EXEC did not fail it")
		}
	})
	t.Run("TxPipelined", func(t *testing.T) {
		must(c.FlushAll(ctxT(t)).Err())
		cmds, err := c.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
			p.Set(ctxT(t), "a", "1", 0)
			p.Incr(ctxT(t), "a")
			p.Get(ctxT(t), "a")
			return nil
		})
		must(err)
		if got := cmds[2].(*redis.StringCmd).Val(); got != "2" {
			t.Errorf("GET a in the transaction: %q", got)
		}
	})
}

// TestMultiConcurrentWatchIncrements: 50 clients add to one counter with
// optimistic WATCH/MULTI/EXEC retry loops; no increment is lost or doubled.
func TestMultiConcurrentWatchIncrements(t *testing.T) {
	s := testserver.Start(t)
	const clients, each = 50, 20
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: s.Addr(), PoolSize: clients}))
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; n++ {
				for {
					err := c.Watch(ctxT(t), func(tx *redis.Tx) error {
						v, err := tx.Get(ctxT(t), "counter").Int()
						if err != nil && err != redis.Nil {
							return err
						}
						_, err = tx.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
							p.Set(ctxT(t), "counter", v+1, 0)
							return nil
						})
						return err
					}, "counter")
					if err == nil {
						break
					}
					if !errors.Is(err, redis.TxFailedErr) {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got, err := c.Get(ctxT(t), "counter").Int(); err != nil || got != clients*each {
		t.Fatalf("counter = %d, %v; want %d", got, err, clients*each)
	}
}

// TestMultiCluster: with several shards a transaction stays in one slot.
func TestMultiCluster(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(2))
	rc := dialRaw(t, s.Addrs[0])
	// Keys with tags {a} (slot 15495, shard 1) and {b} (slot 3300, shard 0);
	// {b}x and {b}y share a slot, {c} (slot 7365) is shard 0 too.
	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "SET", "{b}x", "1")
	if got := rc.do("SET", "{a}x", "1"); !strings.HasPrefix(got, "-MOVED 15495 ") {
		t.Errorf("queued key of another shard: %q", got)
	}
	rc.expect("-EXECABORT Transaction discarded because of previous errors.\r\n", "EXEC")
	rc.expect("$-1\r\n", "GET", "{b}x")

	rc.expect("+OK\r\n", "MULTI")
	rc.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "MSET", "{b}x", "1", "{c}x", "2")
	rc.expect("-EXECABORT Transaction discarded because of previous errors.\r\n", "EXEC")

	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "SET", "{b}x", "1")
	rc.expect("+QUEUED\r\n", "SET", "{c}x", "1")
	rc.expect("-CROSSSLOT Keys in request don't hash to the same slot\r\n", "EXEC")
	rc.expect("-ERR EXEC without MULTI\r\n", "EXEC")
	rc.expect("$-1\r\n", "GET", "{b}x")

	rc.expect("+OK\r\n", "MULTI")
	rc.expect("+QUEUED\r\n", "SET", "{b}x", "1")
	rc.expect("+QUEUED\r\n", "INCR", "{b}y")
	rc.expect("+QUEUED\r\n", "PING")
	rc.expect("*3\r\n+OK\r\n:1\r\n+PONG\r\n", "EXEC")

	// go-redis's cluster client sends a TxPipeline to the slot's node.
	cc := s.ClusterClient(t)
	_, err := cc.TxPipelined(ctxT(t), func(p redis.Pipeliner) error {
		p.Set(ctxT(t), "{a}1", "x", 0)
		p.Incr(ctxT(t), "{a}2")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := cc.Get(ctxT(t), "{a}2").Val(); v != "1" {
		t.Errorf("{a}2 = %q", v)
	}
}
