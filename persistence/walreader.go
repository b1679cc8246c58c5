package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// ErrUnavailable is returned by OpenWALReader and WALReader.Next when the
// log no longer holds the records asked for (a snapshot made the segments
// that held them go): the reader must start from a snapshot instead.
var ErrUnavailable = errors.New("persistence: records no longer in the WAL")

// WALReader reads the records of a live shard's log in order, for a
// replication sender. It follows the segments as the WAL rotates them and
// never returns a record past the sequence it is told is durable, so it
// only reads bytes the WAL has finished writing. It is used by one
// goroutine and is independent of the WAL (it opens the files itself).
type WALReader struct {
	fs    FS
	dir   string
	shard int
	f     File
	first uint64 // first sequence of the open segment
	off   int64
	next  uint64 // sequence of the next record to return
	hdr   [RecordHeaderSize]byte
	// chunk holds bytes read ahead from the segment at chunkOff, so a
	// run of small records costs one read, not two per record.
	chunk    []byte
	chunkOff int64
}

// readAheadSize is how much of a segment the reader fetches at once.
const readAheadSize = 256 << 10

// readAt fills b from the segment at off, through the read-ahead chunk.
// It returns how many bytes it could read (fewer at the end of what the
// segment holds) and a read error other than EOF.
func (r *WALReader) readAt(b []byte, off int64) (int, error) {
	if off >= r.chunkOff && off+int64(len(b)) <= r.chunkOff+int64(len(r.chunk)) {
		return copy(b, r.chunk[off-r.chunkOff:]), nil
	}
	if len(b) > readAheadSize {
		n, err := r.f.ReadAt(b, off)
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return n, err
	}
	if cap(r.chunk) < readAheadSize {
		r.chunk = make([]byte, readAheadSize)
	}
	n, err := r.f.ReadAt(r.chunk[:readAheadSize], off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	r.chunk, r.chunkOff = r.chunk[:n], off
	return copy(b, r.chunk), err
}

// OpenWALReader returns a reader positioned on the record after `after`.
// It fails with ErrUnavailable when no segment holds that record.
func OpenWALReader(fs FS, dir string, shard int, after uint64) (*WALReader, error) {
	r := &WALReader{fs: fs, dir: dir, shard: shard, next: after + 1}
	segs, err := listSegments(fs, dir, shard)
	if err != nil {
		return nil, err
	}
	k := -1
	for i, s := range segs {
		if s.firstSeq <= r.next {
			k = i
		}
	}
	if k < 0 {
		return nil, fmt.Errorf("%w: record %d (shard %d)", ErrUnavailable, r.next, shard)
	}
	if err := r.open(segs[k]); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *WALReader) open(s segmentInfo) error {
	f, err := r.fs.Open(s.path)
	if err != nil {
		return fmt.Errorf("%w: open %s: %v", ErrUnavailable, s.path, err)
	}
	if r.f != nil {
		_ = r.f.Close()
	}
	r.f, r.first, r.off = f, s.firstSeq, 0
	r.chunk, r.chunkOff = r.chunk[:0], 0
	return nil
}

// Next appends to dst the encoded records from the reader's position up
// to and including sequence upto (the WAL's durable sequence), at most
// about max bytes, and returns dst and the sequence of the last record
// appended (the one before the reader's position when none was). Records
// before the position are skipped. Reaching the bytes the WAL has not
// written yet is not an error: Next returns what it has, and a later call
// goes on from there.
func (r *WALReader) Next(dst []byte, upto uint64, max int) ([]byte, uint64, error) {
	start := len(dst)
	fresh := false // the last record was read past the read-ahead
	for r.next <= upto && len(dst)-start < max {
		n, err := r.readAt(r.hdr[:], r.off)
		if n < RecordHeaderSize || binary.LittleEndian.Uint32(r.hdr[:]) == 0 {
			// The read-ahead may predate what the WAL wrote since.
			r.chunk = r.chunk[:0]
			if err == nil && !fresh {
				fresh = true
				continue
			}
			if err != nil {
				return dst, r.next - 1, fmt.Errorf("persistence: read %s at offset %d: %w", r.f.Name(), r.off, err)
			}
			// The end of what this segment holds: a later one may go on.
			moved, err := r.nextSegment()
			if err != nil {
				return dst, r.next - 1, err
			}
			if !moved {
				break
			}
			fresh = false
			continue
		}
		l := binary.LittleEndian.Uint32(r.hdr[:])
		if l < minRecordLength || l > MaxRecordLength {
			return dst, r.next - 1, &CorruptionError{File: r.f.Name(), Offset: r.off, Reason: fmt.Sprintf("bad length %d", l)}
		}
		seq := binary.LittleEndian.Uint64(r.hdr[8:])
		if seq > upto && seq >= r.next {
			break
		}
		total := int(l) + 8
		at := len(dst)
		dst = append(dst, make([]byte, total)...)
		if n, err := r.readAt(dst[at:], r.off); n < total {
			dst = dst[:at]
			r.chunk = r.chunk[:0]
			if err == nil && !fresh {
				fresh = true
				continue
			}
			if err != nil {
				return dst, r.next - 1, fmt.Errorf("persistence: read %s at offset %d: %w", r.f.Name(), r.off, err)
			}
			break // written in part so far
		}
		rec, _, err := DecodeRecord(dst[at:])
		if err != nil {
			dst = dst[:at]
			r.chunk = r.chunk[:0]
			if !fresh {
				// The read-ahead may hold a preallocated region the WAL
				// has written since: read again before judging.
				fresh = true
				continue
			}
			if seq <= upto && seq == r.next {
				return dst, r.next - 1, &CorruptionError{File: r.f.Name(), Offset: r.off, Reason: err.Error()}
			}
			break
		}
		fresh = false
		r.off += int64(total)
		switch {
		case rec.Seq < r.next:
			dst = dst[:at] // before the position: skip
		case rec.Seq == r.next:
			r.next++
		default:
			dst = dst[:at]
			return dst, r.next - 1, fmt.Errorf("%w: record %d follows %d in %s", ErrUnavailable, rec.Seq, r.next-1, r.f.Name())
		}
	}
	return dst, r.next - 1, nil
}

// nextSegment moves to the segment that starts at r.next, if one exists.
func (r *WALReader) nextSegment() (bool, error) {
	segs, err := listSegments(r.fs, r.dir, r.shard)
	if err != nil {
		return false, err
	}
	for _, s := range segs {
		if s.firstSeq > r.first && s.firstSeq == r.next {
			return true, r.open(s)
		}
		if s.firstSeq > r.first && s.firstSeq < r.next {
			// A segment the reader skipped past cannot exist: damage.
			return false, fmt.Errorf("%w: segment %s starts inside records already read", ErrCorrupt, s.path)
		}
	}
	return false, nil
}

// Close closes the segment the reader has open.
func (r *WALReader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// LatestSnapshot returns the path and sequence of shard's newest snapshot
// file in dir; ok is false when there is none.
func LatestSnapshot(fs FS, dir string, shard int) (path string, seq uint64, ok bool, err error) {
	names, err := fs.List(dir)
	if err != nil {
		return "", 0, false, fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	for _, name := range names {
		if s, good := parseName(name, shard, "snap", ".snap"); good && (!ok || s > seq) {
			path, seq, ok = filepath.Join(dir, name), s, true
		}
	}
	return path, seq, ok, nil
}

// RemoveShardFiles deletes every WAL segment and snapshot (and stale
// snapshot .tmp file) of shard in dir and fsyncs the directory: a replica
// does it before it installs a snapshot of another history.
func RemoveShardFiles(fs FS, dir string, shard int) error {
	names, err := fs.List(dir)
	if err != nil {
		return fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	for _, name := range names {
		_, seg := parseName(name, shard, "wal", ".log")
		_, snap := parseName(name, shard, "snap", ".snap")
		_, tmp := parseName(name, shard, "snap", ".tmp")
		if seg || snap || tmp {
			if err := fs.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("persistence: remove %s: %w", name, err)
			}
		}
	}
	if err := fs.SyncDir(dir); err != nil {
		return fmt.Errorf("persistence: sync dir %s: %w", dir, err)
	}
	return nil
}
