// Package persistence moves a shard's bytes to disk and back: write-ahead
// log (WAL) records and segments, group commit, fsync policies, snapshots
// and recovery. It never interprets commands; the keyspace encodes payloads
// (with AppendBytes, AppendI64, ... and PayloadReader) and applies them.
// This comment is the format specification; docs/wal-format.md mirrors it.
// Every constant below is part of the on-disk format and must not change.
//
// # Usage
//
// Start-up of one shard:
//
//	seq, _, err := LoadSnapshot(fs, dir, shard, log, applyEntry)
//	st, err := Recover(fs, dir, shard, seq, repair, log, applyRecord)
//	w, err := OpenWAL(fs, dir, shard, st.LastSeq, WALOptions{Policy: FsyncAlways})
//
// Then, on the shard goroutine, per drain: Append (or Begin/Put*/End) one
// record per mutation, then Commit(c) once. When Commit returns false the
// replies wait for c.Committed(err). All file access goes through an FS:
// OSFS in production, MemFS (with CrashClone) and ErrorFS in tests.
//
// # Record framing
//
// A segment is a sequence of records with no file header and no padding.
// All integers are little-endian.
//
//	offset 0       4       8               16      18  19
//	       +-------+-------+---------------+-------+---+-----------------+
//	       |length |crc32c |     seq       |  db   |op |  payload ...    |
//	       | u32   | u32   |     u64       |  u16  |u8 | length-11 bytes |
//	       +-------+-------+---------------+-------+---+-----------------+
//
// Fields:
//
//   - length counts the bytes after the crc field: 11 + len(payload). It
//     must be in [11, MaxRecordLength] (1 GiB); anything else is damage, so
//     a garbage length never causes a huge allocation.
//   - crc32c is CRC-32C (Castagnoli) over the 4 length bytes followed by
//     every byte after the crc field (seq, db, op, payload). Covering the
//     length makes a torn or flipped length detectable even when the bogus
//     frame still fits in the file.
//   - seq is the shard's record sequence, starting at 1 and increasing by
//     exactly 1 from record to record and across segments.
//   - db is the database index, op an Opcode.
//
// # Payload fields
//
// Payloads are concatenations of fields: "bytes" is a uvarint length then
// the bytes; u8, u16, u64 are fixed width; i64 is a u64 in two's
// complement. Deadlines are absolute unix milliseconds.
//
// # Opcodes
//
// The table is append-only: a released number never changes meaning and is
// never reused. 12–19 and 27–52 are reserved.
//
//	 1 Set               key bytes, value bytes, deadline i64 (0 = none)
//	                     (SET family, INCR family result, GETSET, MSET per key,
//	                     SETNX, INCRBYFLOAT)
//	 2 Del               key bytes
//	 3 Expire            key bytes, deadline i64 (0 = persist)
//	 4 FlushDB           empty; the record's db names the database
//	 5 FlushAll          empty
//	 6 SwapDB            db1 u16, db2 u16
//	 7 Move              key bytes, target db u16
//	 8 Rename            src bytes, dst bytes
//	 9 Copy              src bytes, dst bytes, target db u16, replace u8
//	10 Append            key bytes, suffix bytes
//	11 SetRange          key bytes, offset u64, bytes
//	20 Lease             key bytes, token u64, hold deadline i64
//	                     (LEASE grant; the key itself keeps its deadline)
//	21 Release           key bytes, token u64 (RELEASE of a held lease)
//	22 SemaphoreAcquire  key bytes, token u64, holder deadline i64,
//	                     key deadline i64 (the latest holder deadline)
//	23 SemaphoreRelease  key bytes, token u64, key deadline i64; the
//	                     release of the last holder is a Del instead
//	24 SetV              key bytes, value bytes, version u64, deadline i64
//	25 Limit             key bytes, admitted count u64, window deadline i64
//	26 Once              key bytes, deadline i64
//	53 IdempotencyPut    key bytes, value bytes (packed IDEM record, see
//	                     docs/idem-format.md), deadline i64; creation and
//	                     completion alike, value and deadline in one record
//	80 SetAdd            key bytes, count u64, count × member bytes (SADD)
//	81 SetRemove         key bytes, count u64, count × member bytes (SREM,
//	                     SPOP with the popped members); an emptied set is deleted
//	82 SetStore          key bytes, set encoding (types/set v1) to the end:
//	                     the value of a *STORE, no deadline
//	83 SetMove           src bytes, dst bytes, member bytes (SMOVE)
//	84 ZAdd              key bytes, count u64, count × (score bits u64,
//	                     member bytes): the scores ZADD/ZINCRBY wrote
//	85 ZRemove           key bytes, count u64, count × member bytes (ZREM,
//	                     range removals and pops list what went)
//	86 ZStore            key bytes, sorted set encoding (types/zset v1) to
//	                     the end: the value of a Z*STORE, no deadline
//
// TAKE and INCRBY … MAX write Set like INCR; GETEX writes Expire. Key-job
// records are physical like the others: replay sets the logged token,
// count, version or record and never reads the clock.
//
// testdata/golden-v1.wal holds one record of each released layout and
// testdata/golden-collections-v1.wal one of each set, sorted set and Bloom layout; tests decode them, so
// the formats cannot change silently.
//
// # Segments
//
// Shard i's log is a series of files in the data directory named after the
// sequence of their first record, zero-padded to 20 digits:
//
//	shard-007-wal-00000000000000000001.log
//
// OpenWAL always starts a new segment named lastSeq+1. A segment is rotated
// once its size reaches WALOptions.SegmentSize (64 MiB by default) at the
// next batch: the old file is fsynced and closed, the new one created and
// the directory fsynced. Every segment but the last is therefore complete
// and synced. An empty segment is valid. RemoveSegmentsBefore(seq) deletes
// segments whose records are all <= seq. Files ending in ".broken" are
// ignored.
//
// # Commit and fsync policies
//
// FsyncAlways: Commit hands the batch to the WAL's sync goroutine, which
// writes all queued batches with one write, fsyncs once and notifies the
// Committers in commit order (group commit). FsyncEverySec: Commit writes
// the batch; a background goroutine fsyncs about once per second if
// anything was written. FsyncNo: Commit writes; fsync only on rotation and
// Close. A failed write or fsync is sticky (WAL.Err): nothing more is
// written and every later Commit reports the error.
//
// # Recovery
//
// Recover reads the segments from the one holding afterSeq+1 (the loaded
// snapshot's sequence plus one) and applies records with seq > afterSeq.
// In the last segment a torn tail is expected after a crash and is
// truncated away (the truncation is fsynced and logged with file and
// offset). A record at offset off of the last segment is a torn tail when:
//
//   - fewer than 19 bytes remain (short header);
//   - its frame extends past the end of the file (short read);
//   - every byte from off to the end of the file is zero (pre-allocated or
//     unflushed blocks), including a zero length;
//   - its CRC does not match and it is the final record: the frame ends at
//     the end of the file or only zero bytes follow it.
//
// Anything else is damage and returns a *CorruptionError naming the file
// and offset (errors.Is(err, ErrCorrupt)): a bad CRC or length before
// further data, any short or bad record in a non-last segment, a sequence
// that is not the previous plus one, a segment whose name does not match
// its first record, or a first segment that starts after afterSeq+1
// (missing records). With repair=true damage is cut instead: the bytes
// from the bad offset are copied to "<file>.broken", the file is truncated
// there and fsynced, later segments are renamed to "<file>.broken", the
// directory is fsynced, and the error is logged. Missing records are never
// repaired.
//
// # Snapshots
//
// A snapshot of shard i at WAL sequence seq is written to
// "shard-<iii>-snap-<seq>.tmp", fsynced, renamed to
// "shard-<iii>-snap-<seq>.snap" (seq zero-padded to 20 digits) and the
// directory fsynced; then older snapshots and stale .tmp files of the
// shard are deleted. Layout (little-endian):
//
//	header  (24 bytes)
//	+----------+---------+-------+-------+------------+
//	| RUVIOSNP | version | shard |  seq  | header crc |
//	| 8 bytes  |   u16=1 |  u16  |  u64  | u32        |
//	+----------+---------+-------+-------+------------+
//	entry   (repeated; tag 0x01)
//	+-----+-----+------+----------+-----------+-------------+
//	|0x01 | db  | kind | deadline | key bytes | value bytes |
//	| u8  | u16 | u8   | i64      | uvarint+n | uvarint+n   |
//	+-----+-----+------+----------+-----------+-------------+
//	trailer (21 bytes)
//	+-----+-------+--------+----------+
//	|0xFF | count |  crc   | RUVIOEND |
//	| u8  | u64   |  u32   | 8 bytes  |
//	+-----+-------+--------+----------+
//
// The header crc is CRC-32C of the 20 bytes before it. The trailer crc is
// CRC-32C of every byte of the file before the crc field (header, entries,
// trailer tag and count). kind is opaque to this package (the keyspace's
// value type); value is the keyspace's encoding. LoadSnapshot verifies
// header, trailer and CRC before passing any entry on; if the newest
// snapshot fails, it is logged and the next older one is used. With no
// valid snapshot LoadSnapshot reports found=false and recovery starts from
// sequence 0, which fails with a CorruptionError if the WAL no longer
// starts at 1.
package persistence
