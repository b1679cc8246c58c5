package persistence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"sort"
	"strings"

	"go.uber.org/zap"
)

// EntryFunc receives one snapshot entry: database, the keyspace's value
// kind, key, encoded value and absolute deadline in unix ms (0 = none).
// key and value alias a buffer valid only during the call.
type EntryFunc func(db uint16, kind uint8, key, value []byte, deadlineMs int64) error

// SnapshotLoadOptions tune LoadSnapshots.
type SnapshotLoadOptions struct {
	// OnCount, if set, learns how many entries the chosen snapshot holds
	// before they arrive, so the caller can size its tables.
	OnCount func(entries uint64)
	// Repair allows salvaging a damaged snapshot that nothing else can
	// replace: its entries before the damage are loaded (see Salvaged).
	Repair bool
}

// SnapshotLoad is what LoadSnapshots loaded.
type SnapshotLoad struct {
	Seq     uint64 // sequence of the loaded snapshot; the WAL replays after it
	Found   bool   // a snapshot was loaded, whole or salvaged
	File    string // its path
	Entries uint64 // entries passed to the EntryFunc
	// Salvaged is set when a damaged snapshot was loaded up to its first
	// bad entry (repair). Its file is copied to "<file>.broken"; the caller
	// should write a fresh snapshot once the WAL is replayed, so the next
	// start does not depend on the damaged file.
	Salvaged bool
	// Lost counts the entries of a salvaged snapshot that could not be
	// read; LostKnown is false when the trailer holding the count was
	// itself unreadable.
	Lost      uint64
	LostKnown bool
	// Skipped lists damaged newer snapshots that were renamed to
	// "<file>.broken" because an older snapshot (or the WAL alone) could
	// replace them.
	Skipped []string
}

// SnapshotDamagedError is returned by LoadSnapshots when the newest
// snapshot is damaged and neither an older snapshot nor the WAL can stand
// in for it. It matches ErrCorrupt under errors.Is.
type SnapshotDamagedError struct {
	File   string // path of the damaged snapshot
	Seq    uint64 // its WAL sequence
	Offset int64  // first damaged entry (or field) found
	Reason string
	// Intact counts the entries before the damage; Total is the count the
	// trailer records (TotalKnown false when the trailer is unreadable).
	Intact     uint64
	Total      uint64
	TotalKnown bool
	// WALFirst is the first sequence the WAL holds (0: no WAL segments).
	WALFirst uint64
	// Salvageable is false when repair cannot help (an unknown version).
	Salvageable bool
}

// Error implements error. The text is one line that says what is wrong
// and what the operator can do.
func (e *SnapshotDamagedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot %s is damaged at offset %d (%s)", e.File, e.Offset, e.Reason)
	if !e.Salvageable {
		b.WriteString("; restore it from a backup, or move it away to start without its data")
		return b.String()
	}
	fmt.Fprintf(&b, ": %d entries %s the damage are intact", e.Intact, beforeAfter(e.Offset))
	if e.TotalKnown && e.Total >= e.Intact {
		fmt.Fprintf(&b, ", %d of %d cannot be read", e.Total-e.Intact, e.Total)
	}
	b.WriteString("; no older snapshot with the WAL after it is available")
	if e.WALFirst > 0 {
		fmt.Fprintf(&b, " (the WAL starts at sequence %d)", e.WALFirst)
	} else {
		b.WriteString(" (there is no WAL)")
	}
	fmt.Fprintf(&b, ". Restore the file from a backup, or start with --repair to load the intact entries, replay the WAL after sequence %d and lose the rest (the file is kept as %s.broken)", e.Seq, filepath.Base(e.File))
	return b.String()
}

// Unwrap returns ErrCorrupt.
func (e *SnapshotDamagedError) Unwrap() error { return ErrCorrupt }

// beforeAfter words where intact entries lie relative to damage at off:
// after a damaged header, before anything else.
func beforeAfter(off int64) string {
	if off < snapHeaderSize {
		return "after"
	}
	return "before"
}

// LoadSnapshot is LoadSnapshots without options: it returns the loaded
// snapshot's sequence and whether one was loaded.
func LoadSnapshot(fs FS, dir string, shard int, log *zap.Logger, fn EntryFunc) (seq uint64, found bool, err error) {
	res, err := LoadSnapshots(fs, dir, shard, log, SnapshotLoadOptions{}, fn)
	return res.Seq, res.Found, err
}

// LoadSnapshots reads the newest valid snapshot of shard in dir and calls
// fn for every entry in the order they were added. .tmp files are
// ignored. No snapshot at all is not an error (Found is false; recovery
// starts from sequence 0 and Recover checks the WAL starts at 1).
//
// A snapshot is checked (header, trailer, file CRC) before any entry is
// passed on. When the newest one is damaged, the damage is located (the
// first bad entry: version 2 entries carry their own CRC) and logged,
// then, in this order:
//
//   - an older valid snapshot is used if the WAL continues right after it
//     (its first segment starts at or before the older sequence + 1);
//   - else the WAL alone is used if it still starts at sequence 1;
//   - else, with opts.Repair, the damaged snapshot is salvaged: the entries
//     before the damage are loaded, the loss is counted and logged, and the
//     file is copied to "<file>.broken";
//   - else a *SnapshotDamagedError says what is damaged and what to do.
//
// Damaged snapshots that an older one or the WAL replaced are renamed to
// "<file>.broken". An error from fn stops loading and is returned wrapped.
func LoadSnapshots(fs FS, dir string, shard int, log *zap.Logger, opts SnapshotLoadOptions, fn EntryFunc) (SnapshotLoad, error) {
	if log == nil {
		log = zap.NewNop()
	}
	var res SnapshotLoad
	names, err := fs.List(dir)
	if err != nil {
		return res, fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	type cand struct {
		path string
		seq  uint64
	}
	var cands []cand
	for _, name := range names {
		if s, ok := parseName(name, shard, "snap", ".snap"); ok {
			cands = append(cands, cand{filepath.Join(dir, name), s})
		}
	}
	if len(cands) == 0 {
		return res, nil
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].seq > cands[j].seq })
	segs, err := listSegments(fs, dir, shard)
	if err != nil {
		return res, err
	}
	var walFirst uint64
	if len(segs) > 0 {
		walFirst = segs[0].firstSeq
	}
	// walCovers reports whether the WAL holds every record after seq.
	walCovers := func(seq uint64) bool { return walFirst > 0 && walFirst <= seq+1 }

	var r segReader
	var damaged []snapDamage // newest first
	var chosen *cand
	var info snapInfo
	var chosenFile File
	for i := range cands {
		c := &cands[i]
		if len(damaged) > 0 && !walCovers(c.seq) {
			break // neither this nor an older snapshot can replace the damaged one
		}
		f, size, err := openSized(fs, c.path)
		if err != nil {
			return res, err
		}
		r = segReader{f: f, path: c.path, size: size, buf: r.buf[:0]}
		inf, verr := verifySnapshot(&r, shard, c.seq)
		var ce *CorruptionError
		if verr != nil && !errors.As(verr, &ce) {
			_ = f.Close()
			return res, verr
		}
		if verr == nil {
			chosen, info, chosenFile = c, inf, f
			break
		}
		d, err := locateDamage(&r, shard, c.seq)
		_ = f.Close()
		if err != nil {
			return res, err
		}
		log.Warn("persistence: snapshot is damaged: " + d.describe())
		damaged = append(damaged, d)
	}

	if chosen == nil && len(damaged) > 0 && walCovers(0) {
		log.Warn(fmt.Sprintf("persistence: no usable snapshot; rebuilding shard %d from the WAL alone, which starts at sequence 1", shard))
		return res, setAside(fs, dir, damaged, &res, log)
	}
	if chosen == nil {
		d := damaged[0]
		if !opts.Repair || !d.salvageable {
			return res, d.err(walFirst)
		}
		return salvage(fs, d, &r, opts, fn, log)
	}
	defer func() { _ = chosenFile.Close() }()
	if len(damaged) > 0 {
		log.Warn(fmt.Sprintf("persistence: falling back to the older snapshot %s; the WAL replays from sequence %d", chosen.path, chosen.seq+1))
		if err := setAside(fs, dir, damaged, &res, log); err != nil {
			return res, err
		}
	}
	if opts.OnCount != nil {
		opts.OnCount(info.count)
	}
	n, _, bad, err := walkEntries(&r, info.version, snapHeaderSize, r.size-snapTrailerSize, false, fn)
	if err != nil {
		return res, err
	}
	if bad != nil {
		return res, bad // the file CRC matched: only a writer bug gets here
	}
	if n != info.count {
		return res, &CorruptionError{File: r.path, Offset: r.size - snapTrailerSize, Reason: fmt.Sprintf("trailer counts %d entries, found %d", info.count, n)}
	}
	log.Info("persistence: snapshot loaded", zap.String("file", chosen.path), zap.Uint64("seq", chosen.seq), zap.Uint64("entries", n))
	res.Seq, res.Found, res.File, res.Entries = chosen.seq, true, chosen.path, n
	return res, nil
}

func openSized(fs FS, path string) (File, int64, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("persistence: open snapshot %s: %w", path, err)
	}
	size, err := f.Size()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("persistence: size of snapshot %s: %w", path, err)
	}
	return f, size, nil
}

// setAside renames damaged snapshots that are no longer needed to
// "<file>.broken" so they stay for inspection and stop being candidates.
func setAside(fs FS, dir string, damaged []snapDamage, res *SnapshotLoad, log *zap.Logger) error {
	for _, d := range damaged {
		if err := fs.Rename(d.path, d.path+".broken"); err != nil {
			return fmt.Errorf("persistence: move damaged snapshot %s aside: %w", d.path, err)
		}
		log.Warn("persistence: damaged snapshot renamed to " + filepath.Base(d.path) + ".broken")
		res.Skipped = append(res.Skipped, d.path)
	}
	if err := fs.SyncDir(dir); err != nil {
		return fmt.Errorf("persistence: sync dir %s: %w", dir, err)
	}
	return nil
}

// salvage loads the intact entries of the damaged snapshot d (repair).
func salvage(fs FS, d snapDamage, r *segReader, opts SnapshotLoadOptions, fn EntryFunc, log *zap.Logger) (SnapshotLoad, error) {
	res := SnapshotLoad{Seq: d.seq, Found: true, File: d.path, Salvaged: true}
	f, size, err := openSized(fs, d.path)
	if err != nil {
		return res, err
	}
	defer func() { _ = f.Close() }()
	*r = segReader{f: f, path: d.path, size: size, buf: r.buf[:0]}
	if err := copyTail(fs, d.path, d.path+".broken", 0, size); err != nil {
		return res, err
	}
	if err := fs.SyncDir(filepath.Dir(d.path)); err != nil {
		return res, fmt.Errorf("persistence: sync dir of %s: %w", d.path, err)
	}
	if opts.OnCount != nil {
		opts.OnCount(d.intact)
	}
	if d.version != 0 {
		n, _, bad, err := walkEntries(r, d.version, snapHeaderSize, d.intactEnd, d.version >= 2, fn)
		if err != nil {
			return res, err
		}
		if bad != nil || n != d.intact {
			return res, fmt.Errorf("persistence: salvage %s: the file changed while it was read", d.path)
		}
		res.Entries = n
	}
	if d.countKnown && d.count >= res.Entries {
		res.Lost, res.LostKnown = d.count-res.Entries, true
	}
	lost := "an unknown number of entries (the trailer with the count is unreadable)"
	if res.LostKnown {
		lost = fmt.Sprintf("%d of %d entries", res.Lost, d.count)
	}
	log.Error(fmt.Sprintf("persistence: repair: salvaged damaged snapshot %s (damaged at offset %d): loaded its %d intact entries; lost %s; the WAL replays after sequence %d; the damaged file is kept as %s.broken",
		d.path, d.offset, res.Entries, lost, d.seq, filepath.Base(d.path)),
		zap.String("file", d.path), zap.Int64("offset", d.offset), zap.Uint64("entries", res.Entries), zap.Uint64("lost", res.Lost))
	return res, nil
}

// snapInfo is what a snapshot's header and trailer say.
type snapInfo struct {
	version uint16
	count   uint64
}

// checkHeader validates the header and returns the format version.
func checkHeader(r *segReader, shard int, seq uint64) (uint16, *CorruptionError, error) {
	corrupt := func(off int64, format string, args ...any) *CorruptionError {
		return &CorruptionError{File: r.path, Offset: off, Reason: fmt.Sprintf(format, args...)}
	}
	if r.size < snapHeaderSize {
		return 0, corrupt(0, "file of %d bytes is too short", r.size), nil
	}
	h, err := r.window(0, snapHeaderSize)
	if err != nil {
		return 0, nil, err
	}
	if string(h[:8]) != snapMagic {
		return 0, corrupt(0, "bad magic %q", h[:8]), nil
	}
	if crc32.Checksum(h[:20], castagnoli) != binary.LittleEndian.Uint32(h[20:]) {
		return 0, corrupt(0, "header crc mismatch"), nil
	}
	v := binary.LittleEndian.Uint16(h[8:])
	if v != 1 && v != 2 {
		return 0, corrupt(8, "unsupported version %d (this build reads versions 1 and 2)", v), nil
	}
	if s := binary.LittleEndian.Uint16(h[10:]); int(s) != shard {
		return 0, corrupt(10, "snapshot of shard %d, want %d", s, shard), nil
	}
	if s := binary.LittleEndian.Uint64(h[12:]); s != seq {
		return 0, corrupt(12, "header sequence %d does not match file name sequence %d", s, seq), nil
	}
	return v, nil, nil
}

// headerFields returns the version of a header that failed its checks if
// its version, shard and sequence fields are still plausible, else 0.
func headerFields(r *segReader, shard int, seq uint64) uint16 {
	if r.size < snapHeaderSize {
		return 0
	}
	h, err := r.window(0, snapHeaderSize)
	if err != nil {
		return 0
	}
	v := binary.LittleEndian.Uint16(h[8:])
	if (v != 1 && v != 2) || int(binary.LittleEndian.Uint16(h[10:])) != shard || binary.LittleEndian.Uint64(h[12:]) != seq {
		return 0
	}
	return v
}

// trailerAt returns the entry count of a well-formed trailer at the end.
func trailerAt(r *segReader) (uint64, bool, error) {
	if r.size < snapHeaderSize+snapTrailerSize {
		return 0, false, nil
	}
	t, err := r.window(r.size-snapTrailerSize, snapTrailerSize)
	if err != nil {
		return 0, false, err
	}
	if t[0] != snapTagTrailer || string(t[13:]) != snapEndMagic {
		return 0, false, nil
	}
	return binary.LittleEndian.Uint64(t[1:]), true, nil
}

// verifySnapshot checks header, trailer and the file CRC. Damage is a
// *CorruptionError; other errors are I/O errors.
func verifySnapshot(r *segReader, shard int, seq uint64) (snapInfo, error) {
	v, bad, err := checkHeader(r, shard, seq)
	if err != nil {
		return snapInfo{}, err
	}
	if bad != nil {
		return snapInfo{}, bad
	}
	count, ok, err := trailerAt(r)
	if err != nil {
		return snapInfo{}, err
	}
	toff := r.size - snapTrailerSize
	if !ok {
		return snapInfo{}, &CorruptionError{File: r.path, Offset: max(toff, 0), Reason: "missing trailer"}
	}
	t, err := r.window(toff, snapTrailerSize)
	if err != nil {
		return snapInfo{}, err
	}
	stored := binary.LittleEndian.Uint32(t[9:])
	var crc uint32
	end := r.size - 12 // the CRC covers everything before the crc field
	for off := int64(0); off < end; {
		n := int(min(end-off, readChunk))
		b, err := r.window(off, n)
		if err != nil {
			return snapInfo{}, err
		}
		crc = crc32.Update(crc, castagnoli, b)
		off += int64(n)
	}
	if crc != stored {
		return snapInfo{}, &CorruptionError{File: r.path, Offset: toff + 9, Reason: fmt.Sprintf("crc mismatch (computed %08x, stored %08x)", crc, stored)}
	}
	return snapInfo{version: v, count: count}, nil
}

// walkEntries parses the entries in [from, end) of a snapshot of the given
// version, calling fn (if not nil) for each. With verify, version 2 entry
// CRCs are checked. It stops at the first entry that does not parse (or
// verify) and reports it in bad; n counts the entries before it and off is
// where they end.
func walkEntries(r *segReader, version uint16, from, end int64, verify bool, fn EntryFunc) (n uint64, off int64, bad *CorruptionError, err error) {
	off = from
	tag, crcLen := byte(snapTagEntryV1), int64(0)
	if version >= 2 {
		tag, crcLen = snapTagEntry, snapEntryCRC
	}
	for off < end {
		corrupt := func(reason string) (uint64, int64, *CorruptionError, error) {
			return n, off, &CorruptionError{File: r.path, Offset: off, Reason: fmt.Sprintf("entry %d: %s", n+1, reason)}, nil
		}
		rem := end - off
		if rem < snapEntryFixed+2+crcLen {
			return corrupt(fmt.Sprintf("short entry (%d bytes left)", rem))
		}
		h, err := r.window(off, int(min(rem, snapEntryFixed+binary.MaxVarintLen64)))
		if err != nil {
			return n, off, nil, err
		}
		if h[0] != tag {
			return corrupt(fmt.Sprintf("bad entry tag %#x", h[0]))
		}
		db := binary.LittleEndian.Uint16(h[1:])
		kind := h[3]
		deadline := int64(binary.LittleEndian.Uint64(h[4:]))
		klen, k := binary.Uvarint(h[snapEntryFixed:])
		if k <= 0 || klen > MaxRecordLength || int64(klen) > rem-int64(snapEntryFixed+k) {
			return corrupt("bad key length")
		}
		voff := off + snapEntryFixed + int64(k) + int64(klen)
		vh, err := r.window(voff, int(min(end-voff, binary.MaxVarintLen64)))
		if err != nil {
			return n, off, nil, err
		}
		vlen, vk := binary.Uvarint(vh)
		if vk <= 0 || vlen > MaxRecordLength || int64(vlen) > end-voff-int64(vk)-crcLen {
			return corrupt("bad value length")
		}
		body := voff + int64(vk) + int64(vlen) - off // without the crc
		e, err := r.window(off, int(body+crcLen))
		if err != nil {
			return n, off, nil, err
		}
		if verify && crcLen > 0 {
			if got, want := crc32.Checksum(e[:body], castagnoli), binary.LittleEndian.Uint32(e[body:]); got != want {
				return corrupt(fmt.Sprintf("crc mismatch (computed %08x, stored %08x)", got, want))
			}
		}
		if fn != nil {
			kstart := snapEntryFixed + k
			key := e[kstart : kstart+int(klen) : kstart+int(klen)]
			value := e[body-int64(vlen) : body : body]
			if err := fn(db, kind, key, value, deadline); err != nil {
				return n, off, nil, fmt.Errorf("persistence: load snapshot %s entry at offset %d: %w", r.path, off, err)
			}
		}
		n++
		off += body + crcLen
	}
	return n, off, nil, nil
}

// snapDamage is where and how a snapshot is damaged.
type snapDamage struct {
	path        string
	seq         uint64
	version     uint16 // 0: the header is unusable
	offset      int64
	reason      string
	intact      uint64 // entries before the damage
	intactEnd   int64  // where they end
	count       uint64 // the trailer's count, if countKnown
	countKnown  bool
	salvageable bool
}

func (d snapDamage) describe() string {
	s := fmt.Sprintf("%s at offset %d: %s; %d entries %s it are intact", d.path, d.offset, d.reason, d.intact, beforeAfter(d.offset))
	if d.countKnown && d.count >= d.intact {
		s += fmt.Sprintf(", %d of %d cannot be read", d.count-d.intact, d.count)
	}
	return s
}

func (d snapDamage) err(walFirst uint64) error {
	return &SnapshotDamagedError{File: d.path, Seq: d.seq, Offset: d.offset, Reason: d.reason,
		Intact: d.intact, Total: d.count, TotalKnown: d.countKnown, WALFirst: walFirst, Salvageable: d.salvageable}
}

// locateDamage finds the first damaged part of a snapshot that failed
// verification: a bad header, the first entry that does not parse or
// whose CRC does not match (version 2), or the trailer.
func locateDamage(r *segReader, shard int, seq uint64) (snapDamage, error) {
	d := snapDamage{path: r.path, seq: seq, salvageable: true, intactEnd: snapHeaderSize}
	v, bad, err := checkHeader(r, shard, seq)
	if err != nil {
		return d, err
	}
	count, tOK, err := trailerAt(r)
	if err != nil {
		return d, err
	}
	d.count, d.countKnown = count, tOK
	if bad != nil {
		d.offset, d.reason = bad.Offset, bad.Reason
		if bad.Offset == 8 {
			d.salvageable = false // an unknown version is not damage repair can cut
			return d, nil
		}
		// A damaged header whose version, shard and sequence still read
		// right (a flipped bit in the magic or the crc): the entries,
		// which carry their own CRCs in version 2, can still be read.
		if v = headerFields(r, shard, seq); v == 0 {
			return d, nil
		}
		d.version = v
		end := r.size
		if tOK {
			end = r.size - snapTrailerSize
		}
		n, off, _, err := walkEntries(r, v, snapHeaderSize, end, true, nil)
		d.intact, d.intactEnd = n, off
		return d, err
	}
	d.version = v
	end := r.size
	if tOK {
		end = r.size - snapTrailerSize
	}
	n, off, bad, err := walkEntries(r, v, snapHeaderSize, end, true, nil)
	if err != nil {
		return d, err
	}
	d.intact, d.intactEnd = n, off
	switch {
	case bad != nil:
		d.offset, d.reason = bad.Offset, bad.Reason
		if !tOK && off == r.size-snapTrailerSize {
			d.reason = "damaged trailer"
		}
		if v == 1 {
			d.reason += " (version 1 snapshots have no per-entry checksums: the damage may be earlier)"
		}
	case !tOK:
		d.offset, d.reason = off, "the file ends without a trailer (cut short)"
	case count != n:
		d.offset, d.reason = r.size-snapTrailerSize, fmt.Sprintf("trailer counts %d entries, found %d", count, n)
	case v >= 2:
		d.offset, d.reason = r.size-snapTrailerSize, "file checksum mismatch in the trailer; every entry is intact"
	default:
		d.offset, d.reason = snapHeaderSize, "file checksum mismatch; version 1 snapshots have no per-entry checksums, so the damaged entry cannot be located"
	}
	return d, nil
}
