package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/types/geo"
)

// TestGeoSortByDistanceMatchesStableSort checks the COUNT path of the
// distance sort (narrowing by haversine term, selection, re-ordering of
// near ties by exact distance) against a stable sort of every point by its
// exact distance: the first want points must be the same, in the same
// order. The points are drawn around the centre with many at one place or
// at the same distance (ties, which collection order breaks), and centres
// include the poles' and the antimeridian's neighbourhoods.
func TestGeoSortByDistanceMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	sh := &keyspace.Shard{}
	narrowed := 0
	for round := range 600 {
		lon, lat := -180+rng.Float64()*360, -85+rng.Float64()*170
		switch round % 5 {
		case 0:
			lat = 84 + rng.Float64()
		case 1:
			lon = 179.99 + rng.Float64()*0.01
		}
		radius := []float64{1, 50, 10000, 2e6}[rng.IntN(4)]
		shape := geo.Shape{Lon: lon, Lat: lat, Radius: radius, Conversion: 1}
		spread := radius / geo.EarthRadius * 180 / math.Pi * 1.5
		var points []geoPoint
		for range 20 + rng.IntN(400) {
			plon, plat := lon+(rng.Float64()*2-1)*spread, lat+(rng.Float64()*2-1)*spread
			if len(points) > 0 && rng.IntN(6) == 0 {
				// At the place of, or mirrored about the centre's meridian
				// from, an earlier point: equal distances.
				q := points[rng.IntN(len(points))]
				plon, plat = q.Lon, q.Lat
				if rng.IntN(2) == 0 {
					plon = 2*lon - q.Lon
				}
			}
			if plat < geo.LatMin || plat > geo.LatMax {
				continue
			}
			plon = math.Remainder(plon, 360)
			score, ok := geo.Score(plon, plat)
			if !ok {
				continue
			}
			if plon, plat, approx, hav, in := shape.WithinScore(float64(score)); in {
				points = append(points, geoPoint{Member: []byte(strconv.Itoa(len(points))), Lon: plon, Lat: plat, Dist: approx, Hav: hav, Score: float64(score)})
			}
		}
		if len(points) == 0 {
			continue
		}
		dir := []int{1, -1}[rng.IntN(2)]
		want := 1 + rng.IntN(min(len(points), 12))
		if want*4 < len(points) {
			narrowed++
		}
		type ref struct {
			dist float64
			idx  int
		}
		refs := make([]ref, len(points))
		for i, p := range points {
			refs[i] = ref{geo.Distance(lon, lat, p.Lon, p.Lat), i}
		}
		slices.SortStableFunc(refs, func(a, b ref) int { return cmpFloat(a.dist, b.dist) * dir })
		got := slices.Clone(points)
		shardGeoSortByDistance(sh, got, &shape, dir, want)
		for i := range want {
			if w := points[refs[i].idx]; string(got[i].Member) != string(w.Member) {
				t.Fatalf("round %d, centre (%v, %v), radius %v, dir %d, want %d of %d: place %d holds point %s at %v m, want point %s at %v m",
					round, lon, lat, radius, dir, want, len(points), i, got[i].Member, geo.Distance(lon, lat, got[i].Lon, got[i].Lat), w.Member, refs[i].dist)
			}
		}
	}
	if narrowed < 200 {
		t.Fatalf("only %d searches took the narrowing path", narrowed)
	}
}
