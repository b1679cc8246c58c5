package keyspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/types/rdb"
)

// ImportOptions says where ImportRDB writes.
type ImportOptions struct {
	FS  persistence.FS // the file system Dir is on
	Dir string         // the data directory the snapshots are written to
	// Shards and Databases are the server's: with one shard every
	// database of the file goes to the database of the same number; with
	// several, keys of database 0 go to the shard owning their slot and
	// any other database is refused.
	Shards, Databases int
	// Topology maps slots to shards when Shards > 1.
	Topology *cluster.Topology
	// Replace allows a data directory that already holds data: it is
	// replaced by the import. Without it such a directory is refused.
	Replace bool
	// Now is the clock: keys whose deadline it has passed are not
	// imported, as Redis does not load them; it also times the import.
	Now    func() time.Time
	Logger *zap.Logger // nil: no logging
}

// ImportReport is what an import did.
type ImportReport struct {
	Version int // the RDB version of the file
	// Keys counts imported keys by type (string, list, set, hash, zset);
	// PerDB counts them by database of the file.
	Keys  map[string]int
	PerDB map[int]int // imported keys by database of the file
	// Expired counts keys not imported because their deadline had passed.
	Expired int
	// Skipped lists what could not be imported, one line each.
	Skipped []string
	Aux     map[string]string // the file's auxiliary fields (redis-ver, ...)
	Bytes   int64             // the size of the snapshots written
	Elapsed time.Duration     // how long the import took
}

// Total is the number of keys imported.
func (r *ImportReport) Total() int {
	n := 0
	for _, c := range r.Keys {
		n += c
	}
	return n
}

// ErrDataDirNotEmpty is returned by ImportRDB for a data directory that
// already holds a WAL or snapshots, unless told to replace them.
var ErrDataDirNotEmpty = errors.New("keyspace: the data directory already holds data")

// shardFile reports whether name is a WAL segment or snapshot of a shard.
func shardFile(name string) bool {
	return strings.HasPrefix(name, "shard-") && (strings.HasSuffix(name, ".log") || strings.HasSuffix(name, ".snap"))
}

// ImportRDB loads a Redis RDB file into the data directory as one
// snapshot per shard, written through the snapshot writer, so the server
// loads it at start like its own. Nothing is left behind on failure: the
// snapshots are only made final once the whole file has been read and its
// checksum verified.
func ImportRDB(r io.Reader, o ImportOptions) (ImportReport, error) {
	rep := ImportReport{Keys: map[string]int{}, PerDB: map[int]int{}}
	if o.Now == nil {
		return rep, errors.New("keyspace: import: no clock")
	}
	begin := o.Now()
	nowMs := begin.UnixMilli()
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Shards < 1 || o.Databases < 1 {
		return rep, fmt.Errorf("keyspace: import: %d shards, %d databases", o.Shards, o.Databases)
	}
	if o.Shards > 1 && o.Topology == nil {
		return rep, errors.New("keyspace: import: several shards need the topology")
	}
	if err := o.FS.MkdirAll(o.Dir); err != nil {
		return rep, fmt.Errorf("keyspace: import: create %s: %w", o.Dir, err)
	}
	names, err := o.FS.List(o.Dir)
	if err != nil {
		return rep, fmt.Errorf("keyspace: import: read %s: %w", o.Dir, err)
	}
	var existing []string
	for _, n := range names {
		if shardFile(n) {
			existing = append(existing, n)
		}
	}
	// Empty or only preallocated segments (a server started and stopped
	// without writes) are no data; they go with the rest at the end.
	layout, err := persistence.ReadLayout(o.FS, o.Dir)
	if err != nil {
		return rep, fmt.Errorf("keyspace: import: %w", err)
	}
	if layout.HasData() && !o.Replace {
		return rep, fmt.Errorf("%w (%s holds %d WAL and snapshot files)", ErrDataDirNotEmpty, o.Dir, len(existing))
	}

	fr, err := rdb.NewFileReader(r)
	if err != nil {
		return rep, fmt.Errorf("keyspace: import: %w", err)
	}
	rep.Version = fr.Version()
	writers := make([]*persistence.SnapshotWriter, o.Shards)
	for i := range writers {
		if writers[i], err = persistence.CreateSnapshot(o.FS, o.Dir, i, 0, o.Logger); err != nil {
			for _, w := range writers[:i] {
				w.Abort()
			}
			return rep, fmt.Errorf("keyspace: import: %w", err)
		}
	}
	abort := func(err error) (ImportReport, error) {
		for _, w := range writers {
			w.Abort()
		}
		return rep, err
	}
	cfg := DefaultValueConfig()
	var buf []byte
	for {
		e, sk, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return abort(fmt.Errorf("keyspace: import: %w", err))
		}
		if sk != nil {
			line := fmt.Sprintf("db %d: %s", sk.DB, sk.What)
			if len(sk.Key) > 0 {
				line += fmt.Sprintf(" key %q", sk.Key)
			}
			if sk.Detail != "" {
				line += " (" + sk.Detail + ")"
			}
			rep.Skipped = append(rep.Skipped, line)
			continue
		}
		shard := 0
		switch {
		case o.Shards > 1 && e.DB != 0:
			return abort(fmt.Errorf("keyspace: import: key %q is in database %d, but with %d shards only database 0 exists (import into one shard, or move the keys to database 0 in Redis first)", e.Key, e.DB, o.Shards))
		case e.DB >= o.Databases:
			return abort(fmt.Errorf("keyspace: import: key %q is in database %d, but %d databases are configured (server.databases)", e.Key, e.DB, o.Databases))
		case o.Shards > 1:
			_, shard = o.Topology.ShardOfKey(e.Key)
		}
		if e.ExpireAtMs != 0 && e.ExpireAtMs <= nowMs {
			rep.Expired++
			continue
		}
		kind := KindString
		val, obj := ObjectFromRDB(cfg, &e.Value)
		if obj != nil {
			sv := obj.(SnapshotValue)
			kind = sv.SnapshotKind()
			buf = sv.AppendSnapshot(buf[:0])
			val = buf
		}
		if err := writers[shard].Add(uint16(e.DB), kind, e.Key, val, e.ExpireAtMs); err != nil {
			return abort(fmt.Errorf("keyspace: import: %w", err))
		}
		rep.Keys[e.Value.Kind.String()]++
		rep.PerDB[e.DB]++
	}
	for _, code := range fr.Functions {
		rep.Skipped = append(rep.Skipped, "function library "+strconvQuote(libraryName(code))+" (functions live in memory only: load it again with FUNCTION LOAD)")
	}
	rep.Aux = fr.Aux
	// Only now is the old data replaced.
	for _, n := range existing {
		if err := o.FS.Remove(filepath.Join(o.Dir, n)); err != nil {
			return abort(fmt.Errorf("keyspace: import: remove %s: %w", n, err))
		}
	}
	for i, w := range writers {
		size, err := w.Finish()
		if err != nil {
			for _, w := range writers[i+1:] {
				w.Abort()
			}
			return rep, fmt.Errorf("keyspace: import: shard %d: %w", i, err)
		}
		rep.Bytes += size
	}
	rep.Elapsed = o.Now().Sub(begin)
	slices.Sort(rep.Skipped)
	return rep, nil
}

// libraryName is the name in a library's "#!lua name=..." line.
func libraryName(code []byte) string {
	line, _, _ := bytes.Cut(code, []byte("\n"))
	for _, f := range strings.Fields(string(line)) {
		if n, ok := strings.CutPrefix(f, "name="); ok {
			return n
		}
	}
	return "?"
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }
