package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"
)

// readChunk is how much of a segment the recovery reader fetches at once.
const readChunk = 1 << 20

// segReader serves byte windows of a file through one reusable buffer.
type segReader struct {
	f      File
	path   string
	size   int64
	buf    []byte
	bufOff int64 // file offset of buf[0]
}

// window returns the n bytes at off (off+n <= size). The slice is valid
// until the next call.
func (r *segReader) window(off int64, n int) ([]byte, error) {
	if off >= r.bufOff && off+int64(n) <= r.bufOff+int64(len(r.buf)) {
		return r.buf[off-r.bufOff:][:n], nil
	}
	want := max(n, readChunk)
	if rem := r.size - off; int64(want) > rem {
		want = int(rem)
	}
	if cap(r.buf) < want {
		r.buf = make([]byte, want)
	}
	r.buf = r.buf[:want]
	r.bufOff = off
	got, err := r.f.ReadAt(r.buf, off)
	if got < want {
		r.buf = r.buf[:0]
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("persistence: read %s at offset %d: %w", r.path, off, err)
	}
	return r.buf[:n], nil
}

// lastNonZero returns the offset just past the last non-zero byte at or
// after off, or off when every byte from off to the end is zero.
func (r *segReader) lastNonZero(off int64) (int64, error) {
	end := r.size
	for end > off {
		start := max(off, end-readChunk)
		b, err := r.window(start, int(end-start))
		if err != nil {
			return 0, err
		}
		// Whole words first: a preallocated tail is megabytes of zeros.
		i := len(b)
		for i >= 8 && binary.LittleEndian.Uint64(b[i-8:]) == 0 {
			i -= 8
		}
		for i > 0 && b[i-1] == 0 {
			i--
		}
		if i > 0 {
			return start + int64(i), nil
		}
		end = start
	}
	return off, nil
}

// findRecord looks for an intact record in [from, to) that can only have
// been written after the record at off: its length is sane, its frame fits
// in the file, its CRC matches and its sequence is in [next, next + k],
// where k bounds how many records fit between off and it. It returns the
// record's offset and sequence.
func (r *segReader) findRecord(off, from, to int64, next uint64) (int64, uint64, bool, error) {
	p := from
scan:
	for p < to && p+RecordHeaderSize <= r.size {
		n := min(to-p, readChunk)
		w := min(p+n+RecordHeaderSize-1, r.size) - p
		b, err := r.window(p, int(w))
		if err != nil {
			return 0, 0, false, err
		}
		for i := 0; int64(i) < n && i+RecordHeaderSize <= len(b); i++ {
			seq := binary.LittleEndian.Uint64(b[i+8:])
			if seq < next || seq-next > uint64(p+int64(i)-off)/RecordHeaderSize+1 {
				continue
			}
			l := binary.LittleEndian.Uint32(b[i:])
			at := p + int64(i)
			if l < minRecordLength || l > MaxRecordLength || at+int64(l)+8 > r.size {
				continue
			}
			rec, err := r.window(at, int(l)+8)
			if err != nil {
				return 0, 0, false, err
			}
			if recordCRC(rec) == binary.LittleEndian.Uint32(rec[4:]) {
				return at, seq, true, nil
			}
			p = at + 1 // the window moved: read again from here
			continue scan
		}
		p += n
	}
	return 0, 0, false, nil
}

// segmentScan is the outcome of reading one segment.
type segmentScan struct {
	end   int64            // offset just past the last good record
	torn  int64            // bytes of an incomplete final record at end
	zeros int64            // zero bytes after end (and after the torn record)
	bad   *CorruptionError // damage at end (not a torn tail)
}

// tailAt decides what the bytes from off, where the last segment stops
// decoding (reason says why), are. A crash can only leave the records
// that were written, then part of the last record being written, then
// zeros (the segment is preallocated) or the end of the file: a write that
// was cut short stops, it does not write other bytes. So:
//
//   - only zeros from off: the clean end of the log (preallocated space);
//   - non-zero bytes that all lie within the frame the header at off
//     announces, with the frame not complete (it ends past the end of the
//     file, or its last bytes are zeros), and no intact record with a later
//     sequence among them: an incomplete record, the torn tail;
//   - anything else is damage: a flipped length or payload byte, or a
//     record, followed by the rest of the log.
func (r *segReader) tailAt(off int64, next uint64, reason string) (segmentScan, error) {
	nz, err := r.lastNonZero(off)
	if err != nil {
		return segmentScan{end: off}, err
	}
	if nz == off {
		return segmentScan{end: off, zeros: r.size - off}, nil
	}
	bad := func(reason string) (segmentScan, error) {
		return segmentScan{end: off, bad: &CorruptionError{File: r.path, Offset: off, Reason: reason}}, nil
	}
	if r.size-off >= 4 {
		hdr, err := r.window(off, 4)
		if err != nil {
			return segmentScan{end: off}, err
		}
		n := binary.LittleEndian.Uint32(hdr)
		switch {
		case n > MaxRecordLength:
			// A cut-short write leaves zeros, never a length this large.
			return bad(reason)
		case n < minRecordLength:
			// Only a length whose high bytes were never written.
			if nz > off+4 {
				return bad(reason)
			}
		default:
			if fe := off + int64(n) + 8; fe <= r.size && nz >= fe {
				if nz == fe {
					return bad(reason + "; the record is complete, not cut short")
				}
				return bad(fmt.Sprintf("%s; %d bytes of data follow it", reason, nz-fe))
			}
		}
	}
	at, seq, found, err := r.findRecord(off, off+1, nz, next)
	if err != nil {
		return segmentScan{end: off}, err
	}
	if found {
		return bad(fmt.Sprintf("%s; an intact record with sequence %d follows at offset %d", reason, seq, at))
	}
	return segmentScan{end: off, torn: nz - off, zeros: r.size - nz}, nil
}

// scanSegment reads records of seg from the start, checking that they are
// numbered from *next on, and applies those after afterSeq. I/O and apply
// errors are returned as err; damage is reported in the result.
func scanSegment(r *segReader, last bool, next *uint64, afterSeq uint64, st *RecoveryStats, apply func(Record) error) (segmentScan, error) {
	var off int64
	for off < r.size {
		// stop ends the scan at off: in the last segment the tail is
		// examined (torn or damaged), elsewhere it is damage.
		stop := func(reason string) (segmentScan, error) {
			if last {
				return r.tailAt(off, *next, reason)
			}
			return segmentScan{end: off, bad: &CorruptionError{File: r.path, Offset: off, Reason: reason}}, nil
		}
		rem := r.size - off
		if rem < RecordHeaderSize {
			return stop(fmt.Sprintf("short header (%d bytes before end of file)", rem))
		}
		hdr, err := r.window(off, RecordHeaderSize)
		if err != nil {
			return segmentScan{end: off}, err
		}
		n := binary.LittleEndian.Uint32(hdr)
		total := int64(n) + 8
		if n < minRecordLength || n > MaxRecordLength {
			return stop(fmt.Sprintf("bad record length %d", n))
		}
		if off+total > r.size {
			return stop(fmt.Sprintf("record of %d bytes extends past end of file", total))
		}
		rec, err := r.window(off, int(total))
		if err != nil {
			return segmentScan{end: off}, err
		}
		if got, want := recordCRC(rec), binary.LittleEndian.Uint32(rec[4:]); got != want {
			return stop(fmt.Sprintf("crc mismatch (computed %08x, stored %08x)", got, want))
		}
		seq := binary.LittleEndian.Uint64(rec[8:])
		if seq != *next {
			return segmentScan{end: off, bad: &CorruptionError{File: r.path, Offset: off, Reason: fmt.Sprintf("sequence %d, expected %d", seq, *next)}}, nil
		}
		if seq > afterSeq {
			err := apply(Record{Seq: seq, DB: binary.LittleEndian.Uint16(rec[16:]), Op: Opcode(rec[18]), Payload: rec[RecordHeaderSize:total:total]})
			if err != nil {
				return segmentScan{end: off}, fmt.Errorf("persistence: apply record %d (%s) from %s at offset %d: %w", seq, Opcode(rec[18]), r.path, off, err)
			}
			st.Records++
			st.Bytes += total
		}
		st.LastSeq = max(st.LastSeq, seq)
		*next = seq + 1
		off += total
	}
	return segmentScan{end: off}, nil
}

// Recover replays, in order, every record with Seq > afterSeq found in
// shard's segments under dir (afterSeq is the loaded snapshot's sequence,
// 0 without one), calling apply for each. Record.Payload is valid only
// during the call; an error from apply stops recovery and is returned
// wrapped.
//
// Sequence numbers must be contiguous from the first segment read (the
// segment holding afterSeq+1) on. A torn tail of the last segment (see the
// package documentation) is truncated away, fsynced and logged. Any other
// damage returns a *CorruptionError naming file and offset, unless repair
// is true: then the damaged segment is truncated at the bad offset (the
// cut bytes are kept in "<file>.broken"), every later segment is renamed to
// "<file>.broken", the directory is fsynced, and recovery succeeds with the
// records before the damage. A segment whose name does not follow the
// records before it (an earlier segment lost its last records: a gap) is
// moved aside whole with every later one, leaving the log ending at the
// last record before the gap. What repair drops is counted (bytes, intact
// records and their sequences) and logged. Missing segments (a first
// segment starting after afterSeq+1) are an error even with repair.
//
// The returned stats carry the last sequence seen (afterSeq if larger or
// if there were no records) in LastSeq; pass it to OpenWAL.
func Recover(fs FS, dir string, shard int, afterSeq uint64, repair bool, log *zap.Logger, apply func(Record) error) (RecoveryStats, error) {
	if log == nil {
		log = zap.NewNop()
	}
	start := time.Now()
	st, err := recoverShard(fs, dir, shard, afterSeq, repair, log, apply)
	st.Duration = time.Since(start)
	st.LastSeq = max(st.LastSeq, afterSeq)
	if err == nil {
		log.Info("persistence: WAL recovered", zap.String("dir", dir), zap.Int("shard", shard),
			zap.Uint64("last_seq", st.LastSeq), zap.Int64("records", st.Records),
			zap.Int64("truncated_bytes", st.TruncatedBytes), zap.Duration("duration", st.Duration))
	}
	return st, err
}

func recoverShard(fs FS, dir string, shard int, afterSeq uint64, repair bool, log *zap.Logger, apply func(Record) error) (RecoveryStats, error) {
	st := RecoveryStats{LastSeq: afterSeq}
	if err := fs.MkdirAll(dir); err != nil {
		return st, fmt.Errorf("persistence: create %s: %w", dir, err)
	}
	segs, err := listSegments(fs, dir, shard)
	if err != nil {
		return st, err
	}
	first := 0
	for first+1 < len(segs) && segs[first+1].firstSeq <= afterSeq+1 {
		first++ // every record of segs[first] is <= afterSeq
	}
	segs = segs[first:]
	if len(segs) > 0 && segs[0].firstSeq > afterSeq+1 {
		return st, &CorruptionError{File: segs[0].path, Reason: fmt.Sprintf("%s: the WAL starts at sequence %d, but recovery needs it from sequence %d (after the snapshot, or 1 without one)", missingPrefix, segs[0].firstSeq, afterSeq+1)}
	}
	var next uint64
	var r segReader
	for i, seg := range segs {
		last := i == len(segs)-1
		if i == 0 {
			next = seg.firstSeq
		}
		var sc segmentScan
		gap := seg.firstSeq != next
		if gap {
			sc = segmentScan{bad: &CorruptionError{File: seg.path, Reason: fmt.Sprintf("segment name says first sequence %d, expected %d", seg.firstSeq, next)}}
		} else {
			f, err := fs.Open(seg.path)
			if err != nil {
				return st, fmt.Errorf("persistence: open %s: %w", seg.path, err)
			}
			size, err := f.Size()
			if err != nil {
				_ = f.Close()
				return st, fmt.Errorf("persistence: size of %s: %w", seg.path, err)
			}
			r = segReader{f: f, path: seg.path, size: size, buf: r.buf[:0]}
			sc, err = scanSegment(&r, last, &next, afterSeq, &st, apply)
			_ = f.Close()
			if err != nil {
				return st, err
			}
			st.Segments++
			if sc.torn > 0 || sc.zeros > 0 {
				// The clean end, or an incomplete record written when
				// the process or machine stopped: nothing acknowledged
				// is lost. Cut it so the segment ends with its last
				// record (OpenWAL starts a new one after it).
				if sc.torn > 0 {
					log.Warn(fmt.Sprintf("persistence: last WAL segment ends with an incomplete record (%d bytes) written before a crash; dropped", sc.torn),
						zap.String("file", seg.path), zap.Int64("offset", sc.end), zap.Int64("bytes", sc.torn))
				}
				if err := truncateFile(fs, seg.path, sc.end); err != nil {
					return st, err
				}
				st.TruncatedBytes += sc.torn
				st.ZeroBytes += sc.zeros
			}
		}
		if sc.bad != nil {
			if !repair {
				return st, sc.bad
			}
			if gap {
				// A gap (an earlier segment lost its last records) or an
				// overlap: this segment is intact but cannot follow; it
				// and every later one go aside whole.
				err = repairGap(fs, dir, segs[i:], sc.bad, max(next, afterSeq+1), log, &st)
			} else {
				err = repairFrom(fs, dir, segs[i:], sc.bad, next, log, &st)
			}
			if err != nil {
				return st, err
			}
			break
		}
	}
	return st, nil
}

// truncateFile cuts name to size and fsyncs it.
func truncateFile(fs FS, name string, size int64) error {
	f, err := fs.OpenReadWrite(name)
	if err != nil {
		return fmt.Errorf("persistence: open %s for truncation: %w", name, err)
	}
	if err := f.Truncate(size); err != nil {
		_ = f.Close()
		return fmt.Errorf("persistence: truncate %s at offset %d: %w", name, size, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("persistence: sync %s after truncation at offset %d: %w", name, size, err)
	}
	return f.Close()
}

// repairFrom handles damage bad in segs[0]: the bytes from the bad offset
// go to "<file>.broken", the segment is truncated there, later segments are
// renamed to "<file>.broken". next is the sequence the damaged record
// should have had. What is cut is counted and logged.
func repairFrom(fs FS, dir string, segs []segmentInfo, bad *CorruptionError, next uint64, log *zap.Logger, st *RecoveryStats) error {
	size, err := fs.Stat(bad.File)
	if err != nil {
		return fmt.Errorf("persistence: repair: stat %s: %w", bad.File, err)
	}
	lost, err := countCut(fs, bad.File, size, bad.Offset, next)
	if err != nil {
		return err
	}
	if err := copyTail(fs, bad.File, bad.File+".broken", bad.Offset, size); err != nil {
		return err
	}
	if err := truncateFile(fs, bad.File, bad.Offset); err != nil {
		return err
	}
	st.TruncatedBytes += size - bad.Offset
	later, err := moveAside(fs, dir, segs[1:], log)
	if err != nil {
		return err
	}
	st.TruncatedBytes += later.bytes
	msg := fmt.Sprintf("persistence: repaired WAL: cut %s at offset %d (%s); dropped %d bytes of records from there (kept in %s.broken)",
		bad.File, bad.Offset, bad.Reason, lost.bytes, bad.File)
	if lost.records > 0 {
		msg += fmt.Sprintf(", among them %d intact records with sequences %d to %d", lost.records, lost.first, lost.last)
	}
	if len(segs) > 1 {
		msg += ", and " + later.String()
	}
	log.Error(msg, zap.String("file", bad.File), zap.Int64("offset", bad.Offset),
		zap.Int64("lost_bytes", lost.bytes+later.bytes), zap.Int64("lost_intact_records", lost.records+later.records))
	st.Repaired = true
	return nil
}

// repairGap handles segs[0] not following the records before it (bad
// says why): the records up to next-1 (in the WAL or the snapshot) are
// kept, segs[0] and every later segment are renamed to "<file>.broken"
// whole, after their intact records are counted.
func repairGap(fs FS, dir string, segs []segmentInfo, bad *CorruptionError, next uint64, log *zap.Logger, st *RecoveryStats) error {
	later, err := moveAside(fs, dir, segs, log)
	if err != nil {
		return err
	}
	st.TruncatedBytes += later.bytes
	msg := fmt.Sprintf("persistence: repaired WAL: %s: %s", bad.File, bad.Reason)
	if first := segs[0].firstSeq; first > next {
		msg += fmt.Sprintf(" (records %d to %d are missing: the segment before it was cut short)", next, first-1)
	}
	msg += fmt.Sprintf("; kept the records up to sequence %d; dropped %s", next-1, later.String())
	log.Error(msg, zap.String("file", bad.File), zap.Uint64("kept_through_sequence", next-1),
		zap.Int64("lost_bytes", later.bytes), zap.Int64("lost_intact_records", later.records))
	st.Repaired = true
	return nil
}

// movedSegments counts what moveAside took out of the log.
type movedSegments struct {
	segments    int
	bytes       int64
	records     int64  // intact records, counted from each segment's start
	first, last uint64 // sequences of the first and last of them
}

func (m movedSegments) String() string {
	s := fmt.Sprintf("%d later segments (%d bytes", m.segments, m.bytes)
	if m.records > 0 {
		s += fmt.Sprintf(", %d intact records with sequences %d to %d", m.records, m.first, m.last)
	}
	return s + ") renamed to .broken"
}

// moveAside counts the intact records of segs, renames each to
// "<file>.broken" and fsyncs the directory (also when segs is empty: the
// caller may have created a .broken file).
func moveAside(fs FS, dir string, segs []segmentInfo, log *zap.Logger) (movedSegments, error) {
	var m movedSegments
	for _, s := range segs {
		n, first, last, size, err := countSegment(fs, s.path)
		if err != nil {
			return m, err
		}
		if n > 0 {
			if m.records == 0 {
				m.first = first
			}
			m.records += n
			m.last = last
		}
		m.bytes += size
		m.segments++
	}
	for _, s := range segs {
		if err := fs.Rename(s.path, s.path+".broken"); err != nil {
			return m, fmt.Errorf("persistence: repair: move aside %s: %w", s.path, err)
		}
		log.Error("persistence: repair: moved WAL segment aside", zap.String("file", s.path), zap.String("to", s.path+".broken"))
	}
	if err := fs.SyncDir(dir); err != nil {
		return m, fmt.Errorf("persistence: repair: sync dir %s: %w", dir, err)
	}
	return m, nil
}

// countSegment counts the intact records of the segment at path from its
// start, up to the first damage or its end: their number, the sequences
// of the first and last, and the file's size.
func countSegment(fs FS, path string) (n int64, first, last uint64, size int64, err error) {
	f, err := fs.Open(path)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("persistence: repair: open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	if size, err = f.Size(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("persistence: repair: size of %s: %w", path, err)
	}
	r := segReader{f: f, path: path, size: size}
	for off := int64(0); off+RecordHeaderSize <= size; {
		hdr, err := r.window(off, RecordHeaderSize)
		if err != nil {
			return n, first, last, size, err
		}
		l := binary.LittleEndian.Uint32(hdr)
		if l < minRecordLength || l > MaxRecordLength || off+int64(l)+8 > size {
			break
		}
		rec, err := r.window(off, int(l)+8)
		if err != nil {
			return n, first, last, size, err
		}
		seq := binary.LittleEndian.Uint64(rec[8:])
		if recordCRC(rec) != binary.LittleEndian.Uint32(rec[4:]) || (n > 0 && seq != last+1) {
			break
		}
		if n == 0 {
			first = seq
		}
		n++
		last = seq
		off += int64(l) + 8
	}
	return n, first, last, size, nil
}

// cutRecords describes what repair cuts from a segment.
type cutRecords struct {
	bytes       int64  // from the cut to the last non-zero byte
	records     int64  // intact records found after the damaged one
	first, last uint64 // their sequences
}

// countCut measures the data after off in name: its size up to the
// trailing zeros, and the run of intact records that resumes after the
// damaged one (their number tells the operator what the cut costs).
func countCut(fs FS, name string, size, off int64, next uint64) (cutRecords, error) {
	f, err := fs.Open(name)
	if err != nil {
		return cutRecords{}, fmt.Errorf("persistence: repair: open %s: %w", name, err)
	}
	defer func() { _ = f.Close() }()
	r := segReader{f: f, path: name, size: size}
	nz, err := r.lastNonZero(off)
	if err != nil {
		return cutRecords{}, err
	}
	c := cutRecords{bytes: nz - off}
	at, seq, found, err := r.findRecord(off, off+1, nz, next)
	if err != nil || !found {
		return c, err
	}
	c.first = seq
	for at+RecordHeaderSize <= size {
		hdr, err := r.window(at, RecordHeaderSize)
		if err != nil {
			return c, err
		}
		n := binary.LittleEndian.Uint32(hdr)
		if n < minRecordLength || n > MaxRecordLength || at+int64(n)+8 > size {
			break
		}
		rec, err := r.window(at, int(n)+8)
		if err != nil {
			return c, err
		}
		s := binary.LittleEndian.Uint64(rec[8:])
		if recordCRC(rec) != binary.LittleEndian.Uint32(rec[4:]) || s != seq+uint64(c.records) {
			break
		}
		c.records++
		c.last = s
		at += int64(n) + 8
	}
	return c, nil
}

// copyTail copies src[off:size] to a new, synced file dst.
func copyTail(fs FS, src, dst string, off, size int64) error {
	in, err := fs.Open(src)
	if err != nil {
		return fmt.Errorf("persistence: repair: open %s: %w", src, err)
	}
	defer func() { _ = in.Close() }()
	out, err := fs.Create(dst)
	if err != nil {
		return fmt.Errorf("persistence: repair: create %s: %w", dst, err)
	}
	buf := make([]byte, min(size-off, readChunk))
	for off < size {
		n := int(min(int64(len(buf)), size-off))
		got, err := in.ReadAt(buf[:n], off)
		if got < n {
			_ = out.Close()
			return fmt.Errorf("persistence: repair: read %s at offset %d: %w", src, off, err)
		}
		if _, err := out.Write(buf[:n]); err != nil {
			_ = out.Close()
			return fmt.Errorf("persistence: repair: write %s: %w", dst, err)
		}
		off += int64(n)
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return fmt.Errorf("persistence: repair: sync %s: %w", dst, err)
	}
	return out.Close()
}
