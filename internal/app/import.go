package app

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// ImportRDB loads the Redis RDB file at path into cfg's data directory
// (keyspace.ImportRDB) while holding the directory's lock, so a running
// server's data is never written under it, and prints a report to out.
func ImportRDB(cfg config.Config, path string, replace bool, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if !cfg.Persistence.WAL {
		return fmt.Errorf("persistence is off (persistence.wal = false): the server would not load the import")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	log := zap.NewNop()
	lock, err := lockDataDir(cfg.Persistence.Dir, log)
	if err != nil {
		return err
	}
	defer lock.release()
	ids, err := cluster.LoadOrCreateNodeIDs(cfg.Persistence.Dir, cfg.Server.Shards)
	if err != nil {
		return fmt.Errorf("node ids: %w", err)
	}
	topo, err := cluster.NewTopology(cfg.AnnounceHost(), cfg.Server.Port, cfg.Server.Shards, ids)
	if err != nil {
		return err
	}
	rep, err := keyspace.ImportRDB(f, keyspace.ImportOptions{
		FS: persistence.NewOSFS(), Dir: cfg.Persistence.Dir,
		Shards: cfg.Server.Shards, Databases: cfg.Server.Databases, Topology: topo,
		Replace: replace, Now: time.Now, Logger: log,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// What is left of shards the import's layout does not have (history
	// ids, empty segments) would make the directory look written by more
	// shards than it now is.
	if err := persistence.RemoveShardsFrom(persistence.NewOSFS(), cfg.Persistence.Dir, cfg.Server.Shards); err != nil {
		return fmt.Errorf("%s: imported, but: %w", path, err)
	}
	writeImportReport(out, path, cfg, &rep)
	return nil
}

func writeImportReport(out io.Writer, path string, cfg config.Config, rep *keyspace.ImportReport) {
	from := "RDB version " + fmt.Sprint(rep.Version)
	if v := rep.Aux["redis-ver"]; v != "" {
		from += ", written by Redis " + v
	}
	secs := rep.Elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(rep.Total()) / secs
	}
	fmt.Fprintf(out, "imported %d keys from %s (%s) into %s (%d shard(s)) in %.2fs (%.0f keys/s, %d bytes of snapshots)\n",
		rep.Total(), path, from, cfg.Persistence.Dir, cfg.Server.Shards, secs, rate, rep.Bytes)
	for _, typ := range []string{"string", "list", "set", "hash", "zset", "stream"} {
		fmt.Fprintf(out, "  %-7s %d\n", typ, rep.Keys[typ])
	}
	var dbs []int
	for db := range rep.PerDB {
		dbs = append(dbs, db)
	}
	slices.Sort(dbs)
	for _, db := range dbs {
		fmt.Fprintf(out, "  db%-5d %d keys\n", db, rep.PerDB[db])
	}
	if rep.Expired > 0 {
		fmt.Fprintf(out, "not imported: %d keys already expired\n", rep.Expired)
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(out, "skipped (%d):\n  %s\n", len(rep.Skipped), strings.Join(rep.Skipped, "\n  "))
	}
}
