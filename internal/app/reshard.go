package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// stagingMarker is the file that tells a reshard's staging directory
// from any other: only a directory holding it may be removed by the next
// reshard.
const stagingMarker = "ruvio-reshard-staging"

// Reshard rewrites the data directory of cfg, written by another shard
// count, into cfg.Server.Shards shards while holding the directory's
// lock, and prints a report to out. The new layout is written beside the
// directory ("<dir>.reshard-new"), then takes the directory's name; the
// old directory is kept, untouched, as "<dir>.before-reshard-<from>to<to>-
// <time>", for the operator to remove once the server runs on the new
// one. On any failure before the swap the directory is left as it was.
func Reshard(cfg config.Config, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if !cfg.Persistence.WAL {
		return errors.New("persistence is off (persistence.wal = false): there is no data directory to reshard")
	}
	dir := filepath.Clean(cfg.Persistence.Dir)
	to := cfg.Server.Shards
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	lock, err := lockDataDir(dir, zap.NewNop())
	if err != nil {
		return err
	}
	defer lock.release()
	fs := persistence.NewOSFS()
	l, err := persistence.ReadLayout(fs, dir)
	if err != nil {
		return err
	}
	if !l.HasData() {
		return fmt.Errorf("%s holds no data: a server starts there with any shard count", dir)
	}
	from := l.Shards
	if from == to {
		fmt.Fprintf(out, "%s already holds the data of %d shard(s): nothing to do\n", dir, to)
		return nil
	}
	staging := dir + ".reshard-new"
	if err := prepareStaging(staging); err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(staging)
		}
	}()
	skipped, err := copyDirFiles(dir, staging)
	if err != nil {
		return err
	}
	// Node ids stay those of the directory, shard for shard.
	ids, err := cluster.LoadOrCreateNodeIDs(staging, max(from, to))
	if err != nil {
		return fmt.Errorf("node ids: %w", err)
	}
	fromTopo, err := cluster.NewTopology(cfg.AnnounceHost(), cfg.Server.Port, from, ids[:from])
	if err != nil {
		return err
	}
	toTopo, err := cluster.NewTopology(cfg.AnnounceHost(), cfg.Server.Port, to, ids[:to])
	if err != nil {
		return err
	}
	rep, err := keyspace.Reshard(keyspace.ReshardOptions{
		FS: fs, From: dir, To: staging, Config: cfg,
		FromTopology: fromTopo, ToTopology: toTopo, Now: time.Now, Logger: zap.NewNop(),
	})
	if err != nil {
		return err
	}
	if err := fs.SyncDir(staging); err != nil {
		return fmt.Errorf("sync %s: %w", staging, err)
	}
	backup := fmt.Sprintf("%s.before-reshard-%dto%d-%s", dir, from, to, time.Now().Format("20060102T150405"))
	// From here staging is never removed: once the names are exchanged
	// it holds the old layout.
	ok = true
	if err := swapIn(dir, staging, backup); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, stagingMarker)); err != nil {
		return fmt.Errorf("remove %s: %w", filepath.Join(dir, stagingMarker), err)
	}
	_ = fs.SyncDir(dir)
	fmt.Fprintf(out, "resharded %s from %d to %d shard(s): %d keys in %.2fs (%d bytes of snapshots)\n",
		dir, from, to, rep.Keys, rep.Elapsed.Seconds(), rep.Bytes)
	for i, n := range rep.Read {
		fmt.Fprintf(out, "  read  shard %d: %d keys\n", i, n)
	}
	for i, n := range rep.PerShard {
		fmt.Fprintf(out, "  wrote shard %d: %d keys\n", i, n)
	}
	if rep.Expired > 0 {
		fmt.Fprintf(out, "not written: %d keys already expired\n", rep.Expired)
	}
	for _, s := range skipped {
		fmt.Fprintf(out, "not copied (a directory): %s\n", s)
	}
	fmt.Fprintf(out, "the old layout is kept in %s: start the server with --shards %d, and remove it once satisfied\n", backup, to)
	return nil
}

// prepareStaging creates an empty staging directory at path, removing one
// an interrupted reshard left (it holds the marker). Anything else at
// that name is refused: after a crash in the middle of the swap it holds
// the data of the old layout.
func prepareStaging(path string) error {
	if _, err := os.Stat(path); err == nil {
		if _, err := os.Stat(filepath.Join(path, stagingMarker)); err != nil {
			return fmt.Errorf("%s exists and is not a reshard's staging directory (an interrupted reshard may have left the old layout there): move it aside first", path)
		}
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("remove the staging directory of an interrupted reshard: %w", err)
		}
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return fmt.Errorf("create the staging directory: %w", err)
	}
	return os.WriteFile(filepath.Join(path, stagingMarker), []byte("staging directory of ruvio reshard; safe to remove\n"), 0o644)
}

// copyDirFiles copies to dst the files of src that are not a shard's
// (nodes.conf, an ACL file kept there, ...) except the lock. It returns
// the subdirectories it did not copy.
func copyDirFiles(src, dst string) ([]string, error) {
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	var skipped []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, "shard-") || name == LockFileName || name == stagingMarker {
			continue
		}
		if e.IsDir() {
			skipped = append(skipped, filepath.Join(src, name))
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return nil, err
		}
	}
	return skipped, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return fmt.Errorf("sync %s: %w", dst, err)
	}
	return out.Close()
}

// swapIn gives dir's name to staging and keeps the old directory as
// backup: in one step where the file system can (then staging names
// the old directory until it is renamed), else by two renames.
func swapIn(dir, staging, backup string) error {
	parent := filepath.Dir(dir)
	swapped, err := exchangeDirs(staging, dir)
	if err != nil {
		return fmt.Errorf("swap %s and %s: %w", staging, dir, err)
	}
	if swapped {
		if err := os.Rename(staging, backup); err != nil {
			return fmt.Errorf("the new layout is in place, but keeping the old one as %s failed (it is in %s): %w", backup, staging, err)
		}
	} else {
		if err := os.Rename(dir, backup); err != nil {
			return fmt.Errorf("move %s aside: %w", dir, err)
		}
		if err := os.Rename(staging, dir); err != nil {
			return fmt.Errorf("the old layout is in %s, the new one in %s (rename it to %s): %w", backup, staging, dir, err)
		}
	}
	return persistence.NewOSFS().SyncDir(parent)
}
