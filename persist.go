package main

import (
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
)

// newPersistence attaches the shards to their write-ahead logs and
// snapshots; nil when the WAL is off.
func newPersistence(cfg config.Config, repair bool, log *zap.Logger) (keyspace.Persistence, error) {
	return nil, nil
}
