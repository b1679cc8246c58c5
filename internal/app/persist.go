package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// newPersistence attaches the shards to their write-ahead logs and
// snapshots under the data directory, through fs (nil: the operating
// system's); nil when the WAL is off.
func newPersistence(cfg config.Config, repair bool, fs persistence.FS, log *zap.Logger) (keyspace.Persistence, error) {
	p := cfg.Persistence
	if !p.WAL {
		log.Info("persistence off: serving from memory only")
		return nil, nil
	}
	policy, err := persistence.ParseFsyncPolicy(p.Fsync)
	if err != nil {
		return nil, err
	}
	if fs == nil {
		fs = persistence.NewOSFS()
	}
	return keyspace.NewDisk(keyspace.DiskOptions{
		FS:                 fs,
		Dir:                p.Dir,
		Policy:             policy,
		SegmentSize:        p.SegmentSize,
		SnapshotEvery:      time.Duration(p.SnapshotEvery) * time.Second,
		SnapshotWALBytes:   p.SnapshotWALBytes,
		SnapshotWALPercent: p.SnapshotWALPercent,
		SnapshotOnShutdown: p.SnapshotOnShutdown,
		Repair:             repair,
	}), nil
}

// explainStartError adds to an error that stopped recovery what the
// operator can do about it, keeping it one line.
func explainStartError(err error, dir string) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w; the volume of the data directory %s is full: free space on it, or choose another --dir (the refused start removed the files it had created)", err, dir)
	}
	var ce *persistence.CorruptionError
	if !errors.As(err, &ce) || !strings.HasSuffix(ce.File, ".log") {
		return err
	}
	if ce.MissingRecords() {
		return fmt.Errorf("%w; records are missing, not damaged (a WAL segment or the snapshot they lead up to was removed): restore the data directory from a backup; --repair cannot recreate them", err)
	}
	return fmt.Errorf("%w; the write-ahead log is damaged there: restore the data directory from a backup, or start with --repair to cut the log at that offset (the cut bytes are kept in %s.broken; the records from there on are lost)", err, filepath.Base(ce.File))
}
