// Package keyspace is the engine of a server: its shards, their databases,
// entries and values, expiry, eviction, the journal and snapshots, the
// command table type and dispatch, blocking, transactions, Pub/Sub,
// tracking and the shard halves of replication and scripting. One
// goroutine owns a shard; nothing on the data path takes a lock.
//
// It registers no command: package commands holds every command family and
// hands the table it builds to NewServer (Options.Commands). Nothing here
// imports commands; the compiler keeps it so.
//
// # Memory layout
//
// A key costs one allocation that holds its header, its key and, for a
// string of up to about 32 KiB, its value:
//
//	arena slot (size class of 24 + len(key) + len(value) bytes)
//	+----------+------+---------------+---------------+--------+-----------+-----------+
//	| ExpireAt | klen | vlen|kind|raw | clock | class | ExpIdx | key bytes | value ... |
//	|    8     |  4   |  29 | 2  | 1  |  24   |   8   |   4    |           |           |
//	+----------+------+---------------+---------------+--------+-----------+-----------+
//
// The 24-bit clock is, as Redis's object clock, the access time in
// seconds (OBJECT IDLETIME, LRU eviction) or, under an LFU policy, the
// LFU state (16-bit decrement minutes, 8-bit counter). The slots live in
// 1 MiB pages mapped outside the Go heap (arena.go): the garbage
// collector neither traces them nor counts them in its heap goal, so the
// Go heap holds only buffers and the collector's cost no longer grows
// with the data set. A slot is named by a 32-bit handle (page and offset
// in 8-byte units; 32 GiB per shard); pages are aligned to their size and
// keep their index in their first word, so an entry's handle is found
// from its address. Freed slots go to per-class free lists and are reused
// by the next allocation of that class. A small hash, intset or sorted
// set in its compact encoding lives in its slot like a string (kind
// packed, packed.go): commands see it as an object, unpacked on access
// and packed again after the command. Larger collections and key-job
// values sit in a per-shard side table of Go values indexed from the
// entry (kind obj); strings longer than a slot sit in a side table of
// byte slices (kind ext). A *entry is a pointer
// into a page: it is valid until the entry is freed or moved (a value
// outgrowing its slot moves it, and the functions that can move one
// return the new pointer), and is never kept past a command.
//
// Each database indexes its keys with an open-addressing table of 8-byte
// slots (dict.go): the high 32 bits of the key's hash beside its handle.
// A probe compares hashes without touching entries; resizing never reads
// the arena; the table holds no pointers. A key's home slot is the top
// bits of its hash and collisions probe linearly; deletion shifts later
// slots back, so there are no tombstones. Because homes are ordered by the
// hash's high bits, a SCAN cursor is a position in hash space: keys are
// visited in hash order, and a key present for a whole scan is returned
// however the table doubles or halves between calls. Snapshots use the
// same property (snapshot.go): each database's hash space is cut into
// buckets when a snapshot starts, and a bucket is written before its
// first mutation, whatever the table does meanwhile.
//
// The figures behind this choice come from BenchmarkLayout (1M keys of 14
// bytes with 16-byte values; docs/architecture.md has the table): the
// arena and table hold about 73 bytes per key and a full collection takes
// a few milliseconds, where a Go map[string][]byte holds about 133 bytes
// per key and the previous chained table of Go structs 136, with
// collections of hundreds of milliseconds that every cycle repeats. Index
// tables of a page or more are mapped outside the Go heap as well.
//
// # Accounting and eviction
//
// Each database keeps the exact bytes its entries take (slot sizes, side
// values, and each object's heap as its type measures it, brought up to
// date after every command that touched it: memacct.go); used_memory of
// a shard is that plus its index structures (memory.go). maxmemory is split evenly across the
// shards, and a shard over its share evicts by maxmemory-policy before
// write commands and at its ticks, or refuses denyoom commands with -OOM.
package keyspace
