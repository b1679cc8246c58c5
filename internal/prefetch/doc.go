// Package prefetch asks the processor to start loading a cache line that
// a later read will need, without waiting for it. A lookup that reads
// ahead of several others with ordinary loads stalls once the misses it
// waits for fill the processor's window; a prefetch retires at once, so
// the misses of a whole batch overlap (the read ahead of the keyspace's
// index and of dict's tables uses it).
//
// Where the architecture has no prefetch instruction here, Line does
// nothing.
package prefetch
