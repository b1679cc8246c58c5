package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"math"
	"slices"
	"strconv"

	"github.com/ruvio/ruvio/types/geo"
	"github.com/ruvio/ruvio/types/num"
	"github.com/ruvio/ruvio/types/zset"
)

// The geo family (Redis's geo.c) on sorted sets: a member's score is the
// 52-bit geohash of its position (types/geo), so GEOADD is ZADD with
// computed scores and the searches are score-range scans of the cells
// around the centre. Nothing here has its own WAL record: GEOADD writes
// ZADD's OpZAdd and the STORE forms write the whole result as OpZStore,
// which replay without knowing about geo.
//
// Results with equal distances (members at the same place) are ordered
// by a stable sort; with COUNT Redis uses a partial quicksort, so which
// of such tied members a COUNT keeps can differ from Redis.

const (
	errGeoUnit         = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errGeoMember       = "ERR could not decode requested zset member"
	errGeoRadiusNeg    = "ERR radius cannot be negative"
	errGeoBoxNeg       = "ERR height or width cannot be negative"
	errGeoCount        = "ERR COUNT must be > 0"
	errGeoAnyNeedCount = "ERR the ANY argument requires COUNT argument"
)

// geoParseUnit returns the length in metres of the unit argument, or
// replies an error and returns a negative value.
func geoParseUnit(x *keyspace.Ctx, b []byte) float64 {
	switch {
	case keyspace.EqFold(b, "m"):
		return 1
	case keyspace.EqFold(b, "km"):
		return 1000
	case keyspace.EqFold(b, "ft"):
		return 0.3048
	case keyspace.EqFold(b, "mi"):
		return 1609.34
	}
	x.W.Error(errGeoUnit)
	return -1
}

// geoParseFloatOrReply parses a float argument, replying msg (or the generic
// float error when msg is empty) when it is not one.
func geoParseFloatOrReply(x *keyspace.Ctx, b []byte, msg string) (float64, bool) {
	f, ok := num.ParseFloat(b)
	if !ok {
		if msg == "" {
			msg = keyspace.ErrNotFloat
		}
		x.W.Error(msg)
	}
	return f, ok
}

// geoParseLonLatOrReply parses a longitude and a latitude and checks their range.
func geoParseLonLatOrReply(x *keyspace.Ctx, lonArg, latArg []byte) (lon, lat float64, ok bool) {
	if lon, ok = geoParseFloatOrReply(x, lonArg, ""); !ok {
		return 0, 0, false
	}
	if lat, ok = geoParseFloatOrReply(x, latArg, ""); !ok {
		return 0, 0, false
	}
	if lon < geo.LonMin || lon > geo.LonMax || lat < geo.LatMin || lat > geo.LatMax {
		x.W.Error("ERR invalid longitude,latitude pair " + formatCFloat(lon) + "," + formatCFloat(lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// formatCFloat formats f as C's "%f" does.
func formatCFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// geoMemberPos returns the position stored for member.
func geoMemberPos(o *keyspace.ZsetObj, member []byte) (lon, lat float64, ok bool) {
	s, ok := o.Z.Score(member)
	if !ok {
		return 0, 0, false
	}
	return geo.DecodeScore(s)
}

// writeCoord writes one coordinate: a bulk string in RESP2, a double in
// RESP3, both with up to 17 decimals and no trailing zeros.
func writeCoord(x *keyspace.Ctx, f float64) {
	var tmp [40]byte
	b := geo.AppendCoord(tmp[:0], f)
	if x.W.Proto >= 3 {
		x.W.Raw([]byte{','})
		x.W.Raw(b)
		x.W.Raw([]byte("\r\n"))
		return
	}
	x.W.Bulk(b)
}

// writeDistance writes a distance as a bulk string with four decimals.
func writeDistance(x *keyspace.Ctx, d float64) {
	var tmp [40]byte
	x.W.Bulk(geo.AppendDistance(tmp[:0], d))
}

// GEOADD key [NX|XX] [CH] longitude latitude member [...]
func geoaddCommand(x *keyspace.Ctx) {
	args := x.Args
	nx, xx := false, false
	i := 2
	for ; i < len(args); i++ {
		switch {
		case keyspace.EqFold(args[i], "nx"):
			nx = true
		case keyspace.EqFold(args[i], "xx"):
			xx = true
		case keyspace.EqFold(args[i], "ch"):
		default:
			goto done
		}
	}
done:
	if (len(args)-i)%3 != 0 || nx && xx {
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	// The call becomes ZADD key [options] score member ...; ZADD's checks
	// and replies apply from there.
	n := (len(args) - i) / 3
	zargs := make([][]byte, 0, i+2*n)
	zargs = append(zargs, []byte("zadd"))
	zargs = append(zargs, args[1:i]...)
	for k := 0; k < n; k++ {
		at := i + 3*k
		lon, lat, ok := geoParseLonLatOrReply(x, args[at], args[at+1])
		if !ok {
			return
		}
		score, _ := geo.Score(lon, lat)
		zargs = append(zargs, strconv.AppendUint(nil, score, 10), args[at+2])
	}
	x.Args = zargs
	zaddGeneric(x, false)
	x.Args = args
}

// GEOHASH key [member ...]
func geohashCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	var buf [16]byte
	for _, m := range x.Args[2:] {
		if o != nil {
			if s, found := o.Z.Score(m); found {
				if h, ok := geo.AppendString(buf[:0], s); ok {
					x.W.Bulk(h)
					continue
				}
			}
		}
		x.W.Null()
	}
}

// GEOPOS key [member ...]
func geoposCommand(x *keyspace.Ctx) {
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	x.W.ArrayHeader(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if o != nil {
			if lon, lat, found := geoMemberPos(o, m); found {
				x.W.ArrayHeader(2)
				writeCoord(x, lon)
				writeCoord(x, lat)
				continue
			}
		}
		x.W.NullArray()
	}
}

// GEODIST key member1 member2 [M|KM|FT|MI]
func geodistCommand(x *keyspace.Ctx) {
	toMeters := 1.0
	switch {
	case len(x.Args) == 5:
		if toMeters = geoParseUnit(x, x.Args[4]); toMeters < 0 {
			return
		}
	case len(x.Args) > 5:
		x.W.Error(keyspace.ErrSyntax)
		return
	}
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[1], true)
	if !ok {
		return
	}
	if o == nil {
		x.W.Null()
		return
	}
	s1, ok1 := o.Z.Score(x.Args[2])
	s2, ok2 := o.Z.Score(x.Args[3])
	if !ok1 || !ok2 {
		x.W.Null()
		return
	}
	lon1, lat1, ok1 := geo.DecodeScore(s1)
	lon2, lat2, ok2 := geo.DecodeScore(s2)
	if !ok1 || !ok2 {
		x.W.Null()
		return
	}
	writeDistance(x, geo.Distance(lon1, lat1, lon2, lat2)/toMeters)
}

// Variants of geoSearchGeneric.
const (
	geoFromCoords  = 1 << iota // GEORADIUS: centre given as longitude latitude
	geoFromMember              // GEORADIUSBYMEMBER: centre at a member
	geoNoStore                 // the _RO forms: no STORE / STOREDIST
	geoSearch                  // GEOSEARCH syntax
	geoSearchStore             // GEOSEARCHSTORE: destination first, STOREDIST flag
)

// geoSearchOptions are the arguments of a search, and which of the
// GEOSEARCH clauses came (for the checks after the loop).
type geoSearchOptions struct {
	shape                         geo.Shape
	storeKey                      []byte
	storeDist                     bool
	withDist, withHash, withCoord bool
	anyFlag                       bool
	sortDir                       int // 0 none, 1 ascending, -1 descending
	count                         int64
	fromMember, fromLoc           bool
	byRadius, byBox               bool
}

// geoSearchGeneric is GEORADIUS, GEORADIUSBYMEMBER, their _RO forms,
// GEOSEARCH and GEOSEARCHSTORE: src is the index of the source key. The
// order of checks and their errors are Redis's: the key's type, then the
// arguments in order, then their combinations.
func geoSearchGeneric(x *keyspace.Ctx, src int, flags int) {
	_, o, ok := lookupTypedOrReply[*keyspace.ZsetObj](x, x.Args[src], true)
	if !ok {
		return
	}
	var opt geoSearchOptions
	base, ok := geoParseCentre(x, o, flags, &opt)
	if !ok || !geoParseSearchArgs(x, o, flags, base, &opt) || !geoCheckSearchArgs(x, flags, &opt) {
		return
	}
	if o == nil {
		if opt.storeKey != nil {
			storeEmptyResult(x, opt.storeKey)
			return
		}
		x.W.ArrayHeader(0)
		return
	}
	// COUNT without an order means the nearest ones, unless ANY.
	if opt.count != 0 && opt.sortDir == 0 && !opt.anyFlag {
		opt.sortDir = 1
	}
	limit := 0
	if opt.anyFlag {
		limit = int(min(opt.count, math.MaxInt32))
	}
	points := geoCollect(stateOf(x.S).geoPoints[:0], &o.Z, &opt.shape, limit)
	defer shardKeepGeoPoints(x.S, points)
	if len(points) == 0 && opt.storeKey == nil {
		x.W.ArrayHeader(0)
		return
	}
	points = geoSearchResults(x.S, points, &opt)
	if opt.storeKey != nil {
		geoStoreResult(x, opt.storeKey, points, opt.storeDist, flags&geoSearch != 0)
		return
	}
	geoSearchReply(x, points, &opt)
}

// geoParseCentre reads the arguments GEORADIUS and GEORADIUSBYMEMBER take
// by position (centre, radius and unit; the radius only when the key
// exists, as Redis) and GEOSEARCHSTORE's destination, and returns where
// the options start.
func geoParseCentre(x *keyspace.Ctx, o *keyspace.ZsetObj, flags int, opt *geoSearchOptions) (base int, ok bool) {
	args := x.Args
	switch {
	case flags&geoFromCoords != 0:
		lon, lat, ok := geoParseLonLatOrReply(x, args[2], args[3])
		if !ok {
			return 0, false
		}
		opt.shape.Lon, opt.shape.Lat = lon, lat
		if !geoParseRadiusOrReply(x, args[4], args[5], &opt.shape) {
			return 0, false
		}
		return 6, true
	case flags&geoFromMember != 0:
		if o != nil {
			lon, lat, found := geoMemberPos(o, args[2])
			if !found {
				x.W.Error(errGeoMember)
				return 0, false
			}
			opt.shape.Lon, opt.shape.Lat = lon, lat
			if !geoParseRadiusOrReply(x, args[3], args[4], &opt.shape) {
				return 0, false
			}
		}
		return 5, true
	case flags&geoSearchStore != 0:
		opt.storeKey = args[1]
		return 3, true
	}
	return 2, true
}

// geoParseSearchArgs reads the options from args[base:] in order,
// replying the first error (false).
func geoParseSearchArgs(x *keyspace.Ctx, o *keyspace.ZsetObj, flags, base int, opt *geoSearchOptions) bool {
	args := x.Args
	search := flags&geoSearch != 0
	canStore := flags&geoNoStore == 0 && !search
	for i := base; i < len(args); i++ {
		a := args[i]
		left := len(args) - i - 1
		switch {
		case keyspace.EqFold(a, "withdist"):
			opt.withDist = true
		case keyspace.EqFold(a, "withhash"):
			opt.withHash = true
		case keyspace.EqFold(a, "withcoord"):
			opt.withCoord = true
		case keyspace.EqFold(a, "any"):
			opt.anyFlag = true
		case keyspace.EqFold(a, "asc"):
			opt.sortDir = 1
		case keyspace.EqFold(a, "desc"):
			opt.sortDir = -1
		case keyspace.EqFold(a, "count") && left >= 1:
			n, ok := keyspace.ParseInt(args[i+1])
			if !ok {
				x.W.Error(keyspace.ErrNotInt)
				return false
			}
			if n <= 0 {
				x.W.Error(errGeoCount)
				return false
			}
			opt.count = n
			i++
		case keyspace.EqFold(a, "store") && left >= 1 && canStore:
			opt.storeKey, opt.storeDist = args[i+1], false
			i++
		case keyspace.EqFold(a, "storedist") && left >= 1 && canStore:
			opt.storeKey, opt.storeDist = args[i+1], true
			i++
		case keyspace.EqFold(a, "storedist") && search && flags&geoSearchStore != 0:
			opt.storeDist = true
		case keyspace.EqFold(a, "frommember") && left >= 1 && search && !opt.fromLoc:
			if o != nil {
				lon, lat, found := geoMemberPos(o, args[i+1])
				if !found {
					x.W.Error(errGeoMember)
					return false
				}
				opt.shape.Lon, opt.shape.Lat = lon, lat
			}
			opt.fromMember = true
			i++
		case keyspace.EqFold(a, "fromlonlat") && left >= 2 && search && !opt.fromMember:
			lon, lat, ok := geoParseLonLatOrReply(x, args[i+1], args[i+2])
			if !ok {
				return false
			}
			opt.shape.Lon, opt.shape.Lat = lon, lat
			opt.fromLoc = true
			i += 2
		case keyspace.EqFold(a, "byradius") && left >= 2 && search && !opt.byBox:
			if !geoParseRadiusOrReply(x, args[i+1], args[i+2], &opt.shape) {
				return false
			}
			opt.byRadius = true
			i += 2
		case keyspace.EqFold(a, "bybox") && left >= 3 && search && !opt.byRadius:
			if !geoParseBox(x, args[i+1], args[i+2], args[i+3], &opt.shape) {
				return false
			}
			opt.byBox = true
			i += 3
		default:
			x.W.Error(keyspace.ErrSyntax)
			return false
		}
	}
	return true
}

// geoParseBox parses "width height unit" into shape.
func geoParseBox(x *keyspace.Ctx, widthArg, heightArg, unitArg []byte, shape *geo.Shape) bool {
	w, ok := geoParseFloatOrReply(x, widthArg, "ERR need numeric width")
	if !ok {
		return false
	}
	h, ok := geoParseFloatOrReply(x, heightArg, "ERR need numeric height")
	if !ok {
		return false
	}
	if h < 0 || w < 0 {
		x.W.Error(errGeoBoxNeg)
		return false
	}
	conv := geoParseUnit(x, unitArg)
	if conv < 0 {
		return false
	}
	shape.Box, shape.Width, shape.Height, shape.Conversion = true, w, h, conv
	return true
}

// geoCheckSearchArgs replies the error (false) for options that cannot
// go together or a clause GEOSEARCH lacks.
func geoCheckSearchArgs(x *keyspace.Ctx, flags int, opt *geoSearchOptions) bool {
	search := flags&geoSearch != 0
	if opt.storeKey != nil && (opt.withDist || opt.withHash || opt.withCoord) {
		what := "STORE option in GEORADIUS"
		if flags&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		x.W.Error("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		return false
	}
	if search && !opt.fromMember && !opt.fromLoc {
		x.W.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(x.Args[0]))
		return false
	}
	if search && !opt.byRadius && !opt.byBox {
		x.W.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(x.Args[0]))
		return false
	}
	if opt.anyFlag && opt.count == 0 {
		x.W.Error(errGeoAnyNeedCount)
		return false
	}
	return true
}

// geoSearchResults orders the points found (when asked, or for COUNT),
// keeps COUNT of them and converts their distances to the unit asked,
// made exact first where STOREDIST stores them and precise enough where
// WITHDIST replies them.
func geoSearchResults(sh *keyspace.Shard, points []geoPoint, opt *geoSearchOptions) []geoPoint {
	returned := len(points)
	if opt.count != 0 && int64(returned) > opt.count {
		returned = int(opt.count)
	}
	if opt.sortDir != 0 {
		shardGeoSortByDistance(sh, points, &opt.shape, opt.sortDir, returned)
	}
	points = points[:returned]
	if opt.storeDist && opt.storeKey != nil {
		for i := range points {
			geoPointExactDist(&points[i], &opt.shape)
		}
	} else if opt.withDist {
		for i := range points {
			geoPointReplyDist(&points[i], &opt.shape)
		}
	}
	for i := range points {
		points[i].Dist /= opt.shape.Conversion
	}
	return points
}

// geoSearchReply replies the points: each a member, or an array of the
// member and what WITHDIST, WITHHASH and WITHCOORD ask, in that order.
func geoSearchReply(x *keyspace.Ctx, points []geoPoint, opt *geoSearchOptions) {
	opts := 0
	for _, on := range []bool{opt.withDist, opt.withCoord, opt.withHash} {
		if on {
			opts++
		}
	}
	x.W.ArrayHeader(len(points))
	for _, p := range points {
		if opts > 0 {
			x.W.ArrayHeader(opts + 1)
		}
		x.W.Bulk(p.Member)
		if opt.withDist {
			writeDistance(x, p.Dist)
		}
		if opt.withHash {
			x.W.Int(int64(p.Score))
		}
		if opt.withCoord {
			x.W.ArrayHeader(2)
			writeCoord(x, p.Lon)
			writeCoord(x, p.Lat)
		}
	}
}

// geoPointExactDist sets p.dist to the distance Redis computes, once.
func geoPointExactDist(p *geoPoint, shape *geo.Shape) {
	if !p.Exact {
		p.Dist, p.Exact = geo.Distance(shape.Lon, shape.Lat, p.Lon, p.Lat), true
	}
}

// shardGeoSortByDistance puts the first want points in order of distance from
// the centre, ascending (dir 1) or descending, equal distances in
// collection order, as a stable sort by the exact distances would, but
// computing exact distances only for points whose approximate ones are
// too close to order, and with a small want (COUNT) fast distances only
// for the points geoNarrow keeps. The points after want are left in no
// order and may be overwritten.
func shardGeoSortByDistance(sh *keyspace.Shard, points []geoPoint, shape *geo.Shape, dir int, want int) {
	if want > 0 && want*4 < len(points) {
		points = geoNarrow(points, want, dir)
	}
	keys := stateOf(sh).geoKeys[:0]
	for i := range points {
		p := &points[i]
		p.Idx = i
		geoPointApproxDist(p, shape)
		if math.IsNaN(p.Dist) {
			geoPointExactDist(p, shape)
		}
		keys = append(keys, geoDistKey{Dist: p.Dist, Idx: i})
	}
	byDist := func(a, b geoDistKey) int {
		if c := cmpFloat(a.Dist, b.Dist) * dir; c != 0 {
			return c
		}
		return a.Idx - b.Idx
	}
	if want > 0 && want*4 < len(keys) {
		keys = geoNearest(keys, want, dir)
	}
	slices.SortFunc(keys, byDist)
	// Neighbours closer than the approximation's error are ordered again
	// by their exact distances; points farther apart keep their order.
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && math.Abs(keys[j].Dist-keys[j-1].Dist) <= 2*geo.DistanceMargin(max(keys[j].Dist, keys[j-1].Dist)) {
			j++
		}
		if j-i > 1 {
			for k := i; k < j; k++ {
				p := &points[keys[k].Idx]
				geoPointExactDist(p, shape)
				keys[k].Dist = p.Dist
			}
			slices.SortFunc(keys[i:j], byDist)
		}
		i = j
	}
	sorted := stateOf(sh).geoSorted[:0]
	for _, k := range keys {
		sorted = append(sorted, points[k.Idx])
	}
	// With only the nearest sorted, the points after them are not
	// returned and may be overwritten.
	copy(points, sorted)
	clear(sorted) // no member kept alive by the scratch
	if cap(keys) <= 64<<10 {
		st := stateOf(sh)
		st.geoKeys, st.geoSorted = keys[:0], sorted[:0]
	} else {
		st := stateOf(sh)
		st.geoKeys, st.geoSorted = nil, nil
	}
}

// geoPointApproxDist sets p.dist to the fast distance from the centre unless the
// search left it or an exact one: from the haversine term when the search
// computed that (the same value for the cost of a square root and an
// arcsine), else from the coordinates.
func geoPointApproxDist(p *geoPoint, shape *geo.Shape) {
	switch {
	case p.Exact || !math.IsNaN(p.Dist):
	case !math.IsNaN(p.Hav):
		p.Dist = geo.HavDistance(p.Hav)
	default:
		p.Dist = geo.FastDistance(shape.Lon, shape.Lat, p.Lon, p.Lat)
	}
}

// geoNarrow keeps, in place and in collection order, the points that can
// be among the want nearest (farthest when dir < 0) by fast distance or
// within the fast distance's error of the last of them, judged by the
// haversine terms the search left so that no distance is computed for the
// points it drops. The term grows with the distance, so the want-th best
// term bounds the want-th best distance; the bound is widened by twice the
// distance's error bound, converted back to a term, and by a relative
// slack far above the conversion's rounding. Points without a term are
// kept, and nothing is dropped when fewer than want points have one: what
// is kept always includes what geoNearest keeps of all the points.
func geoNarrow(points []geoPoint, want, dir int) []geoPoint {
	var buf [64]float64
	best := buf[:0]
	if want > len(buf) {
		best = make([]float64, 0, want)
	}
	better := func(a, b float64) bool { return dir > 0 && a < b || dir < 0 && a > b }
	for i := range points {
		h := points[i].Hav
		switch {
		case math.IsNaN(h):
		case len(best) < want:
			best = append(best, h)
			for j := len(best) - 1; j > 0 && better(best[j-1], best[j]); j-- {
				best[j-1], best[j] = best[j], best[j-1]
			}
		case better(h, best[0]):
			best[0] = h
			for j := 1; j < len(best) && better(best[j-1], best[j]); j++ {
				best[j-1], best[j] = best[j], best[j-1]
			}
		}
	}
	if len(best) < want {
		return points
	}
	d := geo.HavDistance(best[0])
	slack := 2 * geo.DistanceMargin(d)
	var keep func(h float64) bool
	if dir > 0 {
		limit := geo.DistanceHav(d+slack) * (1 + 1e-9)
		keep = func(h float64) bool { return !(h > limit) } // NaN kept
	} else {
		limit := geo.DistanceHav(d-slack) * (1 - 1e-9)
		keep = func(h float64) bool { return !(h < limit) }
	}
	out := points[:0]
	for _, p := range points {
		if keep(p.Hav) {
			out = append(out, p)
		}
	}
	return out
}

// geoNearest keeps, of keys in collection order, the want nearest
// (farthest when dir < 0) by approximate distance together with every key
// within the approximation's error of the last of them, which only exact
// distances can order; the result is in no particular order and reuses
// keys' storage.
func geoNearest(keys []geoDistKey, want, dir int) []geoDistKey {
	// The want best distances so far, worst first: a small max-heap by
	// "better" order would do, but want is small and this is simpler.
	best := make([]float64, 0, 64)
	if want > cap(best) {
		best = make([]float64, 0, want)
	}
	better := func(a, b float64) bool { return dir > 0 && a < b || dir < 0 && a > b }
	for _, k := range keys {
		if len(best) < want {
			best = append(best, k.Dist)
			for i := len(best) - 1; i > 0 && better(best[i-1], best[i]); i-- {
				best[i-1], best[i] = best[i], best[i-1]
			}
			continue
		}
		if better(k.Dist, best[0]) {
			best[0] = k.Dist
			for i := 1; i < len(best) && better(best[i-1], best[i]); i++ {
				best[i-1], best[i] = best[i], best[i-1]
			}
		}
	}
	edge := best[0]
	slack := 2 * geo.DistanceMargin(edge)
	out := keys[:0]
	for _, k := range keys {
		if dir > 0 && k.Dist <= edge+slack || dir < 0 && k.Dist >= edge-slack {
			out = append(out, k)
		}
	}
	return out
}

// geoPointReplyDist sets p.dist to a distance that prints as the exact one does
// with four decimals in the search's unit: the approximation when the
// whole interval it may be off by rounds to the same digits (the printing
// is monotone in the distance), else the exact distance.
func geoPointReplyDist(p *geoPoint, shape *geo.Shape) {
	geoPointApproxDist(p, shape)
	if p.Exact || math.IsNaN(p.Dist) {
		geoPointExactDist(p, shape)
		return
	}
	m := geo.DistanceMargin(p.Dist)
	lo := math.RoundToEven(float64(float64((p.Dist-m)/shape.Conversion) * 10000))
	hi := math.RoundToEven(float64(float64((p.Dist+m)/shape.Conversion) * 10000))
	if lo != hi {
		geoPointExactDist(p, shape)
	}
}

// cmpFloat orders two distances.
func cmpFloat(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// geoParseRadiusOrReply parses "radius unit" into shape.
func geoParseRadiusOrReply(x *keyspace.Ctx, radiusArg, unitArg []byte, shape *geo.Shape) bool {
	r, ok := geoParseFloatOrReply(x, radiusArg, "ERR need numeric radius")
	if !ok {
		return false
	}
	if r < 0 {
		x.W.Error(errGeoRadiusNeg)
		return false
	}
	conv := geoParseUnit(x, unitArg)
	if conv < 0 {
		return false
	}
	shape.Box, shape.Radius, shape.Conversion = false, r, conv
	return true
}

// geoCollect scans the cells covering shape and returns the members
// inside it, in scan order, without their distances; limit > 0 (ANY)
// stops after that many. The member slices alias the sorted set, which
// nothing changes before the command is done with them (a STORE copies
// them into the new set before it replaces any value): not copying them
// spares an allocation per result, which on a large set is mostly
// garbage-collector work. The points are appended to points (the
// shard's scratch).
func geoCollect(points []geoPoint, z *zset.ZSet, shape *geo.Shape, limit int) []geoPoint {
	cover := geo.Cover(shape)
	var cells [9]geo.ScoreRange
	for _, cell := range cover.Cells(cells[:0]) {
		if limit > 0 && len(points) >= limit {
			break
		}
		r := zset.ScoreRange{Min: float64(cell.Min), Max: float64(cell.Max), MaxEx: true}
		z.RangeByScore(r, false, 0, -1, func(m []byte, s float64) bool {
			if lon, lat, approx, hav, in := shape.WithinScore(s); in {
				points = append(points, geoPoint{Member: m, Lon: lon, Lat: lat, Dist: approx, Hav: hav, Score: s})
			}
			return limit == 0 || len(points) < limit
		})
	}
	return points
}

// shardKeepGeoPoints keeps the buffer of a search's points for the next one,
// cleared so that it holds no member of a set that may be deleted, and
// not when one huge search grew it.
func shardKeepGeoPoints(sh *keyspace.Shard, points []geoPoint) {
	points = points[:cap(points)]
	if len(points) > 64<<10 {
		stateOf(sh).geoPoints = nil
		return
	}
	clear(points)
	stateOf(sh).geoPoints = points[:0]
}

// geoStoreResult stores the points at dst as a sorted set scored by
// geohash or (storeDist) by distance, and replies their count.
func geoStoreResult(x *keyspace.Ctx, dst []byte, points []geoPoint, storeDist, search bool) {
	if len(points) == 0 {
		storeEmptyResult(x, dst)
		return
	}
	sh, db := x.S, x.DB
	cfg := sh.ZsetConfig()
	o := &keyspace.ZsetObj{}
	for _, p := range points {
		s := p.Score
		if storeDist {
			s = p.Dist
		}
		_, _, _ = o.Z.Add(cfg, p.Member, s, 0) // scores and distances are never NaN
	}
	keyspace.StoreObj(db, sh.Lookup(db, dst), dst, o)
	sh.LogZStore(db.ID, string(dst), o)
	ev := "georadiusstore"
	if search {
		ev = "geosearchstore"
	}
	x.Notify(keyspace.EvZset, ev, dst)
	x.W.Int(int64(len(points)))
}

func georadiusCommand(x *keyspace.Ctx) { geoSearchGeneric(x, 1, geoFromCoords) }

func georadiusroCommand(x *keyspace.Ctx) { geoSearchGeneric(x, 1, geoFromCoords|geoNoStore) }

func georadiusbymemberCommand(x *keyspace.Ctx) {
	geoSearchGeneric(x, 1, geoFromMember)
}

func georadiusbymemberroCommand(x *keyspace.Ctx) {
	geoSearchGeneric(x, 1, geoFromMember|geoNoStore)
}

func geosearchCommand(x *keyspace.Ctx) { geoSearchGeneric(x, 1, geoSearch) }

func geosearchstoreCommand(x *keyspace.Ctx) { geoSearchGeneric(x, 2, geoSearch|geoSearchStore) }

// georadiusKeys finds the keys of GEORADIUS and GEORADIUSBYMEMBER: the
// source, and the last STORE or STOREDIST destination.
func georadiusKeys(args [][]byte, dst []int) []int {
	if len(args) < 2 {
		return dst
	}
	dst = append(dst, 1)
	stored := -1
	for i := 5; i < len(args); i++ {
		if (keyspace.EqFold(args[i], "store") || keyspace.EqFold(args[i], "storedist")) && i+1 < len(args) {
			stored = i + 1
			i++
		}
	}
	if stored > 0 {
		dst = append(dst, stored)
	}
	return dst
}

func registerGeoFamily(t keyspace.CommandTable) {
	const rw, ro, deny = keyspace.FlagWrite, keyspace.FlagReadOnly, keyspace.FlagDenyOOM
	c := func(name string, arity int, flags keyspace.Flag, first, last int, since, summary, complexity string, h keyspace.HandlerFunc) *keyspace.Command {
		return &keyspace.Command{Name: name, Arity: arity, Flags: flags, FirstKey: first, LastKey: last, Step: 1, Group: "geo", Since: since, Summary: summary, Complexity: complexity, Handler: h}
	}
	const (
		radiusCx = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index."
		searchCx = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape"
	)
	georadius := withSpecs(c("georadius", -6, rw|deny, 1, 1, "3.2.0", "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", radiusCx, georadiusCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STORE", StartFrom: 6, Find: keyspace.FindRange, KeyStep: 1}, {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STOREDIST", StartFrom: 6, Find: keyspace.FindRange, KeyStep: 1}}, nil)
	georadius.MovableKeys = georadiusKeys
	georadiusbymember := withSpecs(c("georadiusbymember", -5, rw|deny, 1, 1, "3.2.0", "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", radiusCx, georadiusbymemberCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1), {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STORE", StartFrom: 5, Find: keyspace.FindRange, KeyStep: 1}, {Flags: keyspace.KeyOW | keyspace.KeyUpdate, Keyword: "STOREDIST", StartFrom: 5, Find: keyspace.FindRange, KeyStep: 1}}, nil)
	georadiusbymember.MovableKeys = georadiusKeys
	t.Add(
		withSpecs(c("geoadd", -5, rw|deny, 1, 1, "3.2.0", "Add one or more geospatial items in the geospatial index represented using a sorted set", "O(log(N)) for each item added, where N is the number of elements in the sorted set.", geoaddCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRW|keyspace.KeyUpdate, 1, 0, 1)}, nil),
		withSpecs(c("geodist", -4, ro, 1, 1, "3.2.0", "Returns the distance between two members of a geospatial index", "O(log(N))", geodistCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("geohash", -2, ro, 1, 1, "3.2.0", "Returns members of a geospatial index as standard geohash strings", "O(log(N)) for each member requested, where N is the number of elements in the sorted set.", geohashCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("geopos", -2, ro, 1, 1, "3.2.0", "Returns longitude and latitude of members of a geospatial index", "O(N) where N is the number of members requested.", geoposCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("geosearch", -7, ro, 1, 1, "6.2.0", "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.", searchCx, geosearchCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		withSpecs(c("geosearchstore", -8, rw|deny, 1, 2, "6.2.0", "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.", searchCx, geosearchstoreCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyOW|keyspace.KeyUpdate, 1, 0, 1), rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 2, 0, 1)}, nil),
		georadius,
		withSpecs(c("georadius_ro", -6, ro, 1, 1, "3.2.10", "A read-only variant for GEORADIUS", radiusCx, georadiusroCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
		georadiusbymember,
		withSpecs(c("georadiusbymember_ro", -5, ro, 1, 1, "3.2.10", "A read-only variant for GEORADIUSBYMEMBER", radiusCx, georadiusbymemberroCommand), []keyspace.KeySpec{rangeSpec(keyspace.KeyRO|keyspace.KeyAccess, 1, 0, 1)}, nil),
	)
}
