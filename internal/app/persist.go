package app

import (
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// newPersistence attaches the shards to their write-ahead logs and
// snapshots under the data directory; nil when the WAL is off.
func newPersistence(cfg config.Config, repair bool, log *zap.Logger) (keyspace.Persistence, error) {
	p := cfg.Persistence
	if !p.WAL {
		log.Info("persistence off: serving from memory only")
		return nil, nil
	}
	policy, err := persistence.ParseFsyncPolicy(p.Fsync)
	if err != nil {
		return nil, err
	}
	return keyspace.NewDisk(keyspace.DiskOptions{
		FS:                 persistence.OSFS{},
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
