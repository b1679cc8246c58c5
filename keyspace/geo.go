package keyspace

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

// GeoPoint is one search result.
type GeoPoint struct {
	Member   []byte
	Lon, Lat float64
	Dist     float64 // metres until the reply converts it: the search's approximation (NaN if none), exact once exact is set
	Hav      float64 // the haversine term of the distance, when the search computed it (else NaN)
	Score    float64
	Exact    bool // dist is the exact distance, not the approximation
	Idx      int  // position in collection order, for ties
}

// GeoDistKey is a point's place in a sort by distance: sorting these
// small keys and then moving the points once is much cheaper than
// sorting the points themselves.
type GeoDistKey struct {
	Dist float64
	Idx  int
}
