package persistence

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"sync/atomic"

	"go.uber.org/zap"
)

// Snapshot format constants. They are part of the on-disk format and must
// not be changed.
const (
	snapMagic       = "RUVIOSNP"
	snapEndMagic    = "RUVIOEND"
	snapVersion     = 2  // written; versions 1 and 2 are read
	snapHeaderSize  = 24 // magic 8, version u16, shard u16, seq u64, header crc u32
	snapTrailerSize = 21 // tag u8, count u64, crc u32, end magic 8
	snapEntryFixed  = 12 // tag u8, db u16, kind u8, deadline i64
	snapEntryCRC    = 4  // version 2: crc32c u32 after each entry
	snapTagEntryV1  = 0x01
	snapTagEntry    = 0x02 // version 2 entry: a version 1 entry, then its crc
	snapTagTrailer  = 0xFF
)

const (
	snapBufSize = 1 << 20 // entries are handed to the writer in buffers of this size
	snapBacklog = 4       // buffers queued before Add waits for the writer
	// snapBigValue is the value size from which AddRaw writes the value
	// from where it lies instead of copying it into a buffer: a 512 MB
	// string would otherwise cost 512 MB more for the snapshot's sake.
	snapBigValue = 4 * snapBufSize
)

// SnapshotWriter writes one snapshot. Add and AddRaw encode entries into
// memory; full buffers are written, and the CRC computed, by a background
// goroutine, so the caller does file I/O only when more than a few MiB are
// queued (then Add waits: memory stays bounded). Add, AddRaw, Finish and
// Abort must not be called concurrently; Finish or Abort may run on another
// goroutine than Add after the last Add returned.
type SnapshotWriter struct {
	fs        FS
	dir       string
	shard     int
	seq       uint64
	tmpPath   string
	finalPath string
	log       *zap.Logger
	f         File

	buf   []byte // being filled by Add
	count uint64
	work  chan []byte
	free  chan []byte
	idle  chan struct{} // the writer has written every buffer queued before a nil
	done  chan struct{}
	ended bool // Finish or Abort ran

	// Written by the background goroutine (and by AddRaw while it waits
	// in drain); read after done is closed.
	crc     uint32
	written int64
	err     atomic.Pointer[error]
}

// CreateSnapshot starts writing shard's snapshot at WAL sequence seq to
// "<dir>/shard-<iii>-snap-<seq>.tmp" (seq zero-padded to 20 digits).
func CreateSnapshot(fs FS, dir string, shard int, seq uint64, log *zap.Logger) (*SnapshotWriter, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if err := fs.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("persistence: create %s: %w", dir, err)
	}
	final := filepath.Join(dir, SnapshotName(shard, seq))
	tmp := final[:len(final)-len(".snap")] + ".tmp"
	f, err := fs.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("persistence: create snapshot %s: %w", tmp, err)
	}
	s := &SnapshotWriter{
		fs: fs, dir: dir, shard: shard, seq: seq, tmpPath: tmp, finalPath: final, log: log, f: f,
		buf:  make([]byte, 0, snapBufSize+snapBufSize/4),
		work: make(chan []byte, snapBacklog),
		free: make(chan []byte, snapBacklog+2),
		idle: make(chan struct{}),
		done: make(chan struct{}),
	}
	s.buf = append(s.buf, snapMagic...)
	s.buf = binary.LittleEndian.AppendUint16(s.buf, snapVersion)
	s.buf = binary.LittleEndian.AppendUint16(s.buf, uint16(shard))
	s.buf = binary.LittleEndian.AppendUint64(s.buf, seq)
	s.buf = binary.LittleEndian.AppendUint32(s.buf, crc32.Checksum(s.buf, castagnoli))
	go s.writer()
	return s, nil
}

func (s *SnapshotWriter) writer() {
	defer close(s.done)
	for b := range s.work {
		if b == nil {
			// AddRaw waits for the file (drain).
			s.idle <- struct{}{}
			continue
		}
		s.writeOut(b)
		if cap(b) > 2*snapBufSize {
			// Grown for one large value: dropped once written, not kept
			// for the rest of the snapshot.
			continue
		}
		select {
		case s.free <- b[:0]:
		default:
		}
	}
}

// writeOut writes b to the file and adds it to the file CRC; the writer
// goroutine calls it, and AddRaw while the writer waits (drain).
func (s *SnapshotWriter) writeOut(b []byte) {
	if s.err.Load() != nil {
		return
	}
	if _, err := s.f.Write(b); err != nil {
		err = fmt.Errorf("persistence: write snapshot %s at offset %d: %w", s.tmpPath, s.written, err)
		s.err.Store(&err)
		return
	}
	s.crc = crc32.Update(s.crc, castagnoli, b)
	s.written += int64(len(b))
}

// drain queues the current buffer and waits until the writer has written
// everything queued: the file is then the caller's until its next hand
// off (the channel operations order the two goroutines' use of it).
func (s *SnapshotWriter) drain() {
	s.handOff()
	s.work <- nil
	<-s.idle
}

func (s *SnapshotWriter) bgErr() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

// handOff queues the current buffer for the writer and takes a fresh one.
func (s *SnapshotWriter) handOff() {
	s.work <- s.buf
	select {
	case s.buf = <-s.free:
	default:
		s.buf = make([]byte, 0, snapBufSize+snapBufSize/4)
	}
}

func (s *SnapshotWriter) check() error {
	if s.ended {
		return ErrClosed
	}
	return s.bgErr()
}

// Add appends one entry: database db, an opaque value kind defined by the
// keyspace, key, encoded value, and absolute deadline in unix ms (0 =
// none). key and value are copied. It returns the writer's error, if any.
func (s *SnapshotWriter) Add(db uint16, kind uint8, key, value []byte, deadlineMs int64) error {
	return s.AddRaw(db, kind, key, deadlineMs, value)
}

// AddRaw is Add with the value given as pieces that are concatenated (so a
// collection can be serialized without first joining it).
func (s *SnapshotWriter) AddRaw(db uint16, kind uint8, key []byte, deadlineMs int64, valueParts ...[]byte) error {
	if err := s.check(); err != nil {
		return err
	}
	n := 0
	for _, p := range valueParts {
		n += len(p)
	}
	if len(key) > MaxRecordLength || n > MaxRecordLength {
		return fmt.Errorf("%w: snapshot entry with key of %d and value of %d bytes", ErrRecordTooLarge, len(key), n)
	}
	start := len(s.buf)
	s.buf = append(s.buf, snapTagEntry)
	s.buf = binary.LittleEndian.AppendUint16(s.buf, db)
	s.buf = append(s.buf, kind)
	s.buf = binary.LittleEndian.AppendUint64(s.buf, uint64(deadlineMs))
	s.buf = AppendBytes(s.buf, key)
	s.buf = binary.AppendUvarint(s.buf, uint64(n))
	// Each entry carries its own CRC so that damage can be located (and
	// the entries before it salvaged); the file CRC is still what the
	// loader checks first.
	if n >= snapBigValue {
		// Written from where it lies, on this goroutine, once the writer
		// has caught up: the caller may change the value once AddRaw
		// returns, so it cannot be queued.
		crc := crc32.Checksum(s.buf[start:], castagnoli)
		s.drain()
		for _, p := range valueParts {
			crc = crc32.Update(crc, castagnoli, p)
			s.writeOut(p)
		}
		s.buf = binary.LittleEndian.AppendUint32(s.buf, crc)
		s.count++
		return s.bgErr()
	}
	for _, p := range valueParts {
		s.buf = append(s.buf, p...)
	}
	s.buf = binary.LittleEndian.AppendUint32(s.buf, crc32.Checksum(s.buf[start:], castagnoli))
	s.count++
	if len(s.buf) >= snapBufSize {
		s.handOff()
	}
	return nil
}

// Count returns the number of entries added so far.
func (s *SnapshotWriter) Count() uint64 { return s.count }

// Finish writes the trailer (entry count and CRC), fsyncs the file,
// renames it to "shard-<iii>-snap-<seq>.snap", fsyncs the directory and
// deletes this shard's older snapshots and leftover .tmp files. It returns
// the snapshot's size. On error the temporary file is removed.
func (s *SnapshotWriter) Finish() (size int64, err error) {
	if s.ended {
		return 0, ErrClosed
	}
	s.ended = true
	if len(s.buf) > 0 {
		s.work <- s.buf
	}
	s.buf = nil
	close(s.work)
	<-s.done
	defer func() {
		if err != nil {
			_ = s.fs.Remove(s.tmpPath)
		}
	}()
	if err := s.bgErr(); err != nil {
		_ = s.f.Close()
		return 0, err
	}
	t := make([]byte, 0, snapTrailerSize)
	t = append(t, snapTagTrailer)
	t = binary.LittleEndian.AppendUint64(t, s.count)
	crc := crc32.Update(s.crc, castagnoli, t)
	t = binary.LittleEndian.AppendUint32(t, crc)
	t = append(t, snapEndMagic...)
	if _, err := s.f.Write(t); err != nil {
		_ = s.f.Close()
		return 0, fmt.Errorf("persistence: write snapshot trailer %s at offset %d: %w", s.tmpPath, s.written, err)
	}
	size = s.written + int64(len(t))
	if err := syncInBackground(s.f); err != nil {
		_ = s.f.Close()
		return 0, fmt.Errorf("persistence: fsync snapshot %s: %w", s.tmpPath, err)
	}
	if err := s.f.Close(); err != nil {
		return 0, fmt.Errorf("persistence: close snapshot %s: %w", s.tmpPath, err)
	}
	if err := s.fs.Rename(s.tmpPath, s.finalPath); err != nil {
		return 0, fmt.Errorf("persistence: rename snapshot %s: %w", s.tmpPath, err)
	}
	if err := s.fs.SyncDir(s.dir); err != nil {
		return 0, fmt.Errorf("persistence: sync dir %s after snapshot: %w", s.dir, err)
	}
	// The keyspace logs each snapshot once, at INFO, with its duration.
	s.log.Debug("persistence: snapshot written", zap.String("file", s.finalPath),
		zap.Uint64("seq", s.seq), zap.Uint64("entries", s.count), zap.Int64("bytes", size))
	s.removeOlder()
	return size, nil
}

// removeOlder deletes older snapshots and stale temporary files of the
// shard. Failures are logged, not returned: the new snapshot is durable.
func (s *SnapshotWriter) removeOlder() {
	names, err := s.fs.List(s.dir)
	if err != nil {
		s.log.Warn("persistence: list for snapshot cleanup", zap.String("dir", s.dir), zap.Error(err))
		return
	}
	removed := false
	for _, name := range names {
		seq, ok := parseName(name, s.shard, "snap", ".snap")
		if ok && seq >= s.seq {
			continue
		}
		if !ok {
			if _, tmp := parseName(name, s.shard, "snap", ".tmp"); !tmp {
				continue
			}
		}
		p := filepath.Join(s.dir, name)
		if err := s.fs.Remove(p); err != nil {
			s.log.Warn("persistence: remove old snapshot", zap.String("file", p), zap.Error(err))
			continue
		}
		removed = true
	}
	if removed {
		if err := s.fs.SyncDir(s.dir); err != nil {
			s.log.Warn("persistence: sync dir after snapshot cleanup", zap.String("dir", s.dir), zap.Error(err))
		}
	}
}

// Abort stops the snapshot and removes its temporary file. It is a no-op
// after Finish or Abort.
func (s *SnapshotWriter) Abort() {
	if s.ended {
		return
	}
	s.ended = true
	s.buf = nil
	close(s.work)
	<-s.done
	_ = s.f.Close()
	_ = s.fs.Remove(s.tmpPath)
}

// RemoveSnapshotTemps deletes shard's snapshot temporary files in dir
// ("shard-<iii>-snap-<seq>.tmp"): a process killed while writing a
// snapshot leaves one behind, and a process that keeps being killed would
// otherwise pile them up until a snapshot finally succeeds. Only a process
// holding the data directory may call it (no snapshot of it is being
// written). It returns the number of files and bytes removed.
func RemoveSnapshotTemps(fs FS, dir string, shard int) (files int, bytes int64, err error) {
	names, err := fs.List(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	for _, name := range names {
		if _, ok := parseName(name, shard, "snap", ".tmp"); !ok {
			continue
		}
		p := filepath.Join(dir, name)
		size, _ := fs.Stat(p)
		if err := fs.Remove(p); err != nil {
			return files, bytes, fmt.Errorf("persistence: remove stale snapshot temporary %s: %w", p, err)
		}
		files++
		bytes += size
	}
	if files > 0 {
		if err := fs.SyncDir(dir); err != nil {
			return files, bytes, fmt.Errorf("persistence: sync dir %s after removing stale snapshot temporaries: %w", dir, err)
		}
	}
	return files, bytes, nil
}
