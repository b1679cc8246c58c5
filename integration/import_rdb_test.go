package integration_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/keyspace"
)

// redisRDB fills redis-server with keys of every type in the given
// databases (with deadlines on some), a function library, and returns
// the RDB file SAVE wrote and the client.
func redisRDB(t *testing.T, dbs []int) (string, *redis.Client) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	for _, db := range dbs {
		c := ref.Conn()
		if err := c.Select(ctxT(t), db).Err(); err != nil {
			t.Fatal(err)
		}
		keys := fillEveryType(t, redisConn{c}, "db"+strconv.Itoa(db))
		keys = append(keys, fillStreams(t, redisConn{c}, "db"+strconv.Itoa(db))...)
		for i, k := range keys {
			if i%3 == 0 {
				if err := c.Expire(ctxT(t), k, time.Duration(1000+i)*time.Second).Err(); err != nil {
					t.Fatal(err)
				}
			}
		}
		c.Close()
	}
	expect(t, ref, "mylib", "FUNCTION", "LOAD", functionDumpLib)
	expect(t, ref, "OK", "SAVE")
	dir := ref.ConfigGet(ctxT(t), "dir").Val()["dir"]
	return filepath.Join(dir, "dump.rdb"), ref
}

// redisConn adapts a redis.Conn (one connection, one selected
// database) to what fillEveryType needs.
type redisConn struct{ *redis.Conn }

func (c redisConn) Do(ctx context.Context, args ...interface{}) *redis.Cmd {
	cmd := redis.NewCmd(ctx, args...)
	_ = c.Conn.Process(ctx, cmd)
	return cmd
}

func TestImportRDBOneShard(t *testing.T) {
	t.Parallel()
	path, ref := redisRDB(t, []int{0, 3, 15})
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Persistence.Dir = dir
	var out bytes.Buffer
	if err := app.ImportRDB(cfg, path, false, &out); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, want := range []string{"imported 48 keys", "(RDB version 10, written by Redis 7.0.15)", "  string  12\n", "  list    6\n",
		"  set     9\n", "  hash    6\n", "  zset    6\n", "  stream  9\n", "  db0     16 keys\n", "  db3     16 keys\n", "  db15    16 keys\n",
		`skipped (1):` + "\n  function library \"mylib\""} {
		if !strings.Contains(report, want) {
			t.Fatalf("report lacks %q:\n%s", want, report)
		}
	}
	// A second import into the same directory is refused, unless told.
	err := app.ImportRDB(cfg, path, false, &out)
	if !errors.Is(err, keyspace.ErrDataDirNotEmpty) {
		t.Fatalf("second import: %v", err)
	}
	if err := app.ImportRDB(cfg, path, true, &out); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Config(func(c *config.Config) {
		c.Persistence.Dir = dir
		c.Persistence.WAL = true
	}))
	c := s.Client(t)
	compareAllDBs(t, ref, c, []int{0, 3, 15})
}

// compareAllDBs checks that every key of the given databases of ref has
// the same contents and about the same TTL in c, and that c holds no
// other keys.
func compareAllDBs(t *testing.T, ref, c *redis.Client, dbs []int) {
	t.Helper()
	for _, db := range dbs {
		rc, cc := ref.Conn(), c.Conn()
		if err := rc.Select(ctxT(t), db).Err(); err != nil {
			t.Fatal(err)
		}
		if err := cc.Select(ctxT(t), db).Err(); err != nil {
			t.Fatal(err)
		}
		keys := rc.Keys(ctxT(t), "*").Val()
		if n := cc.DBSize(ctxT(t)).Val(); n != int64(len(keys)) || len(keys) == 0 {
			t.Fatalf("db %d: %d keys, redis-server %d", db, n, len(keys))
		}
		for _, k := range keys {
			if a, b := keyContents(t, redisConn{rc}, k), keyContents(t, redisConn{cc}, k); a != b {
				t.Fatalf("db %d key %s: %.200s, want %.200s", db, k, b, a)
			}
			want, got := rc.PExpireTime(ctxT(t), k).Val(), cc.PExpireTime(ctxT(t), k).Val()
			if want != got {
				t.Fatalf("db %d key %s: deadline %v, want %v", db, k, got, want)
			}
		}
		rc.Close()
		cc.Close()
	}
}

func TestImportRDBFourShards(t *testing.T) {
	t.Parallel()
	path, ref := redisRDB(t, []int{0})
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Persistence.Dir = dir
	cfg.Server.Shards = 4
	var out bytes.Buffer
	if err := app.ImportRDB(cfg, path, false, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "imported 16 keys") {
		t.Fatalf("report:\n%s", out.String())
	}
	s := testserver.Start(t, testserver.Config(func(c *config.Config) {
		c.Persistence.Dir = dir
		c.Persistence.WAL = true
		c.Server.Shards = 4
	}))
	cc := s.ClusterClient(t)
	keys := ref.Keys(ctxT(t), "*").Val()
	total := 0
	for i := range 4 {
		total += int(s.ClientOf(t, i).DBSize(ctxT(t)).Val())
	}
	if total != len(keys) {
		t.Fatalf("%d keys over the shards, redis-server %d", total, len(keys))
	}
	for _, k := range keys {
		if a, b := keyContents(t, ref, k), keyContents(t, cc, k); a != b {
			t.Fatalf("key %s: %.200s, want %.200s", k, b, a)
		}
	}

	// Another database than 0 cannot go into several shards.
	path2, _ := redisRDB(t, []int{0, 2})
	cfg.Persistence.Dir = t.TempDir()
	err := app.ImportRDB(cfg, path2, false, &out)
	if err == nil || !strings.Contains(err.Error(), "is in database 2, but with 4 shards only database 0 exists") {
		t.Fatalf("import of db 2 into 4 shards: %v", err)
	}
	// Nothing was left behind.
	names, _ := os.ReadDir(cfg.Persistence.Dir)
	for _, n := range names {
		if strings.HasPrefix(n.Name(), "shard-") {
			t.Fatalf("refused import left %s", n.Name())
		}
	}
}

// TestImportCommittedRDB imports testdata/redis-7.0.15-dump.rdb, which
// redis-server 7.0.15 SAVEd (keys of every type and encoding in database
// 0, two keys in database 5, deadlines in 2100, a function library), so
// the import is checked without redis-server too.
func TestImportCommittedRDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Persistence.Dir = dir
	var out bytes.Buffer
	if err := app.ImportRDB(cfg, "testdata/redis-7.0.15-dump.rdb", false, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"imported 15 keys", "  string  5\n", "  list    3\n", "  set     3\n", "  hash    2\n", "  zset    2\n",
		"  db0     13 keys\n", "  db5     2 keys\n", `function library "fixlib"`} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, out.String())
		}
	}
	s := testserver.Start(t, testserver.Config(func(c *config.Config) {
		c.Persistence.Dir = dir
		c.Persistence.WAL = true
	}))
	c := s.Client(t)
	expect(t, c, "hello", "GET", "str")
	expect(t, c, "-12345", "GET", "int")
	expect(t, c, strings.Repeat("compressible ", 50), "GET", "long")
	expect(t, c, int64(4), "PFCOUNT", "hll")
	expect(t, c, []interface{}{"a", "1", "-70000", "3000000000", ""}, "LRANGE", "list", 0, -1)
	expect(t, c, int64(4102444800123), "PEXPIRETIME", "list")
	expect(t, c, int64(2000), "LLEN", "biglist")
	expect(t, c, "element-1234", "LINDEX", "biglist", 1234)
	expect(t, c, int64(600), "SCARD", "bigset")
	expect(t, c, int64(1), "SISMEMBER", "bigset", 7*599)
	expect(t, c, int64(300), "HLEN", "bighash")
	expect(t, c, strings.Repeat("v", 99), "HGET", "bighash", "f199")
	expect(t, c, int64(300), "ZCARD", "bigzset")
	expect(t, c, float64(150)/7, "ZSCORE", "bigzset", "m150")
	if got := keyContents(t, c, "intset"); got != keyContentsWant("set", "-3", "1", "2", "5000000000") {
		t.Fatalf("intset: %s", got)
	}
	if got := keyContents(t, c, "set"); got != keyContentsWant("set", "a", "b", "c") {
		t.Fatalf("set: %s", got)
	}
	expect(t, c, map[interface{}]interface{}{"f": "v", "n": "12"}, "HGETALL", "hash")
	expect(t, c, int64(4102444800), "EXPIRETIME", "hash")
	expect(t, c, []interface{}{"c", "e", "a", "b", "d"}, "ZRANGE", "zset", 0, -1)
	expect(t, c, int64(-1), "TTL", "str")
	if got := keyContents(t, c, "zset"); got != keyContentsWant("zset", "c=-Inf", "e=0.1", "a=1", "b=2.5", "d=+Inf") {
		t.Fatalf("zset: %s", got)
	}
	conn := c.Conn()
	defer conn.Close()
	if err := conn.Select(ctxT(t), 5).Err(); err != nil {
		t.Fatal(err)
	}
	if v := conn.Get(ctxT(t), "db5key").Val(); v != "v5" {
		t.Fatalf("db5key = %q", v)
	}
	if v := conn.LRange(ctxT(t), "db5list", 0, -1).Val(); strings.Join(v, ",") != "x,y" {
		t.Fatalf("db5list = %q", v)
	}
}

func keyContentsWant(typ string, parts ...string) string {
	return typ + " " + strconv.Quote(strings.Join(parts, "\x00"))
}
