package integration_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ruvio/ruvio/internal/testserver"
)

const (
	errNotHLL     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errCorruptHLL = "INVALIDOBJ Corrupted HLL object detected"
)

func TestHyperLogLog(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t)
	c := s.Client(t)

	t.Run("PFADD and PFCOUNT", func(t *testing.T) {
		expect(t, c, int64(1), "PFADD", "h") // creates the key
		expect(t, c, int64(0), "PFADD", "h")
		expect(t, c, int64(0), "PFCOUNT", "h")
		expect(t, c, "sparse", "PFDEBUG", "ENCODING", "h")
		// The empty value is the header and one XZERO covering every register.
		expect(t, c, "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff", "GET", "h")
		expect(t, c, int64(1), "PFADD", "h", "a", "b", "c")
		expect(t, c, int64(0), "PFADD", "h", "a", "b")
		expect(t, c, int64(1), "PFADD", "h", "")
		expect(t, c, int64(4), "PFCOUNT", "h")
		expect(t, c, int64(0), "PFCOUNT", "missing")
		expect(t, c, int64(0), "PFCOUNT", "missing", "missing2")
		expectErr(t, c, errArity("pfadd"), "PFADD")
		expectErr(t, c, errArity("pfcount"), "PFCOUNT")
	})

	t.Run("cache", func(t *testing.T) {
		expect(t, c, int64(1), "PFADD", "hc", "x")
		raw := value(t, c, "GET", "hc").(string)
		if raw[15]&0x80 == 0 {
			t.Errorf("PFADD left the cached cardinality valid")
		}
		expect(t, c, int64(1), "PFCOUNT", "hc")
		raw = value(t, c, "GET", "hc").(string)
		if raw[8:16] != "\x01\x00\x00\x00\x00\x00\x00\x00" {
			t.Errorf("PFCOUNT cached %q, want 1", raw[8:16])
		}
		// A cached value is returned without looking at the registers.
		value(t, c, "SETRANGE", "hc", "8", "\x07")
		expect(t, c, int64(7), "PFCOUNT", "hc")
	})

	t.Run("PFMERGE", func(t *testing.T) {
		for i := 0; i < 100; i++ {
			value(t, c, "PFADD", "m1", "a"+strconv.Itoa(i))
			value(t, c, "PFADD", "m2", "a"+strconv.Itoa(i+50))
		}
		expect(t, c, "OK", "PFMERGE", "m3", "m1", "m2")
		n := value(t, c, "PFCOUNT", "m3").(int64)
		if n < 145 || n > 155 {
			t.Errorf("PFCOUNT of the union: %d, want about 150", n)
		}
		expect(t, c, n, "PFCOUNT", "m1", "m2")
		expect(t, c, "OK", "PFMERGE", "m4")
		expect(t, c, int64(0), "PFCOUNT", "m4")
		expect(t, c, "sparse", "PFDEBUG", "ENCODING", "m4")
		// A dense input makes the destination dense.
		expect(t, c, int64(1), "PFDEBUG", "TODENSE", "m1")
		expect(t, c, int64(0), "PFDEBUG", "TODENSE", "m1")
		expect(t, c, "OK", "PFMERGE", "m5", "m1")
		expect(t, c, "dense", "PFDEBUG", "ENCODING", "m5")
		expectErr(t, c, errArity("pfmerge"), "PFMERGE")
	})

	t.Run("PFDEBUG", func(t *testing.T) {
		expect(t, c, int64(1), "PFADD", "d", "a")
		expect(t, c, "Z:12711 v:2,1 Z:3672", "PFDEBUG", "DECODE", "d")
		regs := value(t, c, "PFDEBUG", "GETREG", "d").([]interface{})
		if len(regs) != 16384 || regs[12711] != int64(2) {
			t.Errorf("GETREG: %d registers, register 12711 = %v", len(regs), regs[12711])
		}
		expect(t, c, "dense", "PFDEBUG", "ENCODING", "d") // GETREG converts
		expectErr(t, c, "ERR HLL encoding is not sparse", "PFDEBUG", "DECODE", "d")
		expectErr(t, c, "ERR Unknown PFDEBUG subcommand 'foo'", "PFDEBUG", "foo", "d")
		expectErr(t, c, "ERR The specified key does not exist", "PFDEBUG", "foo", "missing")
		expectErr(t, c, errArity("pfdebug"), "PFDEBUG", "GETREG")
		expect(t, c, "OK", "PFSELFTEST")
	})

	t.Run("errors", func(t *testing.T) {
		expect(t, c, "OK", "SET", "str", "hello")
		value(t, c, "LEASE", "lease", "100000")
		for _, args := range [][]interface{}{
			{"PFADD", "str", "a"}, {"PFCOUNT", "str"}, {"PFCOUNT", "h", "str"}, {"PFMERGE", "h", "str"}, {"PFDEBUG", "GETREG", "str"},
		} {
			expectErr(t, c, errNotHLL, args...)
		}
		expectErr(t, c, errWrongType, "PFADD", "lease", "a")
		expectErr(t, c, errWrongType, "PFCOUNT", "lease")
		// A dense value of the wrong length is not a HyperLogLog.
		expect(t, c, "OK", "SET", "bad", "HYLL\x00"+strings.Repeat("\x00", 20))
		expectErr(t, c, errNotHLL, "PFCOUNT", "bad")
		// Sparse opcodes that do not cover the registers are corrupt.
		expect(t, c, "OK", "SET", "corrupt", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x00")
		expectErr(t, c, errCorruptHLL, "PFCOUNT", "corrupt")
		expectErr(t, c, errCorruptHLL, "PFCOUNT", "corrupt", "h")
		expectErr(t, c, errCorruptHLL, "PFMERGE", "x", "corrupt")
		expectErr(t, c, errCorruptHLL, "PFDEBUG", "TODENSE", "corrupt")
	})

	t.Run("sparse limit", func(t *testing.T) {
		expect(t, c, "OK", "CONFIG", "SET", "hll-sparse-max-bytes", "30")
		t.Cleanup(func() { c.Do(ctxT(t), "CONFIG", "SET", "hll-sparse-max-bytes", "3000") })
		for i := 0; i < 10; i++ {
			value(t, c, "PFADD", "lim", strconv.Itoa(i))
		}
		expect(t, c, "dense", "PFDEBUG", "ENCODING", "lim")
	})
}

// TestHyperLogLogBytesMatchRedis runs the same PFADD, PFCOUNT and PFMERGE
// calls on redis-server (when installed) and on the server, and compares
// every reply and the raw value of every key, so values can move between
// the two (DUMP/RESTORE, replication tools) and count the same.
func TestHyperLogLogBytesMatchRedis(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	s := testserver.Start(t)
	c := s.Client(t)
	rng := rand.New(rand.NewPCG(14, 1))
	keys := []string{"a", "b", "c"}
	steps := 0
	for round := 0; round < 30; round++ {
		// A budget per round (about 330 round trips to each server), not
		// one for the whole test: under -race on a loaded 2-CPU machine
		// the 30 rounds together take longer than a single 20 s budget,
		// while a stuck server still fails within one round's.
		limit := []string{"3000", "200", "40", "12000"}[round%4]
		for _, cl := range []*redis.Client{ref, c} {
			if err := cl.Do(ctxT(t), "FLUSHALL").Err(); err != nil {
				t.Fatal(err)
			}
			if err := cl.Do(ctxT(t), "CONFIG", "SET", "hll-sparse-max-bytes", limit).Err(); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 40; i++ {
			k := keys[rng.IntN(len(keys))]
			var args []interface{}
			switch r := rng.IntN(10); {
			case r < 7:
				args = []interface{}{"PFADD", k}
				for j := rng.IntN(30); j > 0; j-- {
					args = append(args, fmt.Sprintf("%x", rng.Uint64()>>(rng.IntN(4)*16)))
				}
			case r < 8:
				args = []interface{}{"PFCOUNT", k}
			case r < 9:
				args = []interface{}{"PFMERGE", k, keys[rng.IntN(3)], keys[rng.IntN(3)]}
			default:
				args = []interface{}{"PFCOUNT", "a", "b", "c"}
			}
			want, werr := ref.Do(ctxT(t), args...).Result()
			got, gerr := c.Do(ctxT(t), args...).Result()
			if fmt.Sprint(want, werr) != fmt.Sprint(got, gerr) {
				t.Fatalf("%s: redis-server %v (%v), ruvio %v (%v)", argv(args), want, werr, got, gerr)
			}
			for _, key := range keys {
				w, _ := ref.Get(ctxT(t), key).Result()
				g, _ := c.Get(ctxT(t), key).Result()
				if w != g {
					t.Fatalf("after %s (limit %s): value of %s differs (%d bytes vs %d)", argv(args), limit, key, len(w), len(g))
				}
			}
			steps++
		}
	}
	if steps != 1200 {
		t.Fatalf("ran %d steps", steps)
	}
}

// startRedisServer starts redis-server on a free loopback port, without
// persistence, stopped when the test ends.
func startRedisServer(t *testing.T, bin string) *redis.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)}))
	t.Cleanup(func() { c.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer PING")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}
