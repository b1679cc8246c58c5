// Package geo is the geohash arithmetic behind the GEO commands: points
// on the WGS-84 sphere stored as sorted-set scores, and the search areas
// that cover a circle or a box around a point.
//
// A position is a 52-bit interleaved geohash: longitude and latitude are
// each scaled to a 26-bit integer over their range (longitude -180..180,
// latitude -85.05112878..85.05112878, the limits of the Web Mercator
// projection), and the bits are interleaved with latitude in the even
// positions and longitude in the odd ones. The integer, below 2^53, is
// stored exactly as a float64 score, so members near each other on the
// map sit near each other in the sorted set, and a geohash cell of any
// precision is one contiguous score range.
//
// A search (Search) picks a cell precision from the radius, takes the
// cell holding the centre and its eight neighbours, drops the neighbours
// the shape cannot reach, and scans the score range of each remaining
// cell, keeping the points inside the shape (Shape.Contains). The order
// of the cells, the precision rule and every floating-point step follow
// Redis 7.0 exactly, so replies (distances printed to 4 decimals,
// coordinates to 17) and the order of unsorted results are the same.
//
// Floating-point expressions are written so that no fused multiply-add
// can change a result (an explicit float64 conversion forbids fusion).
package geo

import (
	"math"
	"strconv"
)

// Limits of the coordinates a geohash score can hold.
const (
	LonMin = -180.0
	LonMax = 180.0
	LatMin = -85.05112878
	LatMax = 85.05112878
	// StepMax is the precision of a stored score: 26 bits per axis.
	StepMax = 26
)

// EarthRadius is the radius in metres distances are computed with (the
// quadratic mean radius of WGS-84, as Redis uses).
const EarthRadius = 6372797.560856

// mercatorMax is the half width of the projected world in metres, used to
// pick a search precision.
const mercatorMax = 20037726.37

// degToRad is pi/180 rounded as a double division (not as Go's exact
// constant arithmetic would round it), so angles convert bit for bit as
// in Redis.
var degToRad = func() float64 {
	pi := math.Pi
	return pi / 180.0
}()

func degRad(d float64) float64 { return float64(d * degToRad) }
func radDeg(r float64) float64 { return r / degToRad }

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

// WGS84 ranges of a stored score, and the standard ranges of a textual
// geohash (GEOHASH).
var (
	LonRange         = Range{LonMin, LonMax}
	LatRange         = Range{LatMin, LatMax}
	StandardLatRange = Range{-90, 90}
)

// Hash is a geohash of Step bits per axis (Bits holds 2*Step bits). The
// zero Hash (no bits, step 0) means "no cell".
type Hash struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether h is the zero Hash.
func (h Hash) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Area is the cell of a hash: its longitude and latitude intervals.
type Area struct {
	Hash     Hash
	Lon, Lat Range
}

// spread moves the low 32 bits of v to the even bit positions.
func spread(v uint64) uint64 {
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	v = (v | v<<8) & 0x00FF00FF00FF00FF
	v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}

// squash gathers the even bits of v into the low 32 bits.
func squash(v uint64) uint64 {
	v &= 0x5555555555555555
	v = (v | v>>1) & 0x3333333333333333
	v = (v | v>>2) & 0x0F0F0F0F0F0F0F0F
	v = (v | v>>4) & 0x00FF00FF00FF00FF
	v = (v | v>>8) & 0x0000FFFF0000FFFF
	v = (v | v>>16) & 0x00000000FFFFFFFF
	return v
}

// interleave puts the bits of lat in the even positions and those of lon
// in the odd ones.
func interleave(lat, lon uint32) uint64 { return spread(uint64(lat)) | spread(uint64(lon))<<1 }

// deinterleave splits bits into the latitude (even) and longitude (odd)
// parts.
func deinterleave(bits uint64) (lat, lon uint32) {
	return uint32(squash(bits)), uint32(squash(bits >> 1))
}

// Encode returns the hash of step bits per axis of (lon, lat) over the
// given ranges; ok is false for a point outside them or outside the WGS84
// limits, or a step outside 1..32.
func Encode(lonR, latR Range, lon, lat float64, step uint8) (Hash, bool) {
	if step > 32 || step == 0 || latR.Min == 0 && latR.Max == 0 || lonR.Min == 0 && lonR.Max == 0 {
		return Hash{}, false
	}
	if lon > LonMax || lon < LonMin || lat > LatMax || lat < LatMin {
		return Hash{}, false
	}
	if lat < latR.Min || lat > latR.Max || lon < lonR.Min || lon > lonR.Max {
		return Hash{Step: step}, false
	}
	latOff := (lat - latR.Min) / (latR.Max - latR.Min)
	lonOff := (lon - lonR.Min) / (lonR.Max - lonR.Min)
	scale := float64(uint64(1) << step)
	latOff *= scale
	lonOff *= scale
	return Hash{Bits: interleave(uint32(latOff), uint32(lonOff)), Step: step}, true
}

// Decode returns the cell of h over the given ranges; ok is false for the
// zero Hash.
func Decode(lonR, latR Range, h Hash) (Area, bool) {
	if h.IsZero() || latR.Min == 0 && latR.Max == 0 || lonR.Min == 0 && lonR.Max == 0 {
		return Area{}, false
	}
	ilat, ilon := deinterleave(h.Bits)
	latScale := latR.Max - latR.Min
	lonScale := lonR.Max - lonR.Min
	// Dividing by 2^step is multiplying by its exact reciprocal: the same
	// results bit for bit, without four divisions per point of a search.
	inv := math.Float64frombits(uint64(1023-int(h.Step)) << 52) // 2^-step, step <= 32
	a := Area{Hash: h}
	a.Lat.Min = latR.Min + float64(float64(float64(ilat)*inv)*latScale)
	a.Lat.Max = latR.Min + float64(float64(float64(ilat+1)*inv)*latScale) // uint32 arithmetic, as in C
	a.Lon.Min = lonR.Min + float64(float64(float64(ilon)*inv)*lonScale)
	a.Lon.Max = lonR.Min + float64(float64(float64(ilon+1)*inv)*lonScale)
	return a, true
}

// Center returns the middle of the cell, clamped to the WGS84 limits.
func (a Area) Center() (lon, lat float64) {
	lon = (a.Lon.Min + a.Lon.Max) / 2
	lon = min(max(lon, LonMin), LonMax)
	lat = (a.Lat.Min + a.Lat.Max) / 2
	lat = min(max(lat, LatMin), LatMax)
	return lon, lat
}

// Align52 shifts a hash of any precision to the 52-bit score scale.
func Align52(h Hash) uint64 { return h.Bits << (52 - 2*uint(h.Step)) }

// Score returns the sorted-set score of (lon, lat); ok is false when the
// point is outside the WGS84 limits.
func Score(lon, lat float64) (uint64, bool) {
	h, ok := Encode(LonRange, LatRange, lon, lat, StepMax)
	if !ok {
		return 0, false
	}
	return Align52(h), true
}

// scoreBits converts a score to the unsigned integer of its geohash the
// way a C cast on x86-64 does, so a score GEOADD did not write (negative,
// huge or infinite) decodes to the same clamped point as in Redis.
func scoreBits(s float64) uint64 {
	const two63 = 9223372036854775808.0
	switch {
	case s < two63 && s >= -two63:
		return uint64(int64(s))
	case s < two63: // below -2^63: the "integer indefinite" value
		return 1 << 63
	case s < 2*two63:
		return uint64(int64(s-two63)) ^ 1<<63
	}
	return 0 // at or past 2^64, and +Inf: indefinite with its top bit flipped
}

// DecodeScore returns the centre of the cell a score names; ok is false
// for the score 0 cast from a value that names no cell.
func DecodeScore(score float64) (lon, lat float64, ok bool) {
	a, ok := Decode(LonRange, LatRange, Hash{Bits: scoreBits(score), Step: StepMax})
	if !ok {
		return 0, 0, false
	}
	lon, lat = a.Center()
	return lon, lat, true
}

// geoAlphabet is the base-32 alphabet of textual geohashes.
const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// AppendString appends the 11-character standard geohash of the point a
// score names (GEOHASH): the point is decoded and encoded again over
// latitude -90..90; the 11th character, beyond the 52 bits held, is '0'.
// ok is false when the score names no point.
func AppendString(dst []byte, score float64) ([]byte, bool) {
	lon, lat, ok := DecodeScore(score)
	if !ok {
		return dst, false
	}
	h, _ := Encode(LonRange, StandardLatRange, lon, lat, StepMax)
	for i := 0; i < 11; i++ {
		idx := 0
		if i < 10 {
			idx = int(h.Bits>>(52-(uint(i)+1)*5)) & 0x1f
		}
		dst = append(dst, geoAlphabet[idx])
	}
	return dst, true
}

// moveLon moves h one cell east (d > 0) or west (d < 0), wrapping.
func moveLon(h Hash, d int) Hash {
	if d == 0 {
		return h
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - 2*uint(h.Step))
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - 2*uint(h.Step))
	h.Bits = x | y
	return h
}

// moveLat moves h one cell north (d > 0) or south (d < 0), wrapping.
func moveLat(h Hash, d int) Hash {
	if d == 0 {
		return h
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - 2*uint(h.Step))
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= 0x5555555555555555 >> (64 - 2*uint(h.Step))
	h.Bits = x | y
	return h
}

// Neighbors are the eight cells around one.
type Neighbors struct {
	North, South, East, West                   Hash
	NorthEast, NorthWest, SouthEast, SouthWest Hash
}

// NeighborsOf returns the cells around h at its precision.
func NeighborsOf(h Hash) Neighbors {
	return Neighbors{
		East:      moveLon(h, 1),
		West:      moveLon(h, -1),
		South:     moveLat(h, -1),
		North:     moveLat(h, 1),
		NorthWest: moveLat(moveLon(h, -1), 1),
		NorthEast: moveLat(moveLon(h, 1), 1),
		SouthEast: moveLat(moveLon(h, 1), -1),
		SouthWest: moveLat(moveLon(h, -1), -1),
	}
}

// LatDistance is the distance in metres between two latitudes on one
// meridian.
func LatDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Distance is the haversine great-circle distance in metres between two
// points given in degrees.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := Sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(Cos(lat1r)*Cos(lat2r))*v)*v)
	return 2.0 * EarthRadius * Asin(math.Sqrt(a))
}

// FastDistance is Distance computed with the math package's sin, cos
// and asin: within DistanceMargin of it, and many times cheaper.
func FastDistance(lon1, lat1, lon2, lat2 float64) float64 {
	return fastDistanceFrom(lon1, lat1, math.Cos(degRad(lat1)), lon2, lat2)
}

// DistanceMargin bounds |FastDistance - Distance| for distances near d
// (the functions differ by an ulp or two; this allows a thousandfold).
func DistanceMargin(d float64) float64 { return d*1e-12 + 1e-9 }

// fastDistanceFrom is FastDistance with cosLat1, math.Cos of lat1 in
// radians, given: a search computes it once for its centre.
func fastDistanceFrom(lon1, lat1, cosLat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := math.Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := math.Sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(cosLat1*math.Cos(lat2r))*v)*v)
	return 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
}

// beyondLat reports whether latitude alone puts two points farther apart
// than limit: a great circle is never shorter than its meridian part, so
// such points are out without any trigonometry.
func beyondLat(lat1, lat2, limit float64) bool {
	return LatDistance(lat1, lat2) > limit*(1+1e-12)+1e-9
}

// atMost reports whether Distance(lon1, lat1, lon2, lat2) <= limit.
func atMost(lon1, lat1, lon2, lat2, limit float64) bool {
	if beyondLat(lat1, lat2, limit) {
		return false
	}
	_, ok := fastAtMost(lon1, lat1, math.Cos(degRad(lat1)), lon2, lat2, limit)
	return ok
}

// fastAtMost returns the fast distance of the points and whether their
// exact distance is at most limit: the fast one decides unless it lies too
// near the limit to tell.
func fastAtMost(lon1, lat1, cosLat1, lon2, lat2, limit float64) (float64, bool) {
	d := fastDistanceFrom(lon1, lat1, cosLat1, lon2, lat2)
	margin := DistanceMargin(d)
	switch {
	case d > limit+margin:
		return d, false
	case d < limit-margin:
		return d, true
	}
	return d, Distance(lon1, lat1, lon2, lat2) <= limit
}

// atMostDist is atMost from the centre of a prepared circle, with its
// latitude's cosine computed once per search. It also returns the fast
// distance when it computed it and the haversine term when it computed
// that (each NaN otherwise).
func (s *Shape) atMostDist(lon, lat, limit float64) (dist, hav float64, ok bool) {
	if beyondLat(s.Lat, lat, limit) {
		return math.NaN(), math.NaN(), false
	}
	// The haversine term alone decides away from the edge: the distance
	// grows with it, so comparing it with the limit's own term spares the
	// square root and arcsine. The relative slack is far above the error
	// of either term; inside it the distance decides. The term is the one
	// fastDistanceFrom computes, so HavDistance turns it into the same
	// fast distance later, for the points that need one.
	if v := math.Sin((degRad(lon) - degRad(s.Lon)) / 2); v != 0 {
		u := math.Sin((degRad(lat) - degRad(s.Lat)) / 2)
		a := float64(u*u) + float64(float64(float64(s.cosLat*math.Cos(degRad(lat)))*v)*v)
		switch {
		case a > s.hav*(1+1e-9):
			return math.NaN(), a, false
		case a < s.hav*(1-1e-9):
			return math.NaN(), a, true
		}
		d, in := fastAtMost(s.Lon, s.Lat, s.cosLat, lon, lat, limit)
		return d, a, in
	}
	d, in := fastAtMost(s.Lon, s.Lat, s.cosLat, lon, lat, limit)
	return d, math.NaN(), in
}

// HavDistance returns the fast distance (FastDistance) of a point from a
// circle's centre given the haversine term WithinScore returned for it:
// the square root and arcsine fastDistanceFrom would apply to the same
// term.
func HavDistance(hav float64) float64 { return 2.0 * EarthRadius * math.Asin(math.Sqrt(hav)) }

// DistanceHav is the inverse of HavDistance: the haversine term of a
// distance in metres, for comparing terms against a distance bound. Past
// half the circumference it is 1 (no point is farther).
func DistanceHav(d float64) float64 {
	half := d / (2 * EarthRadius)
	if half >= math.Pi/2 {
		return 1
	}
	h := math.Sin(max(half, 0))
	return h * h
}

// EstimateSteps returns the cell precision for a search of the given
// radius in metres around latitude lat: cells about as wide as the
// radius, wider towards the poles.
func EstimateSteps(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), 26))
}

// Shape is the area of a search: a circle of Radius, or (Box) a rectangle
// of Width by Height, centred on (Lon, Lat). Sizes are in the unit whose
// length in metres is Conversion.
type Shape struct {
	Lon, Lat      float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64

	// Filled on the first point tested (prepare), for a circle: the
	// cosine of the centre's latitude, which every distance from the
	// centre needs, and how far in longitude (degrees) the circle reaches
	// at most, so that most points outside it are rejected without any
	// trigonometry (+Inf when the circle holds a pole).
	prepared bool
	cosLat   float64
	lonReach float64
	hav      float64 // sin²(radius / 2R): the haversine term at the radius
	// cells is set when the circle's latitude and longitude window is
	// known in cell indexes at StepMax (a point's geohash bits split in
	// two): a point whose cell lies outside is out before it is decoded.
	cells                bool
	latCellLo, latCellHi uint32
	lonCellLo, lonCellHi uint32
}

// prepare fills the per-search constants of a circle.
func (s *Shape) prepare() {
	s.prepared = true
	s.cosLat = math.Cos(degRad(s.Lat))
	s.lonReach = math.Inf(1)
	theta := float64(s.Radius*s.Conversion) / EarthRadius // angular radius
	if h := math.Sin(theta / 2); theta < math.Pi {
		s.hav = h * h
	} else {
		s.hav = math.Inf(1) // the whole sphere
	}
	if theta < math.Pi/2 && math.Abs(degRad(s.Lat))+theta < math.Pi/2*0.999 {
		// A spherical cap of angular radius theta centred at latitude phi
		// spans asin(sin theta / cos phi) in longitude. The margin keeps
		// rounding from ever rejecting a point the exact test would take.
		if r := math.Sin(theta) / s.cosLat; r < 1 {
			s.lonReach = radDeg(math.Asin(r))*(1+1e-6) + 1e-9
		}
	}
	latReach := radDeg(theta)*(1+1e-6) + 1e-9
	if s.lonReach < 180 && s.Lon-s.lonReach > LonMin && s.Lon+s.lonReach < LonMax {
		// One cell of slack on each side: a cell's decoded centre is
		// inside it, so a cell farther out has its centre outside too.
		s.cells = true
		s.latCellLo, s.latCellHi = cellIndex(LatRange, s.Lat-latReach), cellIndex(LatRange, s.Lat+latReach)+1
		s.lonCellLo, s.lonCellHi = cellIndex(LonRange, s.Lon-s.lonReach), cellIndex(LonRange, s.Lon+s.lonReach)+1
		s.latCellLo = max(s.latCellLo, 1) - 1
		s.lonCellLo = max(s.lonCellLo, 1) - 1
	}
}

// cellIndex returns the index at StepMax of the cell holding v in r,
// clamped to the valid indexes.
func cellIndex(r Range, v float64) uint32 {
	const cells = 1 << StepMax
	f := math.Floor((v - r.Min) / (r.Max - r.Min) * cells)
	return uint32(min(max(f, 0), cells-1))
}

// lonApart returns the longitude difference of two points in degrees,
// the short way round.
func lonApart(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > 180 {
		d = 360 - d
	}
	return d
}

// BoundingBox returns the longitude and latitude limits of the shape:
// minLon, minLat, maxLon, maxLat.
func (s *Shape) BoundingBox() [4]float64 {
	var height, width float64
	if s.Box {
		height = s.Conversion * (s.Height / 2)
		width = s.Conversion * (s.Width / 2)
	} else {
		height = s.Conversion * s.Radius
		width = s.Conversion * s.Radius
	}
	latDelta := radDeg(height / EarthRadius)
	lonDeltaTop := radDeg(width / EarthRadius / Cos(degRad(s.Lat+latDelta)))
	lonDeltaBottom := radDeg(width / EarthRadius / Cos(degRad(s.Lat-latDelta)))
	var b [4]float64
	if s.Lat < 0 {
		b[0], b[2] = s.Lon-lonDeltaBottom, s.Lon+lonDeltaBottom
	} else {
		b[0], b[2] = s.Lon-lonDeltaTop, s.Lon+lonDeltaTop
	}
	b[1], b[3] = s.Lat-latDelta, s.Lat+latDelta
	return b
}

// Contains reports whether the point lies in the shape and its distance
// in metres from the centre.
func (s *Shape) Contains(lon, lat float64) (float64, bool) {
	if !s.Box {
		d := Distance(s.Lon, s.Lat, lon, lat)
		return d, d <= float64(s.Radius*s.Conversion)
	}
	width, height := float64(s.Width*s.Conversion), float64(s.Height*s.Conversion)
	if LatDistance(lat, s.Lat) > height/2 {
		return 0, false
	}
	if Distance(lon, lat, s.Lon, lat) > width/2 {
		return 0, false
	}
	return Distance(s.Lon, s.Lat, lon, lat), true
}

// Within reports whether the point lies in the shape, as Contains does,
// without computing the distance a caller may not need.
func (s *Shape) Within(lon, lat float64) bool {
	if !s.Box {
		return atMost(s.Lon, s.Lat, lon, lat, float64(s.Radius*s.Conversion))
	}
	width, height := float64(s.Width*s.Conversion), float64(s.Height*s.Conversion)
	if LatDistance(lat, s.Lat) > height/2 {
		return false
	}
	return atMost(lon, lat, s.Lon, lat, width/2)
}

// WithinScore decodes a score and tests its point: the point (only when
// ok) and whether it lies in the shape. Its distance from the centre is
// Distance(s.Lon, s.Lat, lon, lat). For a circle the test leaves what it
// computed on the way: approx, FastDistance of the point, when the point
// lay near the edge (NaN otherwise), and hav, the haversine term of the
// point's distance, from which HavDistance gives the same FastDistance
// (NaN when not computed).
func (s *Shape) WithinScore(score float64) (lon, lat, approx, hav float64, ok bool) {
	if !s.Box {
		if !s.prepared {
			s.prepare()
		}
		if s.cells {
			ilat, ilon := deinterleave(scoreBits(score))
			if ilat < s.latCellLo || ilat > s.latCellHi || ilon < s.lonCellLo || ilon > s.lonCellHi {
				return 0, 0, math.NaN(), math.NaN(), false
			}
		}
		lon, lat, ok = DecodeScore(score)
		if !ok {
			return 0, 0, math.NaN(), math.NaN(), false
		}
		if lonApart(lon, s.Lon) > s.lonReach {
			return lon, lat, math.NaN(), math.NaN(), false
		}
		approx, hav, ok = s.atMostDist(lon, lat, float64(s.Radius*s.Conversion))
		return lon, lat, approx, hav, ok
	}
	lon, lat, ok = DecodeScore(score)
	if !ok {
		return 0, 0, math.NaN(), math.NaN(), false
	}
	return lon, lat, math.NaN(), math.NaN(), s.Within(lon, lat)
}

// ScoreRange is the scores [Min, Max) of one cell.
type ScoreRange struct{ Min, Max uint64 }

// cellScores returns the score range of every point in cell h.
func cellScores(h Hash) ScoreRange {
	lo := Align52(h)
	h.Bits++
	return ScoreRange{Min: lo, Max: Align52(h)}
}

// Search is the set of cells that cover a shape: the centre's cell and
// those of its neighbours the shape can reach (the others are zero).
type Search struct {
	Hash      Hash
	Area      Area
	Neighbors Neighbors
}

// Cover computes the cells that cover s.
func Cover(s *Shape) Search {
	b := s.BoundingBox()
	minLon, minLat, maxLon, maxLat := b[0], b[1], b[2], b[3]
	var radius float64
	if s.Box {
		radius = math.Sqrt(float64((s.Width/2)*(s.Width/2)) + float64((s.Height/2)*(s.Height/2)))
	} else {
		radius = s.Radius
	}
	radius *= s.Conversion
	steps := EstimateSteps(radius, s.Lat)
	hash, _ := Encode(LonRange, LatRange, s.Lon, s.Lat, steps)
	nb := NeighborsOf(hash)
	area, _ := Decode(LonRange, LatRange, hash)

	// A cell near the edge of its neighbours may leave part of the shape
	// uncovered at this precision: take one step coarser.
	decrease := false
	north, _ := Decode(LonRange, LatRange, nb.North)
	south, _ := Decode(LonRange, LatRange, nb.South)
	east, _ := Decode(LonRange, LatRange, nb.East)
	west, _ := Decode(LonRange, LatRange, nb.West)
	if north.Lat.Max < maxLat || south.Lat.Min > minLat || east.Lon.Max < maxLon || west.Lon.Min > minLon {
		decrease = true
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = Encode(LonRange, LatRange, s.Lon, s.Lat, steps)
		nb = NeighborsOf(hash)
		area, _ = Decode(LonRange, LatRange, hash)
	}

	// Drop the neighbours on a side the shape does not reach.
	if steps >= 2 {
		if area.Lat.Min < minLat {
			nb.South, nb.SouthWest, nb.SouthEast = Hash{}, Hash{}, Hash{}
		}
		if area.Lat.Max > maxLat {
			nb.North, nb.NorthEast, nb.NorthWest = Hash{}, Hash{}, Hash{}
		}
		if area.Lon.Min < minLon {
			nb.West, nb.SouthWest, nb.NorthWest = Hash{}, Hash{}, Hash{}
		}
		if area.Lon.Max > maxLon {
			nb.East, nb.SouthEast, nb.NorthEast = Hash{}, Hash{}, Hash{}
		}
	}
	return Search{Hash: hash, Area: area, Neighbors: nb}
}

// Cells appends to out the score ranges to scan, in search order: the centre,
// then north, south, east, west, north-east, north-west, south-east and
// south-west. Dropped neighbours are skipped, and so is a neighbour equal
// to the one scanned just before it (at large radii neighbours coincide);
// a neighbour equal to the centre is not skipped, as in Redis, so a point
// may then be found twice.
func (sr *Search) Cells(out []ScoreRange) []ScoreRange {
	cells := [9]Hash{sr.Hash, sr.Neighbors.North, sr.Neighbors.South, sr.Neighbors.East, sr.Neighbors.West,
		sr.Neighbors.NorthEast, sr.Neighbors.NorthWest, sr.Neighbors.SouthEast, sr.Neighbors.SouthWest}
	last := 0
	for i, h := range cells {
		if h.IsZero() {
			continue
		}
		if last != 0 && h == cells[last] {
			continue
		}
		out = append(out, cellScores(h))
		last = i
	}
	return out
}

// AppendDistance appends d with exactly four decimals, rounded half to
// even at the fourth as llrint does (distance replies).
func AppendDistance(dst []byte, d float64) []byte {
	if d == 0 {
		return append(dst, "0.0000"...)
	}
	v := math.RoundToEven(float64(d * 10000))
	var n uint64
	if v < 0 {
		dst = append(dst, '-')
		n = uint64(-v)
	} else {
		n = uint64(v)
	}
	var buf [24]byte
	digits := strconv.AppendUint(buf[:0], n, 10)
	if len(digits) < 5 {
		// Left-pad to five digits: "0.0012" for 12.
		pad := 5 - len(digits)
		digits = digits[:5]
		copy(digits[pad:], digits[:5-pad])
		for i := range pad {
			digits[i] = '0'
		}
	}
	dst = append(dst, digits[:len(digits)-4]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-4:]...)
}

// AppendCoord appends a coordinate as "%.17f" without trailing zeros (nor
// a bare '.'), and "-0" as "0": coordinate replies.
func AppendCoord(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', 17, 64)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
