package persistence

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strconv"
	"strings"
)

// Record framing constants. They are part of the on-disk format and must
// not be changed.
const (
	// RecordHeaderSize is the size of a record header:
	// length u32, crc u32, seq u64, db u16, opcode u8.
	RecordHeaderSize = 19
	// minRecordLength is the length field of a record with an empty payload
	// (seq + db + opcode).
	minRecordLength = RecordHeaderSize - 8
	// MaxRecordLength bounds the length field; anything larger is corrupt.
	MaxRecordLength = 1 << 30
	// MaxPayloadSize is the largest payload Append accepts.
	MaxPayloadSize = MaxRecordLength - minRecordLength
)

// castagnoli is the CRC32C table. It is written once at init and only read.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one decoded WAL record. Payload aliases the reader's buffer and
// is valid only for the duration of the apply call that receives it.
type Record struct {
	Seq     uint64
	DB      uint16
	Op      Opcode
	Payload []byte
}

// AppendRecord appends the encoding of r to dst and returns the result. It
// returns ErrRecordTooLarge (wrapped) if the payload exceeds MaxPayloadSize.
func AppendRecord(dst []byte, r Record) ([]byte, error) {
	if len(r.Payload) > MaxPayloadSize {
		return dst, fmt.Errorf("%w: payload of %d bytes", ErrRecordTooLarge, len(r.Payload))
	}
	start := len(dst)
	dst = appendHeader(dst, r.Seq, r.DB, r.Op)
	dst = append(dst, r.Payload...)
	finishRecord(dst[start:])
	return dst, nil
}

// appendHeader appends a header with placeholder length and CRC.
func appendHeader(dst []byte, seq uint64, db uint16, op Opcode) []byte {
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = binary.LittleEndian.AppendUint16(dst, db)
	return append(dst, byte(op))
}

// finishRecord fills in the length and CRC of the complete record rec.
func finishRecord(rec []byte) {
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(rec)-8))
	binary.LittleEndian.PutUint32(rec[4:8], recordCRC(rec))
}

// recordCRC is CRC32C over the length field followed by every byte after
// the CRC field.
func recordCRC(rec []byte) uint32 {
	return crc32.Update(lengthCRC(rec[0:4]), castagnoli, rec[8:])
}

// lengthCRC is crc32.Update(0, castagnoli, length) for the 4-byte length
// field, byte by byte through the table: for 4 bytes that is a few
// nanoseconds, where a call of crc32.Update costs more than the record's
// payload does (a record is written per write command).
func lengthCRC(length []byte) uint32 {
	c := ^uint32(0)
	for _, b := range length[:4] {
		c = castagnoli[byte(c)^b] ^ c>>8
	}
	return ^c
}

// DecodeRecord decodes the record at the start of b. It returns the record
// (Payload aliases b) and the number of bytes consumed. Errors wrap
// ErrCorrupt; a b shorter than the frame returns an error wrapping
// ErrCorrupt with reason "short".
func DecodeRecord(b []byte) (Record, int, error) {
	if len(b) < RecordHeaderSize {
		return Record{}, 0, fmt.Errorf("%w: short header (%d bytes)", ErrCorrupt, len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	if n < minRecordLength || n > MaxRecordLength {
		return Record{}, 0, fmt.Errorf("%w: bad length %d", ErrCorrupt, n)
	}
	total := int(n) + 8
	if len(b) < total {
		return Record{}, 0, fmt.Errorf("%w: short record (%d of %d bytes)", ErrCorrupt, len(b), total)
	}
	rec := b[:total]
	if got, want := recordCRC(rec), binary.LittleEndian.Uint32(rec[4:]); got != want {
		return Record{}, 0, fmt.Errorf("%w: crc mismatch (computed %08x, stored %08x)", ErrCorrupt, got, want)
	}
	return Record{
		Seq:     binary.LittleEndian.Uint64(rec[8:]),
		DB:      binary.LittleEndian.Uint16(rec[16:]),
		Op:      Opcode(rec[18]),
		Payload: rec[RecordHeaderSize:total:total],
	}, total, nil
}

// SegmentName returns the file name of shard's WAL segment whose first
// record has sequence firstSeq: "shard-007-wal-00000000000000000001.log".
func SegmentName(shard int, firstSeq uint64) string {
	return fmt.Sprintf("shard-%03d-wal-%020d.log", shard, firstSeq)
}

// SnapshotName returns the final file name of shard's snapshot at seq:
// "shard-007-snap-00000000000000000042.snap".
func SnapshotName(shard int, seq uint64) string {
	return fmt.Sprintf("shard-%03d-snap-%020d.snap", shard, seq)
}

// parseName parses "shard-<iii>-<kind>-<20 digits><ext>" and returns the
// sequence number.
func parseName(name string, shard int, kind, ext string) (uint64, bool) {
	prefix := fmt.Sprintf("shard-%03d-%s-", shard, kind)
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ext) {
		return 0, false
	}
	digits := name[len(prefix) : len(name)-len(ext)]
	if len(digits) != 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	return v, err == nil
}

type segmentInfo struct {
	path     string
	firstSeq uint64
}

// listSegments returns shard's segments in dir ordered by first sequence.
func listSegments(fs FS, dir string, shard int) ([]segmentInfo, error) {
	names, err := fs.List(dir)
	if err != nil {
		return nil, fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	var segs []segmentInfo
	for _, name := range names {
		if seq, ok := parseName(name, shard, "wal", ".log"); ok {
			segs = append(segs, segmentInfo{path: filepath.Join(dir, name), firstSeq: seq})
		}
	}
	// Names are zero-padded, so the sorted listing is already in order.
	return segs, nil
}

// SealedWALBytes is the total size of shard's WAL segments in dir except
// the newest one, for sizing tables before recovery replays them. Sealed
// segments hold records only; the newest may end in preallocated zeros.
func SealedWALBytes(fs FS, dir string, shard int) (int64, error) {
	segs, err := listSegments(fs, dir, shard)
	if err != nil || len(segs) < 2 {
		return 0, err
	}
	var total int64
	for _, s := range segs[:len(segs)-1] {
		n, err := fs.Stat(s.path)
		if err != nil {
			return 0, fmt.Errorf("persistence: size of %s: %w", s.path, err)
		}
		total += n
	}
	return total, nil
}
