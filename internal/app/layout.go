package app

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ruvio/ruvio/persistence"
)

// ErrLayoutMismatch is returned by Start for a data directory written
// with another shard count than the configured one.
var ErrLayoutMismatch = errors.New("data directory written with another shard count")

// checkLayout refuses a data directory whose data was written by another
// number of shards than shards: every key would be loaded by the shard of
// its old layout, most of them outside the slots that shard owns, and
// shards past the new count would not be loaded at all. A directory
// without data takes any count.
func checkLayout(fs persistence.FS, dir string, shards int) error {
	l, err := persistence.ReadLayout(fs, dir)
	if err != nil {
		return err
	}
	if !l.HasData() {
		if l.Shards > shards {
			// Files of shards this start does not run, without data: left,
			// they would make the directory look written by more shards
			// once the ones that run write.
			return persistence.RemoveShardsFrom(fs, dir, shards)
		}
		return nil
	}
	if l.Shards == shards {
		return nil
	}
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		abs = dir
	}
	return fmt.Errorf("%w: %s holds the data of %d shards (files shard-000-* to shard-%03d-*), but %d shard(s) were asked (server.shards or --shards); a shard owns a fixed part of the slots, so the data cannot be loaded by another count: start with --shards %d, or change the layout offline with: ruvio reshard --dir %s --shards %d",
		ErrLayoutMismatch, abs, l.Shards, l.Shards-1, shards, l.Shards, abs, shards)
}
