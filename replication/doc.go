// Package replication streams a primary shard's write-ahead log to its
// replicas and keeps a replica's shards following their primary's.
//
// A replica follows a primary shard by shard: replica shard i connects to
// the primary's shard i (port + i), authenticates when the primary has a
// password, and sends
//
//	REPLSYNC <shards> <shard> <after-sequence> <history-id>
//
// after REPLCONF ruvio-run-id <run-id>, which the primary answers with a
// simple string of run ids: its own, then those of the primaries it
// replicates from, nearest first. A replica that finds its own run id in
// the list refuses the primary (a replication loop), and so does the
// primary when it finds the replica's; a primary that is itself a replica
// refuses REPLSYNC with NOMASTERLINK while its own link is down, as Redis
// refuses SYNC. The REPLSYNC names its shard count (a mismatch is
// refused), its shard, the last sequence its own log holds and the id of
// the history that log belongs to. Each shard's log has a history id,
// random for a new data directory, adopted from the primary by a full
// resync and renewed when a replica is promoted: records are resumed from
// a sequence only within one history, anything else gets a full resync. From then on the primary writes frames on
// the connection and the replica sends REPLCONF ACK <sequence> commands,
// each naming the last sequence its log has made durable (under its own
// fsync policy); the primary's WAIT counts those.
//
// # Frames
//
// Every message of the stream is one frame (all integers little-endian):
//
//	+------+--------+--------+-----------------+
//	| type | length | crc32c |    payload      |
//	|  u8  |  u32   |  u32   |  length bytes   |
//	+------+--------+--------+-----------------+
//
// crc32c (Castagnoli) covers the type, the length and the payload. A frame
// whose checksum does not match is refused with an error naming the last
// sequence applied before it; nothing of it is applied. Types:
//
//   - 'C' continue: after u64. Partial resync: the records after `after`
//     follow, read from the primary's log.
//   - 'F' full resync: seq u64, size u64, then the primary shard's history
//     id to the end (the replica adopts it). A snapshot of the shard at seq
//     (the snapshot file, size bytes, in 'D' frames) follows, then the
//     records after seq.
//   - 'D' data: a piece of the snapshot file.
//   - 'R' records: one or more WAL records exactly as the log stores them
//     (each with its own CRC), in sequence order.
//   - 'P' ping: the primary's durable sequence u64, sent when the stream
//     is idle, so the replica can tell its lag and that the link is alive.
//
// When the REPLSYNC itself is refused, the primary answers with a RESP
// error line ("-ERR ...") instead of a first frame.
//
// The primary ships only records its own log has made durable, so a
// replica is never ahead of what the primary recovers after a crash.
// A replica applies records with the keyspace's recovery code (no command
// runs again) and appends them to its own log under their primary
// sequence numbers; it never writes records of its own (no expiry or
// eviction deletions: those arrive from the primary).
package replication
