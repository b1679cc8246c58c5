package keyspace

// The HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG and
// PFSELFTEST. A HyperLogLog is a string value in the layout types/hll
// describes (Redis's own), so GET, SET and the string commands see the same
// bytes Redis would. Every mutation is logged physically: a rewritten value
// as a whole (OpSet), a dense register changed in place and the cached
// cardinality as ranges (OpSetRange).
