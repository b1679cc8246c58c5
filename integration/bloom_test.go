package integration_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// The Bloom filter commands through go-redis on one shard and four
// shards, and a restart from the WAL and from a snapshot.

func TestBloomCommands(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		expect(t, c, "OK", "BF.RESERVE", "b1", 0.01, 1000)
		expect(t, c, "MBbloom--", "TYPE", "b1")
		expectErr(t, c, "ERR item exists", "BF.RESERVE", "b1", 0.01, 1000)
		expectErr(t, c, "ERR bad error rate", "BF.RESERVE", "b2", "x", 1000)
		expectErr(t, c, "ERR (0 < error rate range < 1) ", "BF.RESERVE", "b2", 1, 1000)
		expectErr(t, c, "ERR bad capacity", "BF.RESERVE", "b2", 0.01, "x")
		expectErr(t, c, "ERR (capacity should be larger than 0)", "BF.RESERVE", "b2", 0.01, 0)
		expectErr(t, c, "Nonscaling filters cannot expand", "BF.RESERVE", "b2", 0.01, 10, "EXPANSION", 2, "NONSCALING")
		expectErr(t, c, "ERR no expansion", "BF.RESERVE", "b2", 0.01, 10, "EXPANSION")
		expectErr(t, c, "ERR bad expansion", "BF.RESERVE", "b2", 0.01, 10, "EXPANSION", "x")
		expectErr(t, c, errArity("bf.reserve"), "BF.RESERVE", "b2", 0.01)

		expect(t, c, true, "BF.ADD", "b1", "a")
		expect(t, c, false, "BF.ADD", "b1", "a")
		expect(t, c, []interface{}{false, true, true}, "BF.MADD", "b1", "a", "b", "c")
		expect(t, c, true, "BF.EXISTS", "b1", "b")
		expect(t, c, false, "BF.EXISTS", "b1", "zz")
		expect(t, c, false, "BF.EXISTS", "none", "a")
		expect(t, c, []interface{}{true, false}, "BF.MEXISTS", "b1", "c", "zz")
		expect(t, c, int64(3), "BF.CARD", "b1")
		expect(t, c, int64(0), "BF.CARD", "none")
		expect(t, c, bfField("Capacity", int64(1000)), "BF.INFO", "b1", "CAPACITY")
		expect(t, c, bfField("Number of items inserted", int64(3)), "BF.INFO", "b1", "ITEMS")
		expect(t, c, bfField("Number of filters", int64(1)), "BF.INFO", "b1", "FILTERS")
		expect(t, c, bfField("Expansion rate", int64(2)), "BF.INFO", "b1", "EXPANSION")
		expectErr(t, c, "Invalid information value", "BF.INFO", "b1", "BOGUS")
		expectErr(t, c, "ERR not found", "BF.INFO", "none")
		info := value(t, c, "BF.INFO", "b1").(map[interface{}]interface{})
		if info["Capacity"] != int64(1000) || info["Number of items inserted"] != int64(3) || info["Expansion rate"] != int64(2) || info["Number of filters"] != int64(1) {
			t.Errorf("BF.INFO: %#v", info)
		}

		// BF.ADD on a missing key creates a default filter (100 items, 1%).
		expect(t, c, true, "BF.ADD", "auto", "x")
		expect(t, c, bfField("Capacity", int64(100)), "BF.INFO", "auto", "CAPACITY")

		// BF.INSERT options, NOCREATE, NONSCALING and a full filter.
		expect(t, c, []interface{}{true, true}, "BF.INSERT", "ins", "CAPACITY", 2, "ERROR", 0.001, "NONSCALING", "ITEMS", "a", "b")
		expect(t, c, bfField("Expansion rate", nil), "BF.INFO", "ins", "EXPANSION")
		got, err := c.Do(ctxT(t), "BF.INSERT", "ins", "ITEMS", "c", "d").Slice()
		if err != nil || len(got) != 1 {
			t.Errorf("BF.INSERT into a full filter: %#v, %v", got, err)
		} else if e, ok := got[0].(error); !ok || e.Error() != "ERR non scaling filter is full" {
			t.Errorf("BF.INSERT into a full filter: %#v", got[0])
		}
		expectErr(t, c, "ERR non scaling filter is full", "BF.ADD", "ins", "e")
		expectErr(t, c, "ERR not found", "BF.INSERT", "none", "NOCREATE", "ITEMS", "a")
		expectErr(t, c, "Bad argument received", "BF.INSERT", "x", "ERROR", 2, "ITEMS", "a")
		expectErr(t, c, "Bad capacity", "BF.INSERT", "x", "CAPACITY", "y", "ITEMS", "a")
		expectErr(t, c, "Unknown argument received", "BF.INSERT", "x", "BOGUS", "ITEMS", "a")
		expectErr(t, c, errArity("bf.insert"), "BF.INSERT", "x", "CAPACITY", 10, "ITEMS")
		expect(t, c, []interface{}{true}, "BF.INSERT", "grow", "CAPACITY", 1, "EXPANSION", 4, "ITEMS", "a")
		expect(t, c, []interface{}{true}, "BF.MADD", "grow", "b")
		expect(t, c, bfField("Number of filters", int64(2)), "BF.INFO", "grow", "FILTERS")
		expect(t, c, bfField("Capacity", int64(5)), "BF.INFO", "grow", "CAPACITY")

		// WRONGTYPE both ways; key commands.
		expect(t, c, "OK", "SET", "str", "v")
		for _, args := range [][]interface{}{
			{"BF.ADD", "str", "a"}, {"BF.MADD", "str", "a"},
			{"BF.INFO", "str"}, {"BF.CARD", "str"}, {"BF.INSERT", "str", "ITEMS", "a"}, {"BF.RESERVE", "str", 0.1, 10},
			{"GET", "b1"}, {"SADD", "b1", "a"},
		} {
			expectErr(t, c, errWrongType, args...)
		}
		expect(t, c, "OK", "BF.RESERVE", "{b}1", 0.01, 100)
		expect(t, c, int64(1), "COPY", "{b}1", "{b}1copy")
		expect(t, c, true, "BF.ADD", "{b}1copy", "new")
		expect(t, c, false, "BF.EXISTS", "{b}1", "new")
		if n := intValue(t, c, "MEMORY", "USAGE", "b1"); n < 1000 {
			t.Errorf("MEMORY USAGE of a 1000-item filter: %d", n)
		}
	})
}

// TestBloomRestart checks filters survive a crash (WAL replay), a clean
// stop with a snapshot, and a start from that snapshot.
func TestBloomRestart(t *testing.T) {
	dir := t.TempDir()
	opts := []testserver.Option{testserver.Fsync("always")}
	s := testserver.Start(t, append(opts, testserver.Dir(dir))...)
	c := s.Client(t)
	expect(t, c, "OK", "BF.RESERVE", "r", 0.001, 10, "EXPANSION", 3)
	for i := 0; i < 50; i++ { // past the first layer
		value(t, c, "BF.ADD", "r", "item"+strconv.Itoa(i))
	}
	expect(t, c, []interface{}{true}, "BF.INSERT", "ns", "CAPACITY", 1, "NONSCALING", "ITEMS", "only")
	expect(t, c, true, "BF.ADD", "dflt", "x")
	check := func(t *testing.T, c cmdr) {
		t.Helper()
		for i := 0; i < 50; i++ {
			expect(t, c, true, "BF.EXISTS", "r", "item"+strconv.Itoa(i))
		}
		expect(t, c, int64(50), "BF.CARD", "r")
		expect(t, c, bfField("Expansion rate", int64(3)), "BF.INFO", "r", "EXPANSION")
		expect(t, c, bfField("Expansion rate", nil), "BF.INFO", "ns", "EXPANSION")
		expectErr(t, c, "ERR non scaling filter is full", "BF.ADD", "ns", "more")
		expect(t, c, bfField("Capacity", int64(100)), "BF.INFO", "dflt", "CAPACITY")
	}
	check(t, c)
	filters := value(t, c, "BF.INFO", "r", "FILTERS")
	crashDir := kjCopyDir(t, dir)
	s.Stop()
	crashed := testserver.Start(t, append(opts, testserver.Dir(crashDir))...)
	check(t, crashed.Client(t))
	expect(t, crashed.Client(t), filters, "BF.INFO", "r", "FILTERS")
	crashed.Stop()

	again := testserver.Start(t, append(opts, testserver.Dir(dir), testserver.Config(func(c *config.Config) {
		c.Persistence.SnapshotOnShutdown = true
	}))...)
	check(t, again.Client(t))
	again.Stop()
	if snaps, _ := filepath.Glob(filepath.Join(dir, "*.snap")); len(snaps) == 0 {
		t.Fatal("no snapshot was written at shutdown")
	}
	last := testserver.Start(t, append(opts, testserver.Dir(dir))...)
	check(t, last.Client(t))
	expect(t, last.Client(t), filters, "BF.INFO", "r", "FILTERS")
}

// TestBloomScanType checks SCAN TYPE matches the module-style type name
// whatever its case, as Redis compares type names.
func TestBloomScanType(t *testing.T) {
	c := testserver.Start(t).Client(t)
	expect(t, c, true, "BF.ADD", "bf", "x")
	expect(t, c, int64(1), "SADD", "st", "x")
	expect(t, c, int64(1), "ZADD", "zs", 1, "x")
	for typ, key := range map[string]string{"MBbloom--": "bf", "mbbloom--": "bf", "set": "st", "ZSET": "zs"} {
		expect(t, c, []interface{}{"0", []interface{}{key}}, "SCAN", 0, "TYPE", typ, "COUNT", 100)
	}
}

// bfField is BF.INFO's answer for one field as go-redis returns it over
// RESP3: a one-entry map under the field's name.
func bfField(name string, v interface{}) map[interface{}]interface{} {
	return map[interface{}]interface{}{name: v}
}

// TestBloomReplyShapes pins each BF.* reply to the shape RedisBloom gives:
// the wire bytes through a raw connection, and go-redis's typed commands,
// which parse those shapes and fail on any other. BF.INFO with one field
// is a one-element array in RESP2 (RedisBloom's BFInfo_RedisCommand and
// its documented example) and a one-entry map in RESP3; the answers of
// BF.ADD, BF.MADD, BF.INSERT, BF.EXISTS and BF.MEXISTS are integers in
// RESP2 and booleans in RESP3; BF.EXISTS and BF.MEXISTS answer 0 for a
// key of another type, and an unknown BF.INFO field is an error without a
// code.
func TestBloomReplyShapes(t *testing.T) {
	s := testserver.Start(t)
	rc := dialRaw(t, s.Addr())
	rc.expect("+OK\r\n", "BF.RESERVE", "shape", "0.01", "1000")
	rc.expect(":1\r\n", "BF.ADD", "shape", "a")
	rc.expect(":0\r\n", "BF.ADD", "shape", "a")
	rc.expect("*2\r\n:0\r\n:1\r\n", "BF.MADD", "shape", "a", "b")
	rc.expect("*2\r\n:1\r\n:1\r\n", "BF.INSERT", "shape", "ITEMS", "c", "d")
	rc.expect(":1\r\n", "BF.EXISTS", "shape", "a")
	rc.expect("*3\r\n:1\r\n:0\r\n:1\r\n", "BF.MEXISTS", "shape", "b", "zz", "c")
	rc.expect(":4\r\n", "BF.CARD", "shape")
	rc.expect("*1\r\n:1000\r\n", "BF.INFO", "shape", "CAPACITY")
	rc.expect("*1\r\n:4\r\n", "BF.INFO", "shape", "items")
	rc.expect("*1\r\n:1\r\n", "BF.INFO", "shape", "FILTERS")
	rc.expect("*1\r\n:2\r\n", "BF.INFO", "shape", "EXPANSION")
	size := rc.do("BF.INFO", "shape", "SIZE")
	if !strings.HasPrefix(size, "*1\r\n:") {
		t.Errorf("BF.INFO SIZE: %q, want a one-element array of an integer", size)
	}
	all := rc.do("BF.INFO", "shape")
	if !strings.HasPrefix(all, "*10\r\n+Capacity\r\n:1000\r\n+Size\r\n:") ||
		!strings.HasSuffix(all, "+Number of filters\r\n:1\r\n+Number of items inserted\r\n:4\r\n+Expansion rate\r\n:2\r\n") {
		t.Errorf("BF.INFO: %q", all)
	}
	rc.expect("-Invalid information value\r\n", "BF.INFO", "shape", "BOGUS")
	rc.expect("-ERR not found\r\n", "BF.INFO", "missing")
	rc.expect("*1\r\n:1\r\n", "BF.INSERT", "ns", "CAPACITY", "1", "NONSCALING", "ITEMS", "x")
	rc.expect("*1\r\n$-1\r\n", "BF.INFO", "ns", "EXPANSION")
	rc.expect("*2\r\n:0\r\n-ERR non scaling filter is full\r\n", "BF.INSERT", "ns", "ITEMS", "x", "y", "z")
	rc.expect("+OK\r\n", "SET", "str", "v")
	rc.expect(":0\r\n", "BF.EXISTS", "str", "a")
	rc.expect("*2\r\n:0\r\n:0\r\n", "BF.MEXISTS", "str", "a", "b")
	rc.expect(":0\r\n", "BF.EXISTS", "missing", "a")
	rc.expect("-"+errWrongType+"\r\n", "BF.CARD", "str")
	rc.expect("-"+errWrongType+"\r\n", "BF.INFO", "str", "CAPACITY")

	// RESP3: booleans, and one BF.INFO field as a one-entry map.
	r3 := dialRaw(t, s.Addr())
	if hello := r3.do("HELLO", "3"); !strings.HasPrefix(hello, "%") {
		t.Fatalf("HELLO 3: %q", hello)
	}
	r3.expect("#t\r\n", "BF.ADD", "shape", "e")
	r3.expect("#f\r\n", "BF.ADD", "shape", "e")
	r3.expect("*2\r\n#f\r\n#t\r\n", "BF.MADD", "shape", "e", "f")
	r3.expect("*1\r\n#t\r\n", "BF.INSERT", "shape", "ITEMS", "g")
	r3.expect("#t\r\n", "BF.EXISTS", "shape", "g")
	r3.expect("#f\r\n", "BF.EXISTS", "str", "g")
	r3.expect("*2\r\n#t\r\n#f\r\n", "BF.MEXISTS", "shape", "a", "zz")
	r3.expect(":7\r\n", "BF.CARD", "shape")
	r3.expect("%1\r\n+Capacity\r\n:1000\r\n", "BF.INFO", "shape", "CAPACITY")
	r3.expect("%1\r\n+Number of items inserted\r\n:7\r\n", "BF.INFO", "shape", "ITEMS")
	r3.expect("%1\r\n+Number of filters\r\n:1\r\n", "BF.INFO", "shape", "FILTERS")
	r3.expect("%1\r\n+Expansion rate\r\n:2\r\n", "BF.INFO", "shape", "EXPANSION")
	r3.expect("%1\r\n+Expansion rate\r\n_\r\n", "BF.INFO", "ns", "EXPANSION")
	if size := r3.do("BF.INFO", "shape", "SIZE"); !strings.HasPrefix(size, "%1\r\n+Size\r\n:") {
		t.Errorf("BF.INFO SIZE over RESP3: %q, want a one-entry map", size)
	}
	if all := r3.do("BF.INFO", "shape"); !strings.HasPrefix(all, "%5\r\n+Capacity\r\n:1000\r\n+Size\r\n:") {
		t.Errorf("BF.INFO over RESP3: %q", all)
	}
	r3.expect("*2\r\n#f\r\n-ERR non scaling filter is full\r\n", "BF.INSERT", "ns", "ITEMS", "x", "y")

	// go-redis's typed commands over both protocols.
	for _, proto := range []int{2, 3} {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: proto, MaxRetries: -1, DisableIdentity: true})
		defer c.Close()
		check := func(name string, cmd *redis.BFInfoCmd, want redis.BFInfo) {
			t.Helper()
			got, err := cmd.Result()
			if err != nil || got != want {
				t.Errorf("RESP%d %s: %+v, %v; want %+v", proto, name, got, err, want)
			}
		}
		check("BFInfoCapacity", c.BFInfoCapacity(ctxT(t), "shape"), redis.BFInfo{Capacity: 1000})
		items := int64(5 + proto) // one more item added by each protocol's round below
		check("BFInfoItems", c.BFInfoItems(ctxT(t), "shape"), redis.BFInfo{ItemsInserted: items})
		check("BFInfoFilters", c.BFInfoFilters(ctxT(t), "shape"), redis.BFInfo{Filters: 1})
		check("BFInfoExpansion", c.BFInfoExpansion(ctxT(t), "shape"), redis.BFInfo{ExpansionRate: 2})
		full, err := c.BFInfo(ctxT(t), "shape").Result()
		if err != nil || full.Capacity != 1000 || full.ItemsInserted != items || full.Filters != 1 || full.ExpansionRate != 2 || full.Size <= 0 {
			t.Errorf("RESP%d BFInfo: %+v, %v", proto, full, err)
		}
		if got, err := c.BFMExists(ctxT(t), "str", "a").Result(); err != nil || len(got) != 1 || got[0] {
			t.Errorf("RESP%d BFMExists on a string key: %v, %v; want [false]", proto, got, err)
		}
		if got, err := c.BFExists(ctxT(t), "shape", "a").Result(); err != nil || !got {
			t.Errorf("RESP%d BFExists: %v, %v; want true", proto, got, err)
		}
		if got, err := c.BFMAdd(ctxT(t), "shape", "a", "h"+strconv.Itoa(proto)).Result(); err != nil || len(got) != 2 || got[0] || !got[1] {
			t.Errorf("RESP%d BFMAdd: %v, %v; want [false true]", proto, got, err)
		}
		if got, err := c.BFCard(ctxT(t), "shape").Result(); err != nil || got != items+1 {
			t.Errorf("RESP%d BFCard: %d, %v", proto, got, err)
		}
	}
}
