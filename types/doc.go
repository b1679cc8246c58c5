// Package types is the root of Ruvio's data structures: one package per
// Redis value type (list, hash, set, zset, bloom) plus num for Redis's
// number rules, and rdb for Redis's own serialization (DUMP payloads and
// RDB files, for RESTORE and import-rdb). None of them knows about RESP, commands, shards or the
// keyspace; the command families in keyspace/ sit on top of them.
//
// Every package follows the same conventions:
//
//   - A small collection is a compact, pointer-free []byte (a packed layout
//     like Redis's listpack or intset) that the keyspace can hold inline; a
//     large one is a Go structure held by handle. Each type converts from the
//     compact form at the thresholds Redis 7.0 uses, passed in as a Config.
//   - Every value has a versioned binary encoding (MarshalBinary /
//     Unmarshal) documented in its package comment, for snapshots and WAL.
//   - MemoryUsage reports the bytes a value holds, computed from its layout.
//   - Random choices take a math/rand/v2 Source, so the same source yields
//     the same choices (the WAL records what was chosen anyway).
//   - Byte slices returned by accessors alias the value's storage and stay
//     valid until the next mutation of that value, unless documented
//     otherwise; callers copy if they keep them.
package types
