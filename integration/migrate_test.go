package integration_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// MIGRATE's replies, in Redis 7.0's words.
const (
	errMigrateBusy    = "ERR Target instance replied with error: BUSYKEY Target key name already exists."
	errMigrateNoAuth  = "ERR Target instance replied with error: NOAUTH Authentication required."
	errMigrateBadPass = "ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled."
	errMigrateReading = "IOERR error or timeout reading to target instance"
	errMigrateWriting = "IOERR error or timeout writing to target instance"
)

// migrateTypes fills one key of every value type Redis can serialize
// (small and large encodings) under prefix and returns their names.
func migrateTypes(t *testing.T, c cmdr, prefix string) []string {
	t.Helper()
	keys := []string{"str", "int", "big", "list", "hash", "bighash", "set", "intset", "zset", "bigzset", "stream", "hll"}
	do := func(args ...interface{}) { value(t, c, args...) }
	k := func(name string) string { return prefix + name }
	do("SET", k("str"), "hello")
	do("SET", k("int"), "12345")
	do("SET", k("big"), strings.Repeat("x", 100_000))
	do("RPUSH", k("list"), "a", "b", "c")
	do("HSET", k("hash"), "f1", "v1", "f2", "v2")
	for i := range 200 {
		do("HSET", k("bighash"), "field"+strconv.Itoa(i), strings.Repeat("v", i))
		do("ZADD", k("bigzset"), i, "member"+strconv.Itoa(i))
	}
	do("SADD", k("set"), "x", "y", "z")
	do("SADD", k("intset"), 1, 2, 3)
	do("ZADD", k("zset"), 1, "a", 2.5, "b")
	do("XADD", k("stream"), "1-1", "f", "v")
	do("XADD", k("stream"), "2-1", "g", "w")
	do("XGROUP", "CREATE", k("stream"), "grp", "0")
	do("PFADD", k("hll"), "a", "b", "c")
	out := make([]string, len(keys))
	for i, n := range keys {
		out[i] = k(n)
	}
	return out
}

// migratedContents renders a key's type and contents so that two servers'
// copies compare equal.
func migratedContents(t *testing.T, c cmdr, key string) string {
	t.Helper()
	typ := fmt.Sprint(value(t, c, "TYPE", key))
	var v interface{}
	switch typ {
	case "string":
		v = value(t, c, "GET", key)
	case "list":
		v = value(t, c, "LRANGE", key, 0, -1)
	case "hash":
		v = value(t, c, "HGETALL", key)
	case "set":
		m := value(t, c, "SMEMBERS", key).([]interface{})
		s := make([]string, len(m))
		for i, e := range m {
			s[i] = fmt.Sprint(e)
		}
		slices.Sort(s)
		v = s
	case "zset":
		v = value(t, c, "ZRANGE", key, 0, -1, "WITHSCORES")
	case "stream":
		v = []interface{}{value(t, c, "XRANGE", key, "-", "+"), value(t, c, "XINFO", "GROUPS", key)}
	}
	return typ + " " + fmt.Sprint(v)
}

// migrateArgs is a MIGRATE call to addr.
func migrateArgs(addr, key string, db, timeoutMs int, rest ...interface{}) []interface{} {
	host, port, _ := net.SplitHostPort(addr)
	return append([]interface{}{"MIGRATE", host, port, key, db, timeoutMs}, rest...)
}

// keysArgs turns keys into arguments.
func keysArgs(keys []string) []interface{} {
	out := make([]interface{}, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

// freeClosedPort returns a loopback port nothing listens on.
func freeClosedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestMigrateBetweenRuvioNodes: MIGRATE's forms and replies between two
// Ruvio servers.
func TestMigrateBetweenRuvioNodes(t *testing.T) {
	t.Parallel()
	src, dst := testserver.Start(t), testserver.Start(t)
	sc, dc := src.Client(t), dst.Client(t)
	to := dst.Addr()

	t.Run("one key", func(t *testing.T) {
		value(t, sc, "SET", "one", "v1")
		expect(t, sc, "OK", migrateArgs(to, "one", 0, 5000)...)
		expect(t, sc, int64(0), "EXISTS", "one")
		expect(t, dc, "v1", "GET", "one")
		// Nothing left to move.
		expect(t, sc, "NOKEY", migrateArgs(to, "one", 0, 5000)...)
	})
	t.Run("destination db and TTL", func(t *testing.T) {
		value(t, sc, "SET", "ttl", "v", "PX", 100_000)
		expect(t, sc, "OK", migrateArgs(to, "ttl", 3, 5000)...)
		expect(t, dc, int64(0), "EXISTS", "ttl")
		d3 := redis.NewClient(clientTimeouts(&redis.Options{Addr: dst.Addr(), DB: 3}))
		defer d3.Close()
		expect(t, d3, "v", "GET", "ttl")
		ttlIn(t, d3, "ttl", 90_000, 100_000)
		// The cached connection remembers database 3; database 0 again.
		value(t, sc, "SET", "back0", "v")
		expect(t, sc, "OK", migrateArgs(to, "back0", 0, 5000)...)
		expect(t, dc, "v", "GET", "back0")
		expect(t, dc, int64(-1), "TTL", "back0")
	})
	t.Run("KEYS", func(t *testing.T) {
		value(t, sc, "MSET", "k1", "a", "k2", "b")
		expect(t, sc, "OK", migrateArgs(to, "", 0, 5000, "KEYS", "k1", "missing", "k2")...)
		expect(t, sc, int64(0), "EXISTS", "k1", "k2")
		expect(t, dc, []interface{}{"a", "b"}, "MGET", "k1", "k2")
		expect(t, sc, "NOKEY", migrateArgs(to, "", 0, 5000, "KEYS", "k1", "k2")...)
		expectErr(t, sc, "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string",
			migrateArgs(to, "k1", 0, 5000, "KEYS", "k1")...)
		expectErr(t, sc, errSyntax, migrateArgs(to, "k1", 0, 5000, "SOON")...)
		host, port, _ := net.SplitHostPort(to)
		expectErr(t, sc, errNotInt, "MIGRATE", host, port, "k1", 0, "soon")
	})
	t.Run("COPY", func(t *testing.T) {
		value(t, sc, "SET", "copied", "c")
		expect(t, sc, "OK", migrateArgs(to, "copied", 0, 5000, "COPY")...)
		expect(t, sc, "c", "GET", "copied")
		expect(t, dc, "c", "GET", "copied")
	})
	t.Run("BUSYKEY and REPLACE", func(t *testing.T) {
		value(t, sc, "SET", "busy", "new")
		value(t, dc, "SET", "busy", "old")
		expectErr(t, sc, errMigrateBusy, migrateArgs(to, "busy", 0, 5000)...)
		expect(t, sc, "new", "GET", "busy")
		expect(t, dc, "old", "GET", "busy")
		expectErr(t, sc, errMigrateBusy, migrateArgs(to, "busy", 0, 5000, "COPY")...)
		// Of several keys, those the target took are moved; the reply is
		// the first error.
		value(t, sc, "SET", "free", "f")
		expectErr(t, sc, errMigrateBusy, migrateArgs(to, "", 0, 5000, "KEYS", "busy", "free")...)
		expect(t, sc, int64(0), "EXISTS", "free")
		expect(t, dc, "f", "GET", "free")
		expect(t, sc, "OK", migrateArgs(to, "busy", 0, 5000, "REPLACE")...)
		expect(t, sc, int64(0), "EXISTS", "busy")
		expect(t, dc, "new", "GET", "busy")
	})
	t.Run("every type", func(t *testing.T) {
		keys := migrateTypes(t, sc, "t:")
		want := map[string]string{}
		for _, k := range keys {
			want[k] = migratedContents(t, sc, k)
		}
		dumps := map[string]interface{}{}
		for _, k := range keys {
			dumps[k] = value(t, sc, "DUMP", k)
		}
		expect(t, sc, "OK", append(migrateArgs(to, "", 0, 5000, "KEYS"), keysArgs(keys)...)...)
		for _, k := range keys {
			expect(t, sc, int64(0), "EXISTS", k)
			if got := migratedContents(t, dc, k); got != want[k] {
				t.Errorf("%s on the target: %.200s, want %.200s", k, got, want[k])
			}
			expect(t, dc, dumps[k], "DUMP", k)
		}
	})
	t.Run("pipelined commands wait", func(t *testing.T) {
		// Commands sent behind MIGRATE run after it, in order.
		value(t, sc, "SET", "piped", "v")
		host, port, _ := net.SplitHostPort(to)
		rc := dialRaw(t, src.Addr())
		rc.expectReplies(multibulk("MIGRATE", host, port, "piped", "0", "5000")+multibulk("GET", "piped")+
			multibulk("SET", "piped", "after")+multibulk("PING"),
			"+OK\r\n", "$-1\r\n", "+OK\r\n", "+PONG\r\n")
		expect(t, dc, "v", "GET", "piped")
		expect(t, sc, "after", "GET", "piped")
	})
	t.Run("large value", func(t *testing.T) {
		big := strings.Repeat("0123456789", 500_000) // 5 MB: many 64 KB writes
		value(t, sc, "SET", "large", big)
		value(t, sc, "RPUSH", "largelist", big[:1_000_000], big[:2_000_000])
		expect(t, sc, "OK", migrateArgs(to, "", 0, 10_000, "KEYS", "large", "largelist")...)
		expect(t, dc, big, "GET", "large")
		expect(t, dc, []interface{}{big[:1_000_000], big[:2_000_000]}, "LRANGE", "largelist", 0, -1)
	})
	t.Run("concurrent migrations", func(t *testing.T) {
		const n = 8
		errs := make(chan error, n)
		for i := range n {
			k := "conc" + strconv.Itoa(i)
			value(t, sc, "SET", k, k)
			go func() { errs <- sc.Do(ctxT(t), migrateArgs(to, k, 0, 5000)...).Err() }()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Errorf("MIGRATE: %v", err)
			}
		}
		for i := range n {
			k := "conc" + strconv.Itoa(i)
			expect(t, dc, k, "GET", k)
			expect(t, sc, int64(0), "EXISTS", k)
		}
		if c, _ := strconv.Atoi(migrateInfoField(t, sc, "migrate_cached_sockets")); c < 1 || c > n {
			t.Errorf("migrate_cached_sockets %d after %d MIGRATEs at once", c, n)
		}
	})
	t.Run("closed port", func(t *testing.T) {
		value(t, sc, "SET", "stay", "s")
		// Redis learns of a refused connection when it writes.
		expectErr(t, sc, errMigrateWriting, migrateArgs(freeClosedPort(t), "stay", 0, 1000)...)
		expect(t, sc, "s", "GET", "stay")
	})
	t.Run("target never answers", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				defer c.Close() // read nothing, answer nothing
			}
		}()
		value(t, sc, "SET", "slow", "s")
		start := time.Now()
		expectErr(t, sc, errMigrateReading, migrateArgs(l.Addr().String(), "slow", 0, 300)...)
		if d := time.Since(start); d < 250*time.Millisecond || d > 10*time.Second {
			t.Errorf("MIGRATE with a timeout of 300 ms took %v", d)
		}
		expect(t, sc, "s", "GET", "slow")
		// The shard went on serving meanwhile, and still does.
		expect(t, sc, "PONG", "PING")
	})
	t.Run("cached connection", func(t *testing.T) {
		// The target's end of a cached connection goes away: the next
		// MIGRATE reconnects (once) and succeeds.
		value(t, sc, "SET", "c1", "1")
		expect(t, sc, "OK", migrateArgs(to, "c1", 0, 5000)...)
		cached, _ := strconv.Atoi(migrateInfoField(t, sc, "migrate_cached_sockets"))
		killed := 0
		for _, line := range strings.Split(fmt.Sprint(value(t, dc, "CLIENT", "LIST")), "\n") {
			if strings.Contains(line, " cmd=restore ") {
				addr, _, _ := strings.Cut(strings.SplitN(line, " addr=", 2)[1], " ")
				expect(t, dc, "OK", "CLIENT", "KILL", addr)
				killed++
			}
		}
		if killed == 0 || killed != cached {
			t.Fatalf("found %d MIGRATE connections on the target, %d cached", killed, cached)
		}
		value(t, sc, "SET", "c2", "2")
		expect(t, sc, "OK", migrateArgs(to, "c2", 0, 5000)...)
		expect(t, dc, "2", "GET", "c2")
	})
}

// migrateInfoField is one field of INFO.
func migrateInfoField(t *testing.T, c cmdr, name string) string {
	t.Helper()
	for _, line := range strings.Split(fmt.Sprint(value(t, c, "INFO", "stats")), "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO has no %s", name)
	return ""
}

// migrateAuthCases checks AUTH and AUTH2 against a target whose default
// user's password is secret.
func migrateAuthCases(t *testing.T, sc cmdr, to string) {
	t.Helper()
	value(t, sc, "MSET", "a1", "1", "a2", "2", "a3", "3")
	expectErr(t, sc, errMigrateNoAuth, migrateArgs(to, "a1", 0, 5000)...)
	expectErr(t, sc, errMigrateBadPass, migrateArgs(to, "a1", 0, 5000, "AUTH", "wrong")...)
	expectErr(t, sc, errMigrateBadPass, migrateArgs(to, "a1", 0, 5000, "AUTH2", "default", "wrong")...)
	expect(t, sc, "1", "GET", "a1")
	expect(t, sc, "OK", migrateArgs(to, "a1", 0, 5000, "AUTH", "secret")...)
	expect(t, sc, "OK", migrateArgs(to, "", 0, 5000, "AUTH2", "default", "secret", "KEYS", "a2", "a3")...)
	expect(t, sc, int64(0), "EXISTS", "a1", "a2", "a3")
}

// TestMigrateAuth: AUTH and AUTH2 to a password-protected Ruvio.
func TestMigrateAuth(t *testing.T) {
	t.Parallel()
	src := testserver.Start(t)
	dst := testserver.Start(t, testserver.Config(func(c *config.Config) { c.Server.RequirePass = "secret" }))
	migrateAuthCases(t, src.Client(t), dst.Addr())
	dc := redis.NewClient(clientTimeouts(&redis.Options{Addr: dst.Addr(), Password: "secret"}))
	defer dc.Close()
	expect(t, dc, []interface{}{"1", "2", "3"}, "MGET", "a1", "a2", "a3")
}

// fakeTarget is a MIGRATE target that answers +OK to everything, but only
// once the test lets it: got is signalled when a request arrived.
type fakeTarget struct {
	l       net.Listener
	got     chan struct{}
	release chan struct{}
}

func newFakeTarget(t *testing.T, replies int) *fakeTarget {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeTarget{l: l, got: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := bufio.NewReader(c).ReadByte(); err != nil {
			return
		}
		close(f.got)
		<-f.release
		c.Write([]byte(strings.Repeat("+OK\r\n", replies)))
		buf := make([]byte, 1024)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	}()
	return f
}

// waitGot waits for the fake target's request.
func (f *fakeTarget) waitGot(t *testing.T) {
	t.Helper()
	select {
	case <-f.got:
	case <-time.After(20 * time.Second):
		t.Fatal("MIGRATE never reached the target")
	}
}

// TestMigrateConcurrentWrite: a key another client writes while MIGRATE
// waits for the target keeps the newer value (the target has the older
// one); the keys nobody touched are moved; the shard serves other clients
// all along.
func TestMigrateConcurrentWrite(t *testing.T) {
	t.Parallel()
	src := testserver.Start(t)
	sc, other := src.Client(t), src.Client(t)
	value(t, sc, "MSET", "guarded", "old", "untouched", "u", "deleted", "d")
	f := newFakeTarget(t, 4) // SELECT and three RESTOREs
	done := make(chan error, 1)
	go func() {
		done <- sc.Do(ctxT(t), migrateArgs(f.l.Addr().String(), "", 0, 20_000, "KEYS", "guarded", "untouched", "deleted")...).Err()
	}()
	f.waitGot(t)
	expect(t, other, "OK", "SET", "guarded", "new")
	expect(t, other, int64(1), "DEL", "deleted")
	expect(t, other, "u", "GET", "untouched")
	close(f.release)
	if err := <-done; err != nil {
		t.Fatalf("MIGRATE: %v", err)
	}
	expect(t, sc, "new", "GET", "guarded")
	expect(t, sc, int64(0), "EXISTS", "untouched", "deleted")
}

// TestMigrateClientGone: the client that sent MIGRATE disconnects while it
// waits; once the target acknowledges, the key is deleted all the same.
func TestMigrateClientGone(t *testing.T) {
	t.Parallel()
	src := testserver.Start(t)
	sc := src.Client(t)
	value(t, sc, "SET", "leaving", "v")
	f := newFakeTarget(t, 2)
	rc := dialRaw(t, src.Addr())
	host, port, _ := net.SplitHostPort(f.l.Addr().String())
	rc.send("MIGRATE", host, port, "leaving", "0", "20000")
	f.waitGot(t)
	rc.conn.Close()
	close(f.release)
	deadline := time.Now().Add(20 * time.Second)
	for intValue(t, sc, "EXISTS", "leaving") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the key was not deleted after its client left")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMigrateInCluster: in cluster mode the keys must be in one slot the
// shard owns (MOVED, CROSSSLOT), and RESTORE-ASKING carries them.
func TestMigrateInCluster(t *testing.T) {
	t.Parallel()
	src := testserver.Start(t, testserver.Shards(2))
	dst := testserver.Start(t)
	cc := src.ClusterClient(t)
	value(t, cc, "MSET", "{m}a", "1", "{m}b", "2")
	var owner, notOwner *redis.Client
	for i := range 2 {
		c := src.ClientOf(t, i)
		if err := c.Do(ctxT(t), "EXISTS", "{m}a").Err(); err != nil {
			notOwner = c
		} else {
			owner = c
		}
	}
	if owner == nil || notOwner == nil {
		t.Fatal("could not find the owning shard")
	}
	slot := intValue(t, cc, "CLUSTER", "KEYSLOT", "{m}a")
	err := notOwner.Do(ctxT(t), migrateArgs(dst.Addr(), "{m}a", 0, 5000)...).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "MOVED "+strconv.FormatInt(slot, 10)+" ") {
		t.Errorf("MIGRATE on the wrong shard: %v", err)
	}
	expectErr(t, owner, "CROSSSLOT Keys in request don't hash to the same slot", migrateArgs(dst.Addr(), "", 0, 5000, "KEYS", "{m}a", "{n}a")...)
	expect(t, owner, "OK", migrateArgs(dst.Addr(), "", 0, 5000, "KEYS", "{m}a", "{m}b")...)
	expect(t, cc, int64(0), "EXISTS", "{m}a", "{m}b")
	expect(t, dst.Client(t), []interface{}{"1", "2"}, "MGET", "{m}a", "{m}b")
	// In cluster mode the keys travel as RESTORE-ASKING, as Redis sends them.
	if stats := fmt.Sprint(value(t, dst.Client(t), "INFO", "commandstats")); !strings.Contains(stats, "cmdstat_restore-asking:calls=2,") {
		t.Errorf("the target ran no RESTORE-ASKING: %s", stats)
	}
	expect(t, owner, "OK", "ASKING")
}

// startRedisServerArgs starts redis-server with extra arguments and
// returns a client (with password, when given) and its address.
func startRedisServerArgs(t *testing.T, bin, password string, extra ...string) (*redis.Client, string) {
	t.Helper()
	addr := freeClosedPort(t)
	_, port, _ := net.SplitHostPort(addr)
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, extra...)
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: addr, Password: password}))
	t.Cleanup(func() { c.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return c, addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer PING: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMigrateWithRedisServer: every type moves from Ruvio to redis-server
// and back, TTLs kept, and AUTH/AUTH2 work against a protected
// redis-server.
func TestMigrateWithRedisServer(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref, refAddr := startRedisServerArgs(t, bin, "")
	s := testserver.Start(t)
	c := s.Client(t)

	for _, dir := range []struct {
		name     string
		from, to cmdr
		toAddr   string
	}{{"ruvio to redis-server", c, ref, refAddr}, {"redis-server to ruvio", ref, c, s.Addr()}} {
		t.Run(dir.name, func(t *testing.T) {
			prefix := strings.ReplaceAll(dir.name, " ", "-") + ":"
			keys := migrateTypes(t, dir.from, prefix)
			want := map[string]string{}
			for _, k := range keys {
				want[k] = migratedContents(t, dir.from, k)
			}
			value(t, dir.from, "PEXPIRE", prefix+"list", 100_000)
			expect(t, dir.from, "OK", append(migrateArgs(dir.toAddr, "", 0, 5000, "KEYS"), keysArgs(keys)...)...)
			for _, k := range keys {
				expect(t, dir.from, int64(0), "EXISTS", k)
				if got := migratedContents(t, dir.to, k); got != want[k] {
					t.Errorf("%s on the target: %.200s, want %.200s", k, got, want[k])
				}
			}
			ttlIn(t, dir.to, prefix+"list", 90_000, 100_000)
			expect(t, dir.to, int64(-1), "TTL", prefix+"hash")
			value(t, dir.from, "SET", prefix+"str", "again")
			expectErr(t, dir.from, errMigrateBusy, migrateArgs(dir.toAddr, prefix+"str", 0, 5000)...)
			expect(t, dir.from, "OK", migrateArgs(dir.toAddr, prefix+"str", 0, 5000, "REPLACE", "COPY")...)
			expect(t, dir.to, "again", "GET", prefix+"str")
			expect(t, dir.from, "again", "GET", prefix+"str")
		})
	}

	t.Run("AUTH to a protected redis-server", func(t *testing.T) {
		prot, protAddr := startRedisServerArgs(t, bin, "secret", "--requirepass", "secret")
		migrateAuthCases(t, c, protAddr)
		expect(t, prot, []interface{}{"1", "2", "3"}, "MGET", "a1", "a2", "a3")
	})
}

// TestMigrateWaitNotUnblockable: the client waiting for the target shows
// as blocked, but CLIENT UNBLOCK (from its shard or another) does not end
// the wait, as Redis's MIGRATE is never a blocked command.
func TestMigrateWaitNotUnblockable(t *testing.T) {
	t.Parallel()
	src := testserver.Start(t, testserver.Shards(2))
	value(t, src.ClusterClient(t), "SET", "{w}k", "v")
	var owner, other *redis.Client
	ownerIdx := 0
	for i := range 2 {
		c := src.ClientOf(t, i)
		if err := c.Do(ctxT(t), "EXISTS", "{w}k").Err(); err != nil {
			other = c
		} else {
			owner, ownerIdx = c, i
		}
	}
	same := src.ClientOf(t, ownerIdx) // another client of the owner's shard
	f := newFakeTarget(t, 2)
	done := make(chan error, 1)
	go func() { done <- owner.Do(ctxT(t), migrateArgs(f.l.Addr().String(), "{w}k", 0, 20_000)...).Err() }()
	f.waitGot(t)
	id := ""
	for _, line := range strings.Split(fmt.Sprint(value(t, same, "CLIENT", "LIST")), "\n") {
		if strings.Contains(line, " cmd=migrate ") {
			if !strings.Contains(line, " flags=b ") {
				t.Errorf("the waiting client is not shown blocked: %s", line)
			}
			id, _, _ = strings.Cut(strings.TrimPrefix(line, "id="), " ")
		}
	}
	if id == "" {
		t.Fatalf("no client waits in MIGRATE: %s", value(t, same, "CLIENT", "LIST"))
	}
	expect(t, other, int64(0), "CLIENT", "UNBLOCK", id)
	expect(t, same, int64(0), "CLIENT", "UNBLOCK", id, "ERROR")
	expect(t, same, int64(0), "CLIENT", "UNBLOCK", id)
	close(f.release)
	if err := <-done; err != nil {
		t.Fatalf("MIGRATE: %v", err)
	}
	expect(t, owner, int64(0), "EXISTS", "{w}k")
}

// TestMigrateDeletionIsDurable: the deletions MIGRATE makes are logged
// like DEL's: after a restart the moved keys are still gone, the copied
// one is still there.
func TestMigrateDeletionIsDurable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := testserver.Start(t, testserver.Dir(dir), testserver.Fsync("always"))
	dst := testserver.Start(t)
	sc := src.Client(t)
	value(t, sc, "MSET", "d1", "1", "d2", "2", "kept", "3")
	expect(t, sc, "OK", migrateArgs(dst.Addr(), "", 0, 5000, "KEYS", "d1", "d2")...)
	expect(t, sc, "OK", migrateArgs(dst.Addr(), "kept", 0, 5000, "COPY")...)
	src.Stop()
	again := testserver.Start(t, testserver.Dir(dir), testserver.Fsync("always"))
	ac := again.Client(t)
	expect(t, ac, int64(0), "EXISTS", "d1", "d2")
	expect(t, ac, "3", "GET", "kept")
	expect(t, dst.Client(t), []interface{}{"1", "2", "3"}, "MGET", "d1", "d2", "kept")
}

// TestMigrateWaitsForPause: CLIENT PAUSE WRITE begun while MIGRATE waits
// for the target holds its deletions (and its reply) until the pause ends,
// as it holds any write.
func TestMigrateWaitsForPause(t *testing.T) {
	t.Parallel()
	src := testserver.Start(t)
	sc, other := src.Client(t), src.Client(t)
	value(t, sc, "SET", "paused", "v")
	f := newFakeTarget(t, 2)
	done := make(chan error, 1)
	go func() { done <- sc.Do(ctxT(t), migrateArgs(f.l.Addr().String(), "paused", 0, 20_000)...).Err() }()
	f.waitGot(t)
	expect(t, other, "OK", "CLIENT", "PAUSE", 600, "WRITE")
	paused := time.Now()
	close(f.release)
	select {
	case err := <-done:
		t.Fatalf("MIGRATE answered during the pause: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	expect(t, other, int64(1), "EXISTS", "paused") // reads go on
	if err := <-done; err != nil {
		t.Fatalf("MIGRATE: %v", err)
	}
	if d := time.Since(paused); d < 500*time.Millisecond {
		t.Errorf("MIGRATE answered %v after a pause of 600 ms began", d)
	}
	expect(t, other, int64(0), "EXISTS", "paused")
}
