package integration_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/testserver"
	"github.com/ruvio/ruvio/types/rdb"
)

// fillStreams builds streams of several shapes with the same commands
// (explicit ids, so both servers hold the same) and returns their keys.
func fillStreams(t testing.TB, c kvClient, prefix string) []string {
	t.Helper()
	k := func(s string) string { return "{" + prefix + "}" + s }
	do := func(args ...any) {
		t.Helper()
		if err := c.Do(ctxT(t), args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	do("XADD", k("simple"), "1-1", "a", "1", "b", "two")
	do("XADD", k("simple"), "1-2", "a", "3", "b", "four")
	do("XADD", k("simple"), "2-0", "other", strings.Repeat("long ", 30))

	do("XADD", k("empty"), "5-0", "f", "v")
	do("XDEL", k("empty"), "5-0")

	for i := 1; i <= 450; i++ {
		fields := []any{"XADD", k("big"), strconv.Itoa(i*10) + "-" + strconv.Itoa(i%4), "n", strconv.Itoa(i), "s", strings.Repeat("x", i%90)}
		if i%40 == 0 {
			fields = append(fields, "extra", "field")
		}
		do(fields...)
	}
	for _, id := range []string{"10-1", "500-0", "2000-0", "2010-1", "4500-0"} {
		do("XDEL", k("big"), id)
	}
	do("XTRIM", k("big"), "MINID", "100-0")
	do("XGROUP", "CREATE", k("big"), "g1", "0")
	do("XGROUP", "CREATE", k("big"), "g2", "$")
	do("XGROUP", "CREATE", k("big"), "g3", "0", "ENTRIESREAD", "7")
	do("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "30", "STREAMS", k("big"), ">")
	do("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "5", "STREAMS", k("big"), ">")
	do("XACK", k("big"), "g1", "110-3", "120-0")
	do("XCLAIM", k("big"), "g1", "carol", "0", "130-1", "140-2")
	do("XREADGROUP", "GROUP", "g1", "alice", "STREAMS", k("big"), "0")
	do("XGROUP", "CREATECONSUMER", k("big"), "g2", "idle")
	do("XGROUP", "SETID", k("big"), "g3", "1000-0")
	return []string{k("simple"), k("empty"), k("big")}
}

// streamFull is XINFO STREAM FULL (a map in RESP3, a flat array in
// RESP2) as text, without the radix tree's shape, which depends on
// history (deleted entries Redis keeps in its nodes).
func streamFull(t testing.TB, c kvClient, key string) string {
	t.Helper()
	v, err := c.Do(ctxT(t), "XINFO", "STREAM", key, "FULL", "COUNT", "0").Result()
	if err != nil {
		t.Fatalf("XINFO STREAM %s FULL: %v", key, err)
	}
	fields := map[string]any{}
	switch m := v.(type) {
	case map[any]any:
		for k, v := range m {
			fields[fmt.Sprint(k)] = v
		}
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			fields[fmt.Sprint(m[i])] = m[i+1]
		}
	}
	delete(fields, "radix-tree-keys")
	delete(fields, "radix-tree-nodes")
	return canonReply(fields)
}

// canonReply prints a reply with map keys sorted.
func canonReply(v any) string {
	switch m := v.(type) {
	case map[any]any:
		s := map[string]any{}
		for k, v := range m {
			s[fmt.Sprint(k)] = v
		}
		return canonReply(s)
	case map[string]any:
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		b.WriteString("{")
		for _, k := range keys {
			b.WriteString(k + ":" + canonReply(m[k]) + " ")
		}
		return b.String() + "}"
	case []any:
		var b strings.Builder
		b.WriteString("[")
		for _, e := range m {
			b.WriteString(canonReply(e) + " ")
		}
		return b.String() + "]"
	}
	return fmt.Sprint(v)
}

// TestDumpRestoreStreamWithRedisServer: streams move both ways between
// redis-server and Ruvio (1 and 4 shards) with the same XINFO STREAM FULL.
func TestDumpRestoreStreamWithRedisServer(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+" shards", func(t *testing.T) {
			s := testserver.Start(t, testserver.Shards(shards))
			var c redis.UniversalClient
			if shards == 1 {
				c = s.UniversalClient(t)
			} else {
				c = s.ClusterClient(t)
			}
			prefix := "s" + strconv.Itoa(shards)
			fillStreams(t, ref, prefix+"redis")
			fillStreams(t, c, prefix+"ruvio")
			for _, dir := range []struct {
				name     string
				from, to redis.UniversalClient
			}{{prefix + "redis", ref, c}, {prefix + "ruvio", c, ref}} {
				for _, key := range []string{"simple", "empty", "big"} {
					key = "{" + dir.name + "}" + key
					p, err := dir.from.Dump(ctxT(t), key).Result()
					if err != nil {
						t.Fatal(err)
					}
					copyKey := key + ":copy"
					if err := dir.to.Do(ctxT(t), "RESTORE", copyKey, 0, p).Err(); err != nil {
						t.Fatalf("%s %s: %v", dir.name, key, err)
					}
					a, b := streamFull(t, dir.from, key), streamFull(t, dir.to, copyKey)
					if a != b {
						t.Fatalf("%s %s:\n%s\nwant\n%s", dir.name, key, b, a)
					}
					if strings.HasSuffix(key, "big") && (!strings.Contains(a, "carol") || !strings.Contains(a, "idle") || !strings.Contains(a, "4490-1")) {
						t.Fatalf("XINFO STREAM FULL misses groups or entries: %.500s", a)
					}
					// The restored stream works on: a group reads, XADD goes on.
					if err := dir.to.Do(ctxT(t), "XADD", copyKey, "*", "after", "restore").Err(); err != nil {
						t.Fatal(err)
					}
					if key == "{"+dir.name+"}big" {
						a := dir.from.XPending(ctxT(t), key, "g1").Val()
						b := dir.to.XPending(ctxT(t), copyKey, "g1").Val()
						if fmt.Sprint(a) != fmt.Sprint(b) {
							t.Fatalf("XPENDING %v, want %v", b, a)
						}
					}
				}
			}
			// Ruvio's DUMP of a Ruvio-built stream is byte for byte
			// redis-server's when the stream has no deleted entries.
			theirs := ref.Dump(ctxT(t), "{"+prefix+"redis}simple").Val()
			mine := c.Dump(ctxT(t), "{"+prefix+"ruvio}simple").Val()
			if mine != theirs {
				t.Errorf("DUMP differs from redis-server's:\n%q\n%q", mine, theirs)
			}
		})
	}
}

// TestDumpStreamWithHolds: a stream with an entry held by XADD DELAY is
// not dumped (Redis's format cannot hold it back); once due it is.
func TestDumpStreamWithHolds(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.UniversalClient(t)
	if err := c.Do(ctxT(t), "XADD", "held", "1-0", "a", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctxT(t), "XADD", "held", "DELAY", "300", "2-0", "a", "2").Err(); err != nil {
		t.Fatal(err)
	}
	const msg = "ERR DUMP of a stream with delayed entries (XADD DELAY) is not supported: Redis's serialization cannot hold them back; retry once they are due"
	_, err := c.Dump(ctxT(t), "held").Result()
	if err == nil || err.Error() != msg {
		t.Fatalf("DUMP of a held stream: %v", err)
	}
	time.Sleep(350 * time.Millisecond)
	p := c.Dump(ctxT(t), "held").Val()
	if err := c.Do(ctxT(t), "RESTORE", "copy", 0, p).Err(); err != nil {
		t.Fatal(err)
	}
	if a, b := streamFull(t, c, "held"), streamFull(t, c, "copy"); a != b {
		t.Fatalf("%s\nwant\n%s", b, a)
	}
}

// TestRestoreStreamErrors: malformed stream payloads get Redis's reply
// and change nothing.
func TestRestoreStreamErrors(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.UniversalClient(t)
	if err := c.Do(ctxT(t), "XADD", "s", "1-0", "a", "1").Err(); err != nil {
		t.Fatal(err)
	}
	p := []byte(c.Dump(ctxT(t), "s").Val())
	// Cut the value short and fix the footer.
	body := p[:len(p)-10-3]
	bad := rdb.AppendFooter(bytes.Clone(body), 0)
	err := c.Do(ctxT(t), "RESTORE", "t", 0, string(bad)).Err()
	if err == nil || err.Error() != "ERR Bad data format" {
		t.Fatalf("RESTORE of a truncated stream: %v", err)
	}
	if n := c.Exists(ctxT(t), "t").Val(); n != 0 {
		t.Fatal("a failed RESTORE created the key")
	}
}
