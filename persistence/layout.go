package persistence

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// Layout is what a data directory's file names say about the shards that
// wrote it. A shard's files are named "shard-<iii>-...": its WAL segments,
// snapshots, snapshot temporaries and replication id ("shard-<iii>-replid",
// written by the keyspace); what repair moved aside (".broken") does not
// count.
type Layout struct {
	// Shards is one more than the highest shard index of any file (0
	// when there is none): the shard count the directory was written with.
	Shards int
	// WithData lists, in order, the shards that hold data: a snapshot or a
	// WAL segment that holds a record (an empty or only preallocated one
	// does not count).
	WithData []int
}

// HasData reports whether any shard holds data.
func (l Layout) HasData() bool { return len(l.WithData) > 0 }

// shardIndexOf returns the shard index of a file named "shard-<iii>-...".
func shardIndexOf(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "shard-")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok || len(digits) < 3 {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 {
		return 0, false
	}
	return i, true
}

// ReadLayout reads the layout of the data directory dir from its file
// names (and the sizes of its WAL segments). A directory that does not
// exist has the empty layout.
func ReadLayout(fs FS, dir string) (Layout, error) {
	var l Layout
	names, err := fs.List(dir)
	if err != nil {
		if isNotExist(err) {
			return l, nil
		}
		return l, fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	data := map[int]bool{}
	for _, name := range names {
		i, ok := shardIndexOf(name)
		if !ok || !liveShardFile(name, i) {
			continue
		}
		l.Shards = max(l.Shards, i+1)
		if data[i] {
			continue
		}
		if _, ok := parseName(name, i, "snap", ".snap"); ok {
			data[i] = true
		} else if _, ok := parseName(name, i, "wal", ".log"); ok {
			has, err := segmentHasRecord(fs, filepath.Join(dir, name))
			if err != nil {
				return l, err
			}
			data[i] = has
		}
	}
	for i := 0; i < l.Shards; i++ {
		if data[i] {
			l.WithData = append(l.WithData, i)
		}
	}
	return l, nil
}

// isNotExist reports a missing file of any FS.
func isNotExist(err error) bool {
	return errors.Is(err, ErrNotExist) || errors.Is(err, iofs.ErrNotExist)
}

// segmentHasRecord reports whether the segment at path starts with a
// record: a record's length field is never zero, while an empty segment
// has no bytes and a preallocated one only zeros.
func segmentHasRecord(fs FS, path string) (bool, error) {
	f, err := fs.Open(path)
	if err != nil {
		return false, fmt.Errorf("persistence: open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	var b [4]byte
	n, _ := f.ReadAt(b[:], 0)
	return n == len(b) && b != [4]byte{}, nil
}

// liveShardFile reports whether name is one of shard i's own files.
func liveShardFile(name string, i int) bool {
	if name == fmt.Sprintf("shard-%03d-replid", i) {
		return true
	}
	_, wal := parseName(name, i, "wal", ".log")
	_, snap := parseName(name, i, "snap", ".snap")
	_, tmp := parseName(name, i, "snap", ".tmp")
	return wal || snap || tmp
}

// RemoveShardsFrom deletes the files of shards from and above in dir, for
// a directory whose layout holds no data (ReadLayout): a server started
// there with fewer shards than before leaves no files of the shards it
// does not run, so the layout the directory shows is the one its data
// is written in. It refuses when one of those shards holds data.
func RemoveShardsFrom(fs FS, dir string, from int) error {
	l, err := ReadLayout(fs, dir)
	if err != nil {
		return err
	}
	for _, i := range l.WithData {
		if i >= from {
			return fmt.Errorf("persistence: shard %d of %s holds data", i, dir)
		}
	}
	names, err := fs.List(dir)
	if err != nil {
		return fmt.Errorf("persistence: list %s: %w", dir, err)
	}
	removed := false
	for _, name := range names {
		if i, ok := shardIndexOf(name); ok && i >= from && liveShardFile(name, i) {
			if err := fs.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("persistence: remove %s: %w", filepath.Join(dir, name), err)
			}
			removed = true
		}
	}
	if removed {
		if err := fs.SyncDir(dir); err != nil {
			return fmt.Errorf("persistence: sync dir %s: %w", dir, err)
		}
	}
	return nil
}
