package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/types/rdb"
)

// kvClient is what the helpers of these tests need of a client: a
// standalone, cluster or single-connection one.
type kvClient interface {
	redis.Cmdable
	Do(ctx context.Context, args ...interface{}) *redis.Cmd
}

// keyContents describes a key's type, contents and TTL state through
// commands, members sorted, so the same data on two servers compares
// equal whatever the order of their hash tables.
func keyContents(t testing.TB, c kvClient, key string) string {
	t.Helper()
	typ, err := c.Type(ctxT(t), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	switch typ {
	case "none":
		return "none"
	case "string":
		parts = []string{c.Get(ctxT(t), key).Val()}
	case "list":
		parts = c.LRange(ctxT(t), key, 0, -1).Val()
	case "set":
		parts = c.SMembers(ctxT(t), key).Val()
		slices.Sort(parts)
	case "hash":
		for f, v := range c.HGetAll(ctxT(t), key).Val() {
			parts = append(parts, f+"="+v)
		}
		slices.Sort(parts)
	case "zset":
		for _, z := range c.ZRangeWithScores(ctxT(t), key, 0, -1).Val() {
			parts = append(parts, fmt.Sprintf("%v=%v", z.Member, z.Score))
		}
	case "stream":
		parts = []string{streamFull(t, c, key)}
	default:
		t.Fatalf("key %s has type %s", key, typ)
	}
	return typ + " " + strconv.Quote(strings.Join(parts, "\x00"))
}

// fillEveryType writes keys of every type and encoding under prefix.
func fillEveryType(t testing.TB, c kvClient, prefix string) []string {
	t.Helper()
	var keys []string
	do := func(key string, args ...any) {
		if err := c.Do(ctxT(t), append([]any{args[0], key}, args[1:]...)...).Err(); err != nil {
			t.Fatalf("%v %s: %v", args[0], key, err)
		}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	k := func(s string) string { return "{" + prefix + "}" + s }
	do(k("str"), "SET", "hello")
	do(k("int"), "SET", "-12345")
	do(k("long"), "SET", strings.Repeat("compressible ", 50))
	do(k("hll"), "PFADD", "a", "b", "c", "d")
	do(k("list"), "RPUSH", "a", "1", "-70000", "3000000000", "")
	var many []any
	for i := range 2000 {
		many = append(many, "element-"+strconv.Itoa(i))
	}
	do(k("biglist"), append([]any{"RPUSH"}, many...)...)
	do(k("intset"), "SADD", "1", "2", "-3", "5000000000")
	do(k("set"), "SADD", "a", "b", "c")
	do(k("bigset"), append([]any{"SADD"}, many...)...)
	do(k("hash"), "HSET", "f", "v", "n", "12")
	var pairs []any
	for i := range 300 {
		pairs = append(pairs, "f"+strconv.Itoa(i), strings.Repeat("v", i%100))
	}
	do(k("bighash"), append([]any{"HSET"}, pairs...)...)
	do(k("zset"), "ZADD", "1", "a", "2.5", "b", "-inf", "c", "inf", "d", "0.1", "e")
	var zs []any
	for i := range 300 {
		zs = append(zs, strconv.FormatFloat(float64(i)/7, 'g', -1, 64), "m"+strconv.Itoa(i))
	}
	do(k("bigzset"), append([]any{"ZADD"}, zs...)...)
	return keys
}

func TestDumpRestore(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			c := s.UniversalClient(t)
			keys := fillEveryType(t, c, "d")
			for _, key := range keys {
				want := keyContents(t, c, key)
				p, err := c.Dump(ctxT(t), key).Result()
				if err != nil {
					t.Fatal(err)
				}
				expectErr(t, c, "BUSYKEY Target key name already exists.", "RESTORE", key, 0, p)
				if err := c.Del(ctxT(t), key).Err(); err != nil {
					t.Fatal(err)
				}
				expect(t, c, "OK", "RESTORE", key, 0, p)
				if got := keyContents(t, c, key); got != want {
					t.Fatalf("%s restored as %.200s, want %.200s", key, got, want)
				}
				expect(t, c, int64(-1), "TTL", key)
				expect(t, c, "OK", "RESTORE", key, 5000, p, "REPLACE")
				if ttl := c.PTTL(ctxT(t), key).Val(); ttl <= 0 || ttl > 5*time.Second {
					t.Fatalf("%s: pttl %v", key, ttl)
				}
				if got := keyContents(t, c, key); got != want {
					t.Fatalf("%s replaced as %.200s", key, got)
				}
			}
			key := keys[0]
			p := c.Dump(ctxT(t), key).Val()
			// ABSTTL: a deadline in the past deletes a replaced key and
			// creates nothing.
			at := time.Now().Add(time.Hour).UnixMilli()
			expect(t, c, "OK", "RESTORE", key, at, p, "REPLACE", "ABSTTL")
			expect(t, c, at, "PEXPIRETIME", key)
			expect(t, c, "OK", "RESTORE", key, 1000, p, "REPLACE", "ABSTTL")
			expect(t, c, int64(0), "EXISTS", key)
			expect(t, c, "OK", "RESTORE", key, 1000, p, "ABSTTL")
			expect(t, c, int64(0), "EXISTS", key)
			expect(t, c, nil, "DUMP", key)
			// IDLETIME and FREQ.
			expect(t, c, "OK", "RESTORE", key, 0, p, "IDLETIME", 1000)
			if idle := c.ObjectIdleTime(ctxT(t), key).Val(); idle < 1000*time.Second || idle > 1010*time.Second {
				t.Fatalf("idle time %v", idle)
			}
			expectErr(t, c, "ERR Invalid IDLETIME value, must be >= 0", "RESTORE", key, 0, p, "REPLACE", "IDLETIME", -1)
			expectErr(t, c, "ERR Invalid FREQ value, must be >= 0 and <= 255", "RESTORE", key, 0, p, "REPLACE", "FREQ", 256)
			expectErr(t, c, errSyntax, "RESTORE", key, 0, p, "REPLACE", "IDLETIME", 1, "FREQ", 1)
			expectErr(t, c, errSyntax, "RESTORE", key, 0, p, "REPLACE", "FREQ")
			expectErr(t, c, errSyntax, "RESTORE", key, 0, p, "BOGUS")
			expectErr(t, c, errNotInt, "RESTORE", key, 0, p, "REPLACE", "IDLETIME", "x")
			expectErr(t, c, errNotInt, "RESTORE", key, "x", p, "REPLACE")
			expectErr(t, c, "ERR Invalid TTL value, must be >= 0", "RESTORE", key, -1, p, "REPLACE")
			expectErr(t, c, "ERR DUMP payload version or checksum are wrong", "RESTORE", key, 0, "short", "REPLACE")
			bad := []byte(p)
			bad[len(bad)-1] ^= 1
			expectErr(t, c, "ERR DUMP payload version or checksum are wrong", "RESTORE", key, 0, string(bad), "REPLACE")
			expectErr(t, c, "ERR Bad data format", "RESTORE", key, 0, string(rdb.AppendFooter([]byte{2, 0}, 0)), "REPLACE")
			expectErr(t, c, "ERR Bad data format", "RESTORE", key, 0, string(rdb.AppendFooter([]byte{0xFE, 1, 'a'}, 0)), "REPLACE")
			// A module value (type 7), such as a RedisBloom filter.
			expectErr(t, c, "ERR Bad data format", "RESTORE", key, 0, string(rdb.AppendFooter([]byte{7, 0x81, 1, 2, 3, 4, 5, 6, 7, 8, 0}, 0)), "REPLACE")
			expectErr(t, c, errArity("restore"), "RESTORE", key, 0)
			expectErr(t, c, errArity("dump"), "DUMP")
			// Nothing changed by the refused calls.
			if got := keyContents(t, c, key); got != "string \"hello\"" {
				t.Fatalf("after refused restores: %s", got)
			}
			// Bloom filters have no Redis serialization here.
			expect(t, c, "OK", "BF.RESERVE", "{d}bf", 0.01, 100)
			expectErr(t, c, "ERR DUMP of Bloom filters is not supported (RedisBloom's module encoding is not implemented)", "DUMP", "{d}bf")
			// A wrong type afterwards: restored values are real values.
			expectErr(t, c, errWrongType, "LPUSH", "{d}hash", "x")
		})
	}
}

// TestRestoreRedisPayloads restores the payloads redis-server 7.0.15
// produced (committed in types/rdb/testdata) and checks the contents
// against the decoder's reading of them.
func TestRestoreRedisPayloads(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.UniversalClient(t)
	files, err := filepath.Glob("../types/rdb/testdata/dumps/*.bin")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d payloads (%v)", len(files), err)
	}
	for _, f := range files {
		p, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		key := filepath.Base(f)
		expect(t, c, "OK", "RESTORE", key, 0, string(p))
		// Ruvio's DUMP of it decodes to the same contents.
		mine, err := c.Dump(ctxT(t), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		_, v1, err1 := rdb.ParseDump(p)
		_, v2, err2 := rdb.ParseDump([]byte(mine))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", key, err1, err2)
		}
		if a, b := rdbContents(v1), rdbContents(v2); a != b {
			t.Fatalf("%s: restored %.200s, want %.200s", key, b, a)
		}
	}
}

func rdbContents(v rdb.Value) string {
	var parts []string
	switch v.Kind {
	case rdb.KindString:
		return "string " + string(v.Str)
	case rdb.KindList:
		for _, e := range v.Elems {
			parts = append(parts, string(e))
		}
		return "list " + strings.Join(parts, "\x00")
	case rdb.KindSet:
		for _, e := range v.Elems {
			parts = append(parts, string(e))
		}
	case rdb.KindHash:
		for i := 0; i < len(v.Pairs); i += 2 {
			parts = append(parts, string(v.Pairs[i])+"="+string(v.Pairs[i+1]))
		}
	case rdb.KindZSet:
		for _, z := range v.Z {
			parts = append(parts, fmt.Sprintf("%s=%v", z.Member, z.Score))
		}
	}
	slices.Sort(parts)
	return v.Kind.String() + " " + strings.Join(parts, "\x00")
}

// TestDumpRestoreWithRedisServer moves every type both ways between
// redis-server and Ruvio with DUMP and RESTORE.
func TestDumpRestoreWithRedisServer(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	s := testserver.Start(t)
	c := s.UniversalClient(t)
	for _, dir := range []struct {
		name     string
		from, to redis.UniversalClient
	}{{"redis-to-ruvio", ref, c}, {"ruvio-to-redis", c, ref}} {
		keys := fillEveryType(t, dir.from, dir.name)
		for _, key := range keys {
			p, err := dir.from.Dump(ctxT(t), key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if dir.name == "redis-to-ruvio" && (strings.Contains(key, "}str") || strings.Contains(key, "}int") ||
				strings.Contains(key, "}long") || strings.Contains(key, "}hll") || strings.Contains(key, "}intset") ||
				strings.Contains(key, "list") || strings.HasSuffix(key, "}hash") || strings.HasSuffix(key, "}zset")) {
				// Where the encoding has one order, the bytes are Redis's.
				theirs := p
				key2 := key + ":copy"
				if err := dir.from.Do(ctxT(t), "RESTORE", key2, 0, theirs).Err(); err != nil {
					t.Fatal(err)
				}
				if err := c.Do(ctxT(t), "RESTORE", key2, 0, theirs).Err(); err != nil {
					t.Fatal(err)
				}
				if mine := c.Dump(ctxT(t), key2).Val(); mine != theirs {
					t.Errorf("%s: DUMP differs from redis-server's (%d bytes, %d)", key, len(mine), len(theirs))
				}
			}
			if err := dir.to.Do(ctxT(t), "RESTORE", key, 0, p).Err(); err != nil {
				t.Fatalf("%s %s: %v", dir.name, key, err)
			}
			if a, b := keyContents(t, dir.from, key), keyContents(t, dir.to, key); a != b {
				t.Fatalf("%s %s: %.200s, want %.200s", dir.name, key, b, a)
			}
			if strings.HasSuffix(key, "hll") {
				// A HyperLogLog moved either way counts the same.
				a, b := dir.from.PFCount(ctxT(t), key).Val(), dir.to.PFCount(ctxT(t), key).Val()
				if a != b || a != 4 {
					t.Fatalf("%s: PFCOUNT %d, want %d", dir.name, b, a)
				}
			}
			enc1 := dir.from.ObjectEncoding(ctxT(t), key).Val()
			enc2 := dir.to.ObjectEncoding(ctxT(t), key).Val()
			if enc1 != enc2 && !strings.HasPrefix(key, "{"+dir.name+"}str") && !strings.HasSuffix(key, "hll") && !strings.HasSuffix(key, "long") {
				t.Errorf("%s %s: encoding %s became %s", dir.name, key, enc1, enc2)
			}
		}
	}
}

// TestRestoreNotifications: RESTORE signals "new" and "restore", and a
// REPLACE with a deadline already passed signals "del", as Redis 7.0.
func TestRestoreNotifications(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	sub := notifySub(t, s, c)
	expect(t, c, "OK", "CONFIG", "SET", "notify-keyspace-events", "Egn")
	p := string(rdb.AppendDump(nil, &rdb.Value{Kind: rdb.KindString, Str: []byte("v")}))
	expect(t, c, "OK", "RESTORE", "k", 0, p)
	expect(t, c, "OK", "RESTORE", "k", 1, p, "REPLACE", "ABSTTL")
	got := readEvents(t, sub, 3)
	if got[0] != "__keyevent@0__:new k" || got[1] != "__keyevent@0__:restore k" || got[2] != "__keyevent@0__:del k" {
		t.Fatalf("got %q", got)
	}
}

// TestRestoreFreqIdle: FREQ sets the LFU counter under an LFU policy and
// IDLETIME the idle time under the others.
func TestRestoreFreqIdle(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)
	p := string(rdb.AppendDump(nil, &rdb.Value{Kind: rdb.KindSet, Elems: [][]byte{[]byte("a")}}))
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	expect(t, c, "OK", "RESTORE", "k", 0, p, "FREQ", 100)
	expect(t, c, int64(100), "OBJECT", "FREQ", "k")
	expect(t, c, "OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	expect(t, c, "OK", "RESTORE", "k", 0, p, "REPLACE", "IDLETIME", 300)
	expect(t, c, int64(300), "OBJECT", "IDLETIME", "k")
}
