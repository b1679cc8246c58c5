package commands

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/keyspace"
)

func TestRuvioHotkeys(t *testing.T) {
	sh := newTestShard(t)
	expect(t, sh, rArr(), "RUVIO", "HOTKEYS")
	for i := range 100 {
		run(t, sh, "SET", fmt.Sprintf("cold:%d", i), "v")
	}
	run(t, sh, "SET", "hot", "v")
	// 100 cold keys read twice each, the hot one 3,000 times: with one
	// lookup in 64 sampled, on average, the hot key is counted about 47
	// times (standard deviation 7), the others a few times in all.
	for round := range 30 {
		for i := range 100 {
			run(t, sh, "GET", "hot")
			if round < 2 {
				run(t, sh, "GET", fmt.Sprintf("cold:%d", i))
			}
		}
	}
	got := sh.HotKeys(3)
	if len(got) == 0 || got[0].Key != "hot" || got[0].DB != 0 {
		t.Fatalf("hot keys: %+v", got)
	}
	// Ten standard deviations either side.
	if c := got[0].Count; c < 1000 || c > 5000 {
		t.Errorf("hot: %d lookups estimated, 3000 made", c)
	}
	reply := run(t, sh, "RUVIO", "HOTKEYS", "1")
	if !strings.HasPrefix(reply, "*1\r\n*8\r\n"+rBulk("key")+rBulk("hot")+rBulk("db")+rInt(0)+rBulk("count")) {
		t.Errorf("RUVIO HOTKEYS 1: %q", reply)
	}
	expect(t, sh, rErr("ERR count should be a positive integer"), "RUVIO", "HOTKEYS", "0")
	expect(t, sh, rErr(keyspace.ErrSyntax), "RUVIO", "HOTKEYS", "1", "2")
	expect(t, sh, "+OK\r\n", "RUVIO", "HOTKEYS", "RESET")
	expect(t, sh, rArr(), "RUVIO", "HOTKEYS")
}

// TestHotKeysLongKeys: keys longer than a slot keeps are told apart by
// length and hash, and reported cut.
func TestHotKeysLongKeys(t *testing.T) {
	sh := newTestShard(t)
	a, b := strings.Repeat("x", 200)+"a", strings.Repeat("x", 200)+"b"
	run(t, sh, "SET", a, "1")
	run(t, sh, "SET", b, "1")
	for range 64 * 20 {
		run(t, sh, "GET", a)
		run(t, sh, "GET", b)
	}
	got := sh.HotKeys(10)
	if len(got) != 2 || got[0].Len != 201 || len(got[0].Key) != 128 || got[1].Len != 201 {
		t.Errorf("long keys: %d entries %+v", len(got), got)
	}
}
