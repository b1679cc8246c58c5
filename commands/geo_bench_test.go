package commands

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkGeoSearch runs GEOSEARCH BYRADIUS 10 km over 1M members spread
// over 20 by 20 degrees (about a hundred results), as bench/geo.sh does
// against a server; it is here for profiles, not for claims.
func BenchmarkGeoSearch(b *testing.B) {
	sh := newTestServer(b, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000000; i += 100 {
		args := []string{"GEOADD", "geo"}
		for j := i; j < i+100; j++ {
			args = append(args, strconv.FormatFloat(rng.Float64()*20, 'f', 6, 64), strconv.FormatFloat(40+rng.Float64()*20, 'f', 6, 64), "m:"+strconv.Itoa(j))
		}
		execArgv(sh, toArgv(args...))
	}
	for _, c := range []struct{ name, cmd string }{
		{"radius", "GEOSEARCH geo FROMLONLAT 10 50 BYRADIUS 10 km"},
		{"radius_asc", "GEOSEARCH geo FROMLONLAT 10 50 BYRADIUS 10 km WITHDIST ASC COUNT 10"},
	} {
		argv := toArgv(splitFields(c.cmd)...)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				execArgv(sh, argv)
			}
		})
	}
}

func splitFields(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return out
}
