package integration_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// The geo family through go-redis on one shard and four shards, raw RESP2
// and RESP3 replies, restarts, and a side-by-side run against
// redis-server. Expected replies were taken from redis-server 7.0.15.

func TestGeoCommands(t *testing.T) {
	kjTopologies(t, func(t *testing.T, c cmdr) {
		expect(t, c, int64(4), "GEOADD", "{g}s", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania",
			12.758489, 38.788135, "edge1", 17.241510, 38.788135, "edge2")
		expect(t, c, "zset", "TYPE", "{g}s")
		expect(t, c, 3479099956230698.0, "ZSCORE", "{g}s", "Palermo")
		expect(t, c, int64(0), "GEOADD", "{g}s", 13.361389, 38.115556, "Palermo")
		expect(t, c, int64(1), "GEOADD", "{g}s", "CH", 13.361389, 38.2, "Palermo")
		expect(t, c, int64(0), "GEOADD", "{g}s", "NX", 13.361389, 38.115556, "Palermo")
		expect(t, c, int64(0), "GEOADD", "{g}s", "XX", 1, 1, "new")
		expect(t, c, int64(1), "GEOADD", "{g}s", "XX", "CH", 13.361389, 38.115556, "Palermo")
		expect(t, c, int64(0), "EXISTS", "{g}new")
		expect(t, c, int64(0), "GEOADD", "{g}x", "XX", 1, 1, "a")
		expect(t, c, int64(0), "EXISTS", "{g}x")

		// Positions, hashes, distances.
		expect(t, c, []interface{}{[]interface{}{13.36138933897018433, 38.11555639549629859}, nil}, "GEOPOS", "{g}s", "Palermo", "nope")
		expect(t, c, []interface{}{nil}, "GEOPOS", "{g}none", "a")
		expect(t, c, []interface{}{"sqc8b49rny0", "sqdtr74hyu0", nil}, "GEOHASH", "{g}s", "Palermo", "Catania", "nope")
		expect(t, c, []interface{}{}, "GEOHASH", "{g}s")
		expect(t, c, "166274.1516", "GEODIST", "{g}s", "Palermo", "Catania")
		expect(t, c, "166.2742", "GEODIST", "{g}s", "Palermo", "Catania", "KM")
		expect(t, c, "545518.8700", "GEODIST", "{g}s", "Palermo", "Catania", "ft")
		expect(t, c, "103.3182", "GEODIST", "{g}s", "Palermo", "Catania", "mi")
		expect(t, c, nil, "GEODIST", "{g}s", "Palermo", "nope")
		expect(t, c, nil, "GEODIST", "{g}none", "a", "b")

		// Searches.
		expect(t, c, []interface{}{
			[]interface{}{"Catania", "56.4413", int64(3479447370796909), []interface{}{15.08726745843887329, 37.50266842333162032}},
			[]interface{}{"Palermo", "190.4424", int64(3479099956230698), []interface{}{13.36138933897018433, 38.11555639549629859}},
		}, "GEOSEARCH", "{g}s", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH")
		expect(t, c, []interface{}{"Catania", "edge1"}, "GEOSEARCH", "{g}s", "FROMMEMBER", "Palermo", "BYBOX", 400, 400, "km", "DESC", "COUNT", 2)
		expect(t, c, []interface{}{[]interface{}{"Palermo", "190.4424"}, []interface{}{"Catania", "56.4413"}}, "GEORADIUS", "{g}s", 15, 37, 200, "km", "WITHDIST")
		expect(t, c, []interface{}{[]interface{}{"Palermo", "190.4424"}, []interface{}{"Catania", "56.4413"}}, "GEORADIUS_RO", "{g}s", 15, 37, 200, "km", "WITHDIST")
		expect(t, c, []interface{}{"Palermo", "edge1"}, "GEORADIUSBYMEMBER", "{g}s", "Palermo", 100, "km")
		expect(t, c, []interface{}{"Palermo", "edge1"}, "GEORADIUSBYMEMBER_RO", "{g}s", "Palermo", 100, "km")
		expect(t, c, []interface{}{"Palermo"}, "GEOSEARCH", "{g}s", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "COUNT", 1, "ANY")
		expect(t, c, []interface{}{"Catania"}, "GEOSEARCH", "{g}s", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "COUNT", 1)
		expect(t, c, []interface{}{}, "GEOSEARCH", "{g}s", "FROMLONLAT", 15, 37, "BYBOX", 1, 1, "m")
		expect(t, c, []interface{}{}, "GEOSEARCH", "{g}none", "FROMMEMBER", "x", "BYBOX", 1, 1, "m")
		expect(t, c, []interface{}{}, "GEORADIUSBYMEMBER", "{g}none", "nope", "x", "km")

		// STORE forms.
		expect(t, c, int64(2), "GEOSEARCHSTORE", "{g}d", "{g}s", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "STOREDIST")
		expect(t, c, pairs("Catania", 56.441257870158204, "Palermo", 190.44242984775784), "ZRANGE", "{g}d", 0, -1, "WITHSCORES")
		expect(t, c, int64(2), "GEORADIUS", "{g}s", 15, 37, 200, "km", "STORE", "{g}d2")
		expect(t, c, pairs("Palermo", 3479099956230698.0, "Catania", 3479447370796909.0), "ZRANGE", "{g}d2", 0, -1, "WITHSCORES")
		expect(t, c, int64(1), "GEORADIUSBYMEMBER", "{g}s", "Palermo", 1, "km", "STOREDIST", "{g}d3")
		expect(t, c, pairs("Palermo", 0.0), "ZRANGE", "{g}d3", 0, -1, "WITHSCORES")
		expect(t, c, int64(0), "GEOSEARCHSTORE", "{g}d3", "{g}s", "FROMLONLAT", 0, 0, "BYRADIUS", 1, "m")
		expect(t, c, int64(0), "EXISTS", "{g}d3")
		expect(t, c, "OK", "SET", "{g}d4", "v")
		expect(t, c, int64(0), "GEOSEARCHSTORE", "{g}d4", "{g}none", "FROMLONLAT", 0, 0, "BYRADIUS", 1, "m")
		expect(t, c, int64(0), "EXISTS", "{g}d4")

		// Errors.
		expect(t, c, "OK", "SET", "{g}str", "v")
		expectErr(t, c, errWrongType, "GEOADD", "{g}str", 1, 1, "a")
		expectErr(t, c, errWrongType, "GEOPOS", "{g}str", "a")
		expectErr(t, c, errWrongType, "GEOSEARCH", "{g}str", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km")
		for _, e := range geoErrorCases {
			expectErr(t, c, e.err, e.args...)
		}
	})
}

// geoErrorCases are calls Redis refuses, with its error texts.
var geoErrorCases = []struct {
	args []interface{}
	err  string
}{
	{[]interface{}{"GEOADD", "{g}s", 200, 1, "x"}, "ERR invalid longitude,latitude pair 200.000000,1.000000"},
	{[]interface{}{"GEOADD", "{g}s", "inf", 1, "x"}, "ERR invalid longitude,latitude pair inf,1.000000"},
	{[]interface{}{"GEOADD", "{g}s", 1, 85.06, "x"}, "ERR invalid longitude,latitude pair 1.000000,85.060000"},
	{[]interface{}{"GEOADD", "{g}s", "abc", 1, "x"}, errFloat},
	{[]interface{}{"GEOADD", "{g}s", "NX", "XX", 1, 1, "x"}, errSyntax},
	{[]interface{}{"GEOADD", "{g}s", "CH", 1, 1}, errSyntax},
	{[]interface{}{"GEOADD", "{g}s", "GT", 1, 1, "x"}, errSyntax},
	{[]interface{}{"GEOADD", "{g}s", 1, 1}, errArity("geoadd")},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1}, errArity("geosearch")},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km", "BYBOX", 1, 1, "km"}, errSyntax},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "FROMMEMBER", "Palermo", "BYRADIUS", 1, "km"}, errSyntax},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", -1, "km"}, "ERR radius cannot be negative"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "parsec"}, "ERR unsupported unit provided. please use M, KM, FT, MI"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", "x", "km"}, "ERR need numeric radius"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYBOX", "x", 1, "km"}, "ERR need numeric width"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYBOX", 1, "x", "km"}, "ERR need numeric height"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYBOX", -1, 1, "km"}, "ERR height or width cannot be negative"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMMEMBER", "nope", "BYRADIUS", 1, "km"}, "ERR could not decode requested zset member"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km", "ANY"}, "ERR the ANY argument requires COUNT argument"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km", "COUNT", 0}, "ERR COUNT must be > 0"},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km", "COUNT", "x"}, errNotInt},
	{[]interface{}{"GEOSEARCH", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km", "STORE", "{g}x"}, errSyntax},
	{[]interface{}{"GEOSEARCH", "{g}s", "BYRADIUS", 1, "km", "ASC", "WITHDIST"}, "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH"},
	{[]interface{}{"geosearch", "{g}s", "FROMLONLAT", 1, 1, "ASC", "WITHDIST"}, "ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch"},
	{[]interface{}{"GEOSEARCHSTORE", "{g}d", "{g}s", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km", "WITHDIST"}, "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"},
	{[]interface{}{"GEORADIUS", "{g}s", 1, 1, 1, "km", "STORE", "{g}x", "WITHCOORD"}, "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"},
	{[]interface{}{"GEORADIUS_RO", "{g}s", 1, 1, 1, "km", "STORE", "{g}x"}, errSyntax},
	{[]interface{}{"GEORADIUSBYMEMBER", "{g}s", "nope", 1, "km"}, "ERR could not decode requested zset member"},
	{[]interface{}{"GEORADIUS", "{g}s", 1, 100, 1, "km"}, "ERR invalid longitude,latitude pair 1.000000,100.000000"},
	{[]interface{}{"GEODIST", "{g}s", "a", "b", "c", "d"}, errSyntax},
	{[]interface{}{"GEODIST", "{g}s", "a", "b", "parsec"}, "ERR unsupported unit provided. please use M, KM, FT, MI"},
}

// TestGeoRawReplies checks reply shapes: coordinates are bulk strings in
// RESP2 and doubles in RESP3, distances bulk strings in both, a missing
// member's position a null array.
func TestGeoRawReplies(t *testing.T) {
	s := testserver.Start(t)
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			r := dialRaw(t, s.Addr())
			coord, nullArr, null := bulk, "*-1\r\n", "$-1\r\n"
			if proto == "3" {
				r.do("HELLO", "3")
				coord = func(v string) string { return "," + v + "\r\n" }
				nullArr, null = "_\r\n", "_\r\n"
			}
			k := "raw" + proto
			r.expect(":2\r\n", "GEOADD", k, "13.361389", "38.115556", "Palermo", "0", "0", "zero")
			pos := arr(coord("13.36138933897018433"), coord("38.11555639549629859"))
			r.expect(arr(pos, nullArr), "GEOPOS", k, "Palermo", "nope")
			r.expect(arr(arr(coord("0.00000268220901489"), coord("0.00000126736058093"))), "GEOPOS", k, "zero")
			r.expect(bulk("0.0000"), "GEODIST", k, "zero", "zero")
			r.expect(null, "GEODIST", k, "zero", "nope")
			r.expect(arr(bulk("s0000000000"), null), "GEOHASH", k, "zero", "nope")
			r.expect(arr(arr(bulk("zero"), bulk("0.0003"), ":3377699720527872\r\n", arr(coord("0.00000268220901489"), coord("0.00000126736058093")))),
				"GEOSEARCH", k, "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "WITHDIST", "WITHHASH", "WITHCOORD")
		})
	}
}

// TestGeoRestart checks GEOADD and the STORE forms survive a crash (WAL
// replay through the sorted set records) and a snapshot.
func TestGeoRestart(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(strconv.Itoa(shards)+"shards", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := []testserver.Option{testserver.Shards(shards), testserver.Fsync("always")}
			s := testserver.Start(t, append(opts, testserver.Dir(dir))...)
			c := s.UniversalClient(t)
			expect(t, c, int64(2), "GEOADD", "{r}s", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania")
			expect(t, c, int64(2), "GEOSEARCHSTORE", "{r}d", "{r}s", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "STOREDIST")
			expect(t, c, int64(1), "GEORADIUS", "{r}s", 15, 37, 100, "km", "STORE", "{r}d2")
			check := func(t *testing.T, c cmdr) {
				t.Helper()
				expect(t, c, "166274.1516", "GEODIST", "{r}s", "Palermo", "Catania")
				expect(t, c, pairs("Catania", 56.441257870158204, "Palermo", 190.44242984775784), "ZRANGE", "{r}d", 0, -1, "WITHSCORES")
				expect(t, c, pairs("Catania", 3479447370796909.0), "ZRANGE", "{r}d2", 0, -1, "WITHSCORES")
			}
			check(t, c)
			crashDir := kjCopyDir(t, dir)
			s.Stop()
			crashed := testserver.Start(t, append(opts, testserver.Dir(crashDir))...)
			check(t, crashed.UniversalClient(t))
			crashed.Stop()
			again := testserver.Start(t, append(opts, testserver.Dir(dir), testserver.Config(func(c *config.Config) {
				c.Persistence.SnapshotOnShutdown = true
			}))...)
			check(t, again.UniversalClient(t))
			again.Stop()
			if snaps, _ := filepath.Glob(filepath.Join(dir, "*.snap")); len(snaps) == 0 {
				t.Fatal("no snapshot was written at shutdown")
			}
			check(t, testserver.Start(t, append(opts, testserver.Dir(dir))...).UniversalClient(t))
		})
	}
}

// TestGeoCrossSlot checks STORE destinations obey the one-slot rule.
func TestGeoCrossSlot(t *testing.T) {
	s := testserver.Start(t, testserver.Shards(4))
	const crossSlot = "CROSSSLOT Keys in request don't hash to the same slot"
	for _, args := range [][]interface{}{
		{"GEORADIUS", "a", 1, 1, 1, "km", "STORE", "b"},
		{"GEORADIUSBYMEMBER", "a", "m", 1, "km", "STOREDIST", "b"},
		{"GEOSEARCHSTORE", "a", "b", "FROMLONLAT", 1, 1, "BYRADIUS", 1, "km"},
	} {
		got, err := s.ClientOf(t, 0).Do(ctxT(t), args...).Result()
		if err == nil || err.Error() != crossSlot {
			t.Errorf("%s: want CROSSSLOT, got %#v, %v", argv(args), got, err)
		}
	}
}

// TestGeoMatchesRedis runs the same random GEOADD calls and searches on
// redis-server (when installed) and on the server and compares every
// reply, unsorted result orders included. Distances stored in full by
// STOREDIST may differ in the last bits: the C library's sin, cos and asin
// are off by an ulp for about one argument in a thousand, where the
// server's are correctly rounded (types/geo/trig.go), and that can move
// the 17th digit; every other reply, including the 4-decimal distances,
// must be identical.
func TestGeoMatchesRedis(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	ref := startRedisServer(t, bin)
	c := testserver.Start(t).Client(t)
	rng := rand.New(rand.NewPCG(14, 9))
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	units := []string{"m", "km", "ft", "mi", "KM"}
	compare := func(args ...interface{}) {
		t.Helper()
		want, werr := ref.Do(ctxT(t), args...).Result()
		got, gerr := c.Do(ctxT(t), args...).Result()
		if fmt.Sprint(want, werr) != fmt.Sprint(got, gerr) {
			t.Fatalf("%s:\nredis-server %v (%v)\nruvio        %v (%v)", argv(args), want, werr, got, gerr)
		}
	}
	for _, e := range geoErrorCases {
		compare(e.args...)
	}
	steps := 0
	for round := 0; round < 12; round++ {
		for _, cl := range []*redis.Client{ref, c} {
			if err := cl.FlushAll(ctxT(t)).Err(); err != nil {
				t.Fatal(err)
			}
		}
		// Points clustered around a centre so searches find some; every
		// fourth round spreads them over the whole map, poles included.
		clon, clat := -180+rng.Float64()*360, -80+rng.Float64()*160
		spread := []float64{0.5, 5, 30, 400}[round%4]
		n := 50 + rng.IntN(300)
		for i := 0; i < n; i += 20 {
			args := []interface{}{"GEOADD", "g"}
			for j := i; j < min(i+20, n); j++ {
				// Coordinates are drawn again rather than clamped: points
				// at one place tie on distance, and which of them COUNT keeps
				// is the sort algorithm's choice.
				lon, lat := 999.0, 999.0
				for lon < -180 || lon > 180 {
					lon = clon + (rng.Float64()*2-1)*spread
				}
				for lat < -85.05112878 || lat > 85.05112878 {
					lat = clat + (rng.Float64()*2-1)*spread
				}
				args = append(args, f(lon), f(lat), "m"+strconv.Itoa(j))
			}
			compare(args...)
		}
		for i := 0; i < 60; i++ {
			var args []interface{}
			from := []interface{}{"FROMLONLAT", f(clon + (rng.Float64()*2-1)*spread), f(max(-85, min(85, clat+(rng.Float64()*2-1)*spread)))}
			if rng.IntN(3) == 0 {
				from = []interface{}{"FROMMEMBER", "m" + strconv.Itoa(rng.IntN(n+5))}
			}
			unit := units[rng.IntN(len(units))]
			size := func() string {
				return f(rng.Float64() * spread * 150 * 1000 / map[string]float64{"m": 1, "km": 1000, "KM": 1000, "ft": 0.3048, "mi": 1609.34}[unit])
			}
			var by []interface{}
			if rng.IntN(2) == 0 {
				by = []interface{}{"BYRADIUS", size(), unit}
			} else {
				by = []interface{}{"BYBOX", size(), size(), unit}
			}
			var opts []interface{}
			for _, o := range []string{"WITHDIST", "WITHCOORD", "WITHHASH", "ASC", "DESC"} {
				if rng.IntN(3) == 0 {
					opts = append(opts, o)
				}
			}
			if rng.IntN(3) == 0 {
				opts = append(opts, "COUNT", 1+rng.IntN(10))
				if rng.IntN(2) == 0 {
					opts = append(opts, "ANY")
				}
			}
			switch rng.IntN(5) {
			case 0, 1:
				args = append(append(append([]interface{}{"GEOSEARCH", "g"}, from...), by...), opts...)
			case 2:
				args = append(append([]interface{}{"GEORADIUS", "g", from[len(from)-2], from[len(from)-1]}, by[len(by)-2:]...), opts...)
				if from[0] == "FROMMEMBER" {
					args = append(append([]interface{}{"GEORADIUSBYMEMBER", "g", from[1]}, by[len(by)-2:]...), opts...)
				}
			case 3:
				var plain []interface{}
				for _, o := range opts {
					if s, ok := o.(string); !ok || (s != "WITHDIST" && s != "WITHCOORD" && s != "WITHHASH") {
						plain = append(plain, o)
					}
				}
				args = append(append(append([]interface{}{"GEOSEARCHSTORE", "dst", "g"}, from...), by...), plain...)
				if rng.IntN(2) == 0 {
					args = append(args, "STOREDIST")
				}
				compare(args...)
				compareScores(t, ref, c, "dst")
				args = []interface{}{"ZRANGE", "dst", 0, -1}
			default:
				a, b := "m"+strconv.Itoa(rng.IntN(n+2)), "m"+strconv.Itoa(rng.IntN(n+2))
				compare("GEODIST", "g", a, b, unit)
				compare("GEOHASH", "g", a, b)
				args = []interface{}{"GEOPOS", "g", a, b}
			}
			compare(args...)
			steps++
		}
	}
	if steps != 720 {
		t.Fatalf("ran %d steps", steps)
	}
}

// compareScores checks key holds the same members in the same order on
// both servers with scores equal to within a relative 1e-13 (an ulp of
// difference in sin can grow by a few ulps through the haversine).
func compareScores(t *testing.T, ref, c *redis.Client, key string) {
	t.Helper()
	want, werr := ref.ZRangeWithScores(ctxT(t), key, 0, -1).Result()
	got, gerr := c.ZRangeWithScores(ctxT(t), key, 0, -1).Result()
	if werr != nil || gerr != nil || len(want) != len(got) {
		t.Fatalf("ZRANGE %s: redis-server %v (%v), ruvio %v (%v)", key, want, werr, got, gerr)
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Member != g.Member || math.Abs(w.Score-g.Score) > 1e-13*math.Max(1, math.Abs(w.Score)) {
			t.Fatalf("ZRANGE %s [%d]: redis-server %v, ruvio %v\n%v\n%v", key, i, w, g, want, got)
		}
	}
}
