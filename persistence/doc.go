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
//	snap, err := LoadSnapshots(fs, dir, shard, log, SnapshotLoadOptions{Repair: repair}, applyEntry)
//	st, err := Recover(fs, dir, shard, snap.Seq, repair, log, applyRecord)
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
//	                     (zero-pads to offset; creates a missing key)
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
//	54 Batch             count uvarint, then count entries of db u16, op u8,
//	                     payload bytes: the mutations of one atomic unit
//	                     (an EXEC) in one record; see below
//	60 HashSet           key bytes, count u64, count × (field, value bytes)
//	61 HashDel           key bytes, count u64, count × field bytes
//	62 ListPush          key bytes, where u8 (0 head, 1 tail), count u64,
//	                     count × element bytes
//	63 ListPop           key bytes, where u8, count u64
//	64 ListSet           key bytes, index i64, element bytes
//	65 ListInsert        key bytes, after u8, pivot bytes, element bytes
//	66 ListRem           key bytes, count i64, element bytes
//	67 ListTrim          key bytes, start i64, stop i64
//	68 ListMove          src bytes, dst bytes, from u8, to u8
//	70 HashFieldExpire   key bytes, deadline i64 (0 = none), count u64,
//	                     count × field bytes: the fields get the deadline
//	71 HashSetEx         key bytes, mode u8 (0 deadline, 1 keep), deadline
//	                     i64, count u64, count × (field, value bytes)
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
//	87 BloomAdd          key bytes, rate bits u64, capacity u64, expansion
//	                     u64, nonscaling u8, count u64, count × item bytes
//
// Stream records (an id is ms u64 then seq u64; lists are count u64 then
// the ids). Each states what the command did, never what it was asked:
//
//	100 StreamAdd           key, id (the one assigned), due i64 (the DELAY
//	                        hold's absolute time, 0 = none), trim-through id
//	                        (0-0 = no trim), count u64, count × (field, value)
//	101 StreamDel           key, list of ids removed by XDEL
//	102 StreamTrim          key, id: every entry up to it is removed
//	103 StreamSetID         key, last id, entries added u64, max deleted id
//	104 StreamGroupCreate   key, group, last id, entries read i64 (creates
//	                        an empty stream when the key is absent)
//	105 StreamGroupSetID    key, group, last id, entries read i64
//	106 StreamGroupDestroy  key, group
//	107 StreamConsumerCreate key, group, consumer, seen time i64
//	108 StreamConsumerDel   key, group, consumer
//	109 StreamGroupRead     key, group, consumer, time i64, noack u8, last id,
//	                        entries read i64, delivered ids, deferred ids
//	                        (held entries passed over), resolved ids
//	                        (deferred entries delivered or gone)
//	110 StreamClaim         key, group, consumer, seen time i64, count u64,
//	                        count × (id, delivery time i64, delivery count u64)
//	111 StreamAck           key, group, list of ids leaving the PEL
//
// Restore (RESTORE of anything but a string):
//
//	120 Restore          key bytes, deadline i64, snapshot value kind u8,
//	                     the value's snapshot encoding to the end: the key
//	                     now holds that value (RESTORE of a collection;
//	                     a restored string is a Set)
//
// TAKE and INCRBY … MAX write Set like INCR; GETEX writes Expire. Key-job
// records are physical like the others: replay sets the logged token,
// count, version or record and never reads the clock.
//
// # Batches
//
// A Batch record (54) holds the records of one unit that must be applied
// whole, such as the writes of a MULTI/EXEC transaction, each entry being
// another opcode's db, op and payload without a frame. The record's own db
// is 0 and unused; entries may not be Batches. Being one record with one
// CRC, a Batch torn at the tail is truncated whole like any torn record,
// and an intact one is applied whole: recovery needs no begin/end pairing,
// and a stream that ships records ships the unit whole. A unit of a single
// mutation is written as that plain record. All entries share the
// record's sequence number. The keyspace decodes every entry before it
// applies the first (DecodeBatch).
//
// testdata/golden-v1.wal holds one record of each released layout and
// testdata/golden-collections-v1.wal one of each set, sorted set and Bloom layout,
// testdata/golden-streams-v1.wal one of each stream layout,
// testdata/golden-restore-v1.wal a Restore record; tests decode them, so
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
// Committers in commit order (group commit). Before it starts a group it
// may wait briefly for writers about to arrive (WALOptions.MaxCommitDelay,
// the commitDelay policy): the writers the last fsync released plus those
// that queued during it, when that wait is bounded by a fraction of the
// measured fsync time; a lone writer is never held back. A delay only
// postpones a sync: no Committer is told before its batch is synced. A
// lone client (three commits in a row from one client, as the Committer's
// SoleWriter says, with nothing in flight) skips the sync goroutine: Commit
// writes and fsyncs on the calling goroutine and returns true, sparing the
// hand-off to the sync goroutine and, for a batch a reactor ran inline, the
// reply's hand-off back to the reactor.
// FsyncEverySec: Commit writes
// the batch; a background goroutine fsyncs about once per second if
// anything was written. FsyncNo: Commit writes; fsync only on rotation and
// Close. A failed write or fsync is sticky (WAL.Err): nothing more is
// written and every later Commit reports the error.
//
// # Recovery
//
// Recover reads the segments from the one holding afterSeq+1 (the loaded
// snapshot's sequence plus one) and applies records with seq > afterSeq.
// It reads until a record does not decode. In any segment but the last
// that is damage. In the last one it is the clean end, a torn tail, or
// damage, told apart by what a crash can leave: the log only appends, and
// a write cut short leaves part of its bytes and then the segment's
// preallocated zeros (or the end of the file), never other bytes. From the
// offset off where decoding stopped:
//
//   - every byte to the end of the file is zero: the clean end. The zeros
//     are cut silently (RecoveryStats.ZeroBytes).
//   - the non-zero bytes after off all lie within the frame the length at
//     off announces, that frame is incomplete (it runs past the end of the
//     file or ends in zeros), and no intact record with a later sequence
//     starts among them (length in range, frame inside the file, CRC
//     good, sequence in [expected, expected + what fits before it]): a torn
//     tail, one record written in part. A length below 11 counts when
//     nothing non-zero follows its 4 bytes (its high bytes were not
//     written). It is cut with the warning "last WAL segment ends with an
//     incomplete record (N bytes) written before a crash; dropped"
//     (RecoveryStats.TruncatedBytes).
//   - anything else is damage: a length over MaxRecordLength, data after a
//     complete frame, an intact later record inside the announced frame,
//     zeros followed by data.
//
// Cuts are fsynced. Damage returns a *CorruptionError naming the file and
// offset (errors.Is(err, ErrCorrupt)); so do a sequence that is not the
// previous plus one, a segment whose name does not match its first record,
// and a first segment that starts after afterSeq+1 (missing records,
// CorruptionError.MissingRecords). With repair=true damage is cut instead:
// the bytes from the bad offset are copied to "<file>.broken", the file is
// truncated there and fsynced, later segments are renamed to
// "<file>.broken", the directory is fsynced, and what was cut (bytes, the
// intact records found after the damaged one and their sequences, later
// segments) is logged. Missing records are never repaired.
//
// # Snapshots
//
// A snapshot of shard i at WAL sequence seq is written to
// "shard-<iii>-snap-<seq>.tmp", fsynced, renamed to
// "shard-<iii>-snap-<seq>.snap" (seq zero-padded to 20 digits) and the
// directory fsynced; then older snapshots and stale .tmp files of the
// shard are deleted. Layout of version 2 (little-endian):
//
//	header  (24 bytes)
//	+----------+---------+-------+-------+------------+
//	| RUVIOSNP | version | shard |  seq  | header crc |
//	| 8 bytes  |   u16=2 |  u16  |  u64  | u32        |
//	+----------+---------+-------+-------+------------+
//	entry   (repeated; tag 0x02)
//	+-----+-----+------+----------+-----------+-------------+-----------+
//	|0x02 | db  | kind | deadline | key bytes | value bytes | entry crc |
//	| u8  | u16 | u8   | i64      | uvarint+n | uvarint+n   | u32       |
//	+-----+-----+------+----------+-----------+-------------+-----------+
//	trailer (21 bytes)
//	+-----+-------+--------+----------+
//	|0xFF | count |  crc   | RUVIOEND |
//	| u8  | u64   |  u32   | 8 bytes  |
//	+-----+-------+--------+----------+
//
// The header crc is CRC-32C of the 20 bytes before it. The entry crc is
// CRC-32C of the entry from its tag through the value. The trailer crc is
// CRC-32C of every byte of the file before the crc field (header, entries,
// trailer tag and count). kind is opaque to this package (the keyspace's
// value type); value is the keyspace's encoding. Version 1 is the same
// with version 1 in the header and entries tagged 0x01 without the entry
// crc; it is still read (testdata/golden-v1.snap).
//
// LoadSnapshots verifies header, trailer and file CRC before passing any
// entry on, and then does not check entry CRCs again. When the newest
// snapshot fails, the damage is located (the first entry that does not
// parse or whose crc does not match, or the header or trailer field) and
// logged; then an older valid snapshot is used if the WAL continues right
// after it, else the WAL alone if it starts at sequence 1 (the damaged
// file is renamed to "<file>.broken" in both cases), else with repair the
// intact entries before the damage are loaded (SnapshotLoad.Salvaged; the
// file is copied to "<file>.broken" and the loss counted), else a
// *SnapshotDamagedError says what is damaged and what the options are.
// With no snapshot at all recovery starts from sequence 0, which fails
// with a CorruptionError if the WAL no longer starts at 1.
package persistence
