package geo

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Reference values were produced by redis-server 7.0.15 (GEOADD, then
// ZSCORE, GEOPOS, GEOHASH and GEODIST).
var refPoints = []struct {
	name     string
	lon, lat float64
	score    uint64
	pos      [2]string
	hash     string
}{
	{"Palermo", 13.361389, 38.115556, 3479099956230698, [2]string{"13.36138933897018433", "38.11555639549629859"}, "sqc8b49rny0"},
	{"Catania", 15.087269, 37.502669, 3479447370796909, [2]string{"15.08726745843887329", "37.50266842333162032"}, "sqdtr74hyu0"},
	{"sw", -180, -85.05112878, 0, [2]string{"-179.99999731779098511", "-85.05112751263942528"}, "00bh0hbj200"},
	{"ne", 180, 85.05112878, 13510798882111488, [2]string{"180", "85.0511287799999991"}, "bp05b5048p0"},
	{"zero", 0, 0, 3377699720527872, [2]string{"0.00000268220901489", "0.00000126736058093"}, "s0000000000"},
}

func TestScoresMatchRedis(t *testing.T) {
	for _, p := range refPoints {
		s, ok := Score(p.lon, p.lat)
		if !ok || s != p.score {
			t.Errorf("%s: score %d %v, want %d", p.name, s, ok, p.score)
		}
		lon, lat, ok := DecodeScore(float64(p.score))
		if p.score == 0 {
			// Score 0 at step 26 is still a cell (the step is not 0).
			if !ok {
				t.Errorf("%s: score 0 does not decode", p.name)
			}
		}
		if got := [2]string{string(AppendCoord(nil, lon)), string(AppendCoord(nil, lat))}; got != p.pos {
			t.Errorf("%s: position %v, want %v", p.name, got, p.pos)
		}
		h, ok := AppendString(nil, float64(p.score))
		if !ok || string(h) != p.hash {
			t.Errorf("%s: geohash %q, want %q", p.name, h, p.hash)
		}
	}
}

func TestDistanceMatchesRedis(t *testing.T) {
	pos := func(i int) (float64, float64) {
		lon, lat, _ := DecodeScore(float64(refPoints[i].score))
		return lon, lat
	}
	lon1, lat1 := pos(0)
	lon2, lat2 := pos(1)
	d := Distance(lon1, lat1, lon2, lat2)
	for _, c := range []struct {
		conv float64
		want string
	}{{1, "166274.1516"}, {1000, "166.2742"}} {
		if got := string(AppendDistance(nil, d/c.conv)); got != c.want {
			t.Errorf("distance/%v = %s, want %s", c.conv, got, c.want)
		}
	}
	lon1, lat1 = pos(2)
	lon2, lat2 = pos(3)
	if got := string(AppendDistance(nil, Distance(lon1, lat1, lon2, lat2)/1609.34)); got != "11756.2756" {
		t.Errorf("sw-ne in miles = %s", got)
	}
	// Same meridian: the latitude shortcut.
	if got, want := Distance(10, 1, 10, 2), LatDistance(1, 2); got != want {
		t.Errorf("meridian distance %v, want %v", got, want)
	}
}

func TestEncodeRejectsOutOfRange(t *testing.T) {
	for _, p := range [][2]float64{{180.0001, 0}, {-180.0001, 0}, {0, 85.06}, {0, -85.06}, {math.Inf(1), 0}} {
		if _, ok := Score(p[0], p[1]); ok {
			t.Errorf("%v encoded", p)
		}
	}
	if _, ok := Encode(LonRange, LatRange, 0, 0, 0); ok {
		t.Error("step 0 encoded")
	}
	if _, ok := Encode(LonRange, LatRange, 0, 0, 33); ok {
		t.Error("step 33 encoded")
	}
}

func TestAppendDistance(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.0000"}, {math.Copysign(0, -1), "0.0000"}, {0.00004, "0.0000"}, {0.00005, "0.0000"},
		{0.00015, "0.0001"}, {0.00025, "0.0002"}, {0.0005, "0.0005"}, {1.5, "1.5000"}, {12345.67891, "12345.6789"},
		{-2.25, "-2.2500"}, {-0.0001, "-0.0001"},
	} {
		if got := string(AppendDistance(nil, c.d)); got != c.want {
			t.Errorf("AppendDistance(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}

func TestAppendCoord(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {-1e-20, "0"}, {1.5, "1.5"}, {180, "180"},
		{0.1, "0.10000000000000001"}, {-12.25, "-12.25"}, {math.Inf(-1), "-inf"},
	} {
		if got := string(AppendCoord(nil, c.f)); got != c.want {
			t.Errorf("AppendCoord(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

func TestScoreBitsCastsLikeC(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want uint64
	}{
		{1, 1}, {-1, math.MaxUint64}, {0x1p63, 1 << 63}, {0x1p63 + 0x1p11, 1<<63 | 1<<11},
		{0x1p64, 0}, {math.Inf(1), 0}, {math.Inf(-1), 1 << 63}, {-0x1p64, 1 << 63},
	} {
		if got := scoreBits(c.s); got != c.want {
			t.Errorf("scoreBits(%v) = %#x, want %#x", c.s, got, c.want)
		}
	}
}

func TestNeighbors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		step := uint8(1 + rng.IntN(26))
		h, ok := Encode(LonRange, LatRange, -180+rng.Float64()*360, LatMin+rng.Float64()*(LatMax-LatMin)*0.999, step)
		if !ok {
			t.Fatal("encode failed")
		}
		nb := NeighborsOf(h)
		if moveLon(nb.East, -1) != h || moveLon(nb.West, 1) != h || moveLat(nb.North, -1) != h || moveLat(nb.South, 1) != h {
			t.Fatalf("step %d: moves do not undo each other", step)
		}
		a, _ := Decode(LonRange, LatRange, h)
		e, _ := Decode(LonRange, LatRange, nb.East)
		n, _ := Decode(LonRange, LatRange, nb.North)
		if a.Lon.Max < LonMax && e.Lon.Min != a.Lon.Max {
			t.Fatalf("step %d: east cell starts at %v, cell ends at %v", step, e.Lon.Min, a.Lon.Max)
		}
		if a.Lat.Max < LatMax && n.Lat.Min != a.Lat.Max {
			t.Fatalf("step %d: north cell starts at %v, cell ends at %v", step, n.Lat.Min, a.Lat.Max)
		}
	}
}

// TestCoverFindsNearbyPoints checks the property searches rely on: away
// from the poles, every point inside the shape has its score inside one
// of the cells scanned.
func TestCoverFindsNearbyPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for i := 0; i < 300; i++ {
		s := Shape{Lon: -180 + rng.Float64()*360, Lat: -70 + rng.Float64()*140, Conversion: 1000}
		if i%2 == 0 {
			s.Radius = 1 + rng.Float64()*500
		} else {
			s.Box, s.Width, s.Height = true, 1+rng.Float64()*800, 1+rng.Float64()*800
		}
		sr := Cover(&s)
		cells := sr.Cells(nil)
		for j := 0; j < 200; j++ {
			lon := s.Lon + (rng.Float64()*2-1)*10
			lat := s.Lat + (rng.Float64()*2-1)*10
			score, ok := Score(lon, lat)
			if !ok {
				continue
			}
			plon, plat, _ := DecodeScore(float64(score))
			if _, in := s.Contains(plon, plat); !in {
				continue
			}
			checked++
			found := false
			for _, c := range cells {
				if score >= c.Min && score < c.Max {
					found = true
				}
			}
			if !found {
				t.Fatalf("shape %+v: point %v,%v (score %d) in no cell", s, plon, plat, score)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d points checked", checked)
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		r, lat float64
		want   uint8
	}{{0, 0, 26}, {1, 0, 24}, {1000, 0, 14}, {5000000, 0, 2}, {30000000, 0, 1}, {1000, 70, 13}, {1000, -85, 12}, {math.Inf(1), 0, 1}} {
		if got := EstimateSteps(c.r, c.lat); got != c.want {
			t.Errorf("EstimateSteps(%v, %v) = %d, want %d", c.r, c.lat, got, c.want)
		}
	}
}

func FuzzScoreRoundTrip(f *testing.F) {
	f.Add(13.361389, 38.115556)
	f.Add(-180.0, -85.05112878)
	f.Add(180.0, 85.05112878)
	f.Add(0.0, 0.0)
	f.Fuzz(func(t *testing.T, lon, lat float64) {
		score, ok := Score(lon, lat)
		inRange := lon >= LonMin && lon <= LonMax && lat >= LatMin && lat <= LatMax
		if ok != inRange {
			t.Fatalf("Score(%v, %v) ok=%v", lon, lat, ok)
		}
		if !ok {
			return
		}
		if score >= 1<<54 {
			t.Fatalf("score %d beyond 54 bits", score)
		}
		dlon, dlat, ok := DecodeScore(float64(score))
		if !ok {
			t.Fatal("stored score does not decode")
		}
		// The centre of the cell is within one cell of the point (a point
		// on an upper limit has a score past 2^53 that a double rounds).
		if score < 1<<52 && (math.Abs(dlon-lon) > 360.0/(1<<26) || math.Abs(dlat-lat) > (LatMax-LatMin)/(1<<26)) {
			t.Fatalf("(%v, %v) decodes to (%v, %v)", lon, lat, dlon, dlat)
		}
		// Encoding the centre again gives the same cell, except at the
		// upper limits (whose own cell lies beyond the range).
		if lat < LatMax && lon < LonMax {
			if again, _ := Score(dlon, dlat); again != score {
				t.Fatalf("(%v, %v): score %d, centre encodes to %d", lon, lat, score, again)
			}
		}
		h, _ := AppendString(nil, float64(score))
		if len(h) != 11 {
			t.Fatalf("geohash %q", h)
		}
		d := Distance(lon, lat, dlon, dlat)
		if math.IsNaN(d) || d < 0 || d > 10 {
			t.Fatalf("distance to own cell centre %v", d)
		}
		if got, err := strconv.ParseFloat(string(AppendDistance(nil, d)), 64); err != nil || math.Abs(got-d) > 0.00005+1e-12 {
			t.Fatalf("AppendDistance(%v) reads back %v (%v)", d, got, err)
		}
	})
}

// TestWithinAgreesWithContains checks the fast membership test against
// the exact one, on random points and on points exactly at the edge.
func TestWithinAgreesWithContains(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		s := Shape{Lon: -180 + rng.Float64()*360, Lat: -80 + rng.Float64()*160, Conversion: []float64{1, 1000, 0.3048, 1609.34}[i%4]}
		lon := max(-180, min(180, s.Lon+(rng.Float64()*2-1)*3))
		lat := max(LatMin, min(LatMax, s.Lat+(rng.Float64()*2-1)*3))
		switch i % 3 {
		case 0:
			s.Radius = rng.Float64() * 300000 / s.Conversion
		case 1:
			// On the edge: the radius is the point's exact distance.
			s.Radius = Distance(s.Lon, s.Lat, lon, lat) / s.Conversion
		default:
			s.Box, s.Width, s.Height = true, rng.Float64()*600000/s.Conversion, rng.Float64()*600000/s.Conversion
			if i%2 == 0 {
				s.Width = 2 * Distance(lon, lat, s.Lon, lat) / s.Conversion
			}
		}
		_, want := s.Contains(lon, lat)
		if got := s.Within(lon, lat); got != want {
			t.Fatalf("shape %+v, point %v,%v: Within %v, Contains %v", s, lon, lat, got, want)
		}
	}
}

func TestAppendDistancePadsFourDecimals(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{{0, "0.0000"}, {0.0012, "0.0012"}, {0.00005, "0.0000"}, {0.1, "0.1000"}, {1.23456, "1.2346"}, {12345.6789, "12345.6789"}, {-0.0012, "-0.0012"}} {
		if got := string(AppendDistance([]byte("x"), c.d)); got != "x"+c.want {
			t.Errorf("AppendDistance(%v) = %q, want %q", c.d, got, "x"+c.want)
		}
	}
}

// TestWithinScoreAgreesWithExactTest checks the shortcuts of a circle
// search (the longitude reach, the cached cosine, the fast distance)
// against the exact test, with centres near the poles and the
// antimeridian and points near the circle's edge.
func TestWithinScoreAgreesWithExactTest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for range 400 {
		s := Shape{Lon: -180 + r.Float64()*360, Lat: -85 + r.Float64()*170, Radius: 1 + r.Float64()*3e6, Conversion: 1}
		switch r.IntN(4) {
		case 0:
			s.Lat = 84 + r.Float64()
		case 1:
			s.Lon = 179.9 + r.Float64()*0.1
		}
		if r.IntN(3) == 0 {
			s.Radius = 1 + r.Float64()*2000
		}
		sc := s
		for range 500 {
			// Points around the centre, many near the edge.
			theta := s.Radius / EarthRadius * (0.9 + r.Float64()*0.2)
			if r.IntN(2) == 0 {
				theta = s.Radius / EarthRadius * (0.999 + r.Float64()*0.002)
			}
			bearing := r.Float64() * 2 * math.Pi
			lat1, lon1 := degRad(s.Lat), degRad(s.Lon)
			lat2 := math.Asin(math.Sin(lat1)*math.Cos(theta) + math.Cos(lat1)*math.Sin(theta)*math.Cos(bearing))
			lon2 := lon1 + math.Atan2(math.Sin(bearing)*math.Sin(theta)*math.Cos(lat1), math.Cos(theta)-math.Sin(lat1)*math.Sin(lat2))
			lon, lat := math.Remainder(radDeg(lon2), 360), radDeg(lat2)
			if lat > LatMax || lat < LatMin {
				continue
			}
			score, ok := Score(lon, lat)
			if !ok {
				continue
			}
			_, _, approx, hav, in := sc.WithinScore(float64(score))
			plon, plat, _ := DecodeScore(float64(score))
			_, want := s.Contains(plon, plat)
			if in != want {
				t.Fatalf("shape %+v, point (%v, %v): WithinScore %v, exact test %v", s, plon, plat, in, want)
			}
			exact := Distance(s.Lon, s.Lat, plon, plat)
			if in && !math.IsNaN(approx) && math.Abs(approx-exact) > DistanceMargin(approx) {
				t.Fatalf("approximate distance %v, exact %v", approx, exact)
			}
			if !math.IsNaN(hav) {
				if d := HavDistance(hav); math.Abs(d-exact) > DistanceMargin(d) {
					t.Fatalf("distance from the haversine term %v, exact %v", d, exact)
				}
				if !math.IsNaN(approx) && HavDistance(hav) != approx {
					t.Fatalf("distance from the haversine term %v, fast distance %v", HavDistance(hav), approx)
				}
				if d := DistanceHav(exact); math.Abs(d-hav) > hav*1e-12 {
					t.Fatalf("haversine term %v, of the exact distance %v", hav, d)
				}
			}
			if in && math.IsNaN(approx) && math.IsNaN(hav) {
				t.Fatalf("point (%v, %v) taken with neither a distance nor a haversine term", plon, plat)
			}
			checked++
		}
	}
	if checked < 100000 {
		t.Fatalf("only %d points checked", checked)
	}
}
