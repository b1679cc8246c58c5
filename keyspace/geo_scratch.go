package keyspace

// The geo searches' scratch: each shard keeps the point and distance
// slices of its last search, so a search allocates nothing once they are
// warm (commands/geo.go uses them).

// GeoPoint is one search result.
type GeoPoint struct {
	Member   []byte  // the sorted set member
	Lon, Lat float64 // its position, decoded from its score
	Dist     float64 // metres until the reply converts it: the search's approximation (NaN if none), exact once Exact is set
	Hav      float64 // the haversine term of the distance, when the search computed it (else NaN)
	Score    float64 // the member's score: its 52-bit geohash (WITHHASH)
	Exact    bool    // Dist is the exact distance, not the approximation
	Idx      int     // position in collection order, for ties
}

// GeoDistKey is a point's place in a sort by distance: sorting these
// small keys and then moving the points once is much cheaper than
// sorting the points themselves.
type GeoDistKey struct {
	Dist float64 // the point's Dist
	Idx  int     // the point's index in the slice being sorted
}
