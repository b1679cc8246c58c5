package keyspace

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// ReshardOptions say what Reshard reads and where it writes.
type ReshardOptions struct {
	// FS holds both directories.
	FS persistence.FS
	// From is the data directory written by From.Shards shards; it is
	// only read (through persistence.ReadOnly).
	From string
	// To is an existing, empty directory that receives the new layout:
	// one snapshot per shard of To.Shards.
	To string
	// Config is the server's configuration (databases, encodings).
	Config config.Config
	// FromTopology and ToTopology map slots to the shards of each layout.
	FromTopology, ToTopology *cluster.Topology
	// Now is the clock: keys whose deadline it has passed are dropped, as
	// a start would drop them.
	Now    func() time.Time
	Logger *zap.Logger // nil: no logging
}

// ReshardReport is what Reshard did.
type ReshardReport struct {
	// Keys is the number of keys written; PerShard splits it by new shard.
	Keys     int
	PerShard []int // keys written, by new shard
	// Read is the number of keys of the old layout, per old shard.
	Read []int
	// Expired counts keys not written because their deadline had passed.
	Expired int
	// Bytes is the size of the new snapshots.
	Bytes   int64
	Elapsed time.Duration // how long the reshard took
}

// Reshard rewrites the data of a directory written by one shard count
// into the layout of another: every old shard is recovered in turn (its
// newest snapshot, then its WAL) into memory, and each of its keys is
// written to the snapshot of the new shard that owns the key's slot. The
// new snapshots are at sequence 0 with no WAL, as an import writes them,
// and are made final only once every old shard was read; on failure
// nothing is left in To. Memory holds one old shard at a time.
//
// With more than one shard only database 0 exists, so a one-shard
// directory with keys in another database cannot go to several shards.
// A directory that needs repair is refused (From is never changed): start
// the server on it once, with --repair if it asks, then reshard.
func Reshard(o ReshardOptions) (ReshardReport, error) {
	var rep ReshardReport
	if o.Now == nil {
		return rep, errors.New("keyspace: reshard: no clock")
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.FromTopology == nil || o.ToTopology == nil {
		return rep, errors.New("keyspace: reshard: both topologies are needed")
	}
	begin := o.Now()
	from, to := len(o.FromTopology.Nodes), len(o.ToTopology.Nodes)
	cfg := o.Config
	cfg.Server.Shards = from
	// The reshard server runs no command, so it has no command table and
	// no users to check against one.
	cfg.ACL = config.ACLConfig{}
	srv, err := NewServer(Options{Config: cfg, Topology: o.FromTopology, Logger: o.Logger, Now: o.Now, Commands: BuildCommandTable()})
	if err != nil {
		return rep, fmt.Errorf("keyspace: reshard: %w", err)
	}
	writers := make([]*persistence.SnapshotWriter, to)
	abort := func(err error) (ReshardReport, error) {
		for _, w := range writers {
			if w != nil {
				w.Abort()
			}
		}
		return rep, err
	}
	for i := range writers {
		if writers[i], err = persistence.CreateSnapshot(o.FS, o.To, i, 0, o.Logger); err != nil {
			return abort(fmt.Errorf("keyspace: reshard: %w", err))
		}
	}
	rep.PerShard = make([]int, to)
	src := persistence.ReadOnly(o.FS)
	nowMs := o.Now().UnixMilli()
	var buf []byte
	for _, sh := range srv.ShardList {
		if err := recoverReadOnly(src, o.From, sh); err != nil {
			return abort(fmt.Errorf("keyspace: reshard: shard %d of %s: %w", sh.Idx, o.From, err))
		}
		read := 0
		for d, db := range sh.DBs {
			if db.Len() == 0 {
				continue
			}
			var werr error
			db.T.eachInRange(0, 1<<32, func(h uint32) {
				if werr != nil {
					return
				}
				e := db.EntryAt(h)
				read++
				if e.Expired(nowMs) {
					rep.Expired++
					return
				}
				if to > 1 && d != 0 {
					werr = fmt.Errorf("keyspace: reshard: key %q is in database %d, but with %d shards only database 0 exists (move the keys to database 0 first)", e.Key(), d, to)
					return
				}
				_, owner := o.ToTopology.ShardOfKey(e.Key())
				if to == 1 {
					owner = 0
				}
				kind := KindString
				val := db.Val(e)
				if obj := db.Obj(e); obj != nil {
					sv, ok := obj.(SnapshotValue)
					if !ok {
						werr = fmt.Errorf("keyspace: reshard: value of type %T has no snapshot encoding", obj)
						return
					}
					kind = sv.SnapshotKind()
					buf = sv.AppendSnapshot(buf[:0])
					val = buf
				}
				if werr = writers[owner].Add(uint16(d), kind, e.Key(), val, e.ExpireAt); werr == nil {
					rep.PerShard[owner]++
					rep.Keys++
				}
			})
			if werr != nil {
				return abort(werr)
			}
		}
		rep.Read = append(rep.Read, read)
		// This shard's keys are written: let the collector have them.
		sh.DBs = nil
	}
	for i, w := range writers {
		size, err := w.Finish()
		writers[i] = nil
		if err != nil {
			return abort(fmt.Errorf("keyspace: reshard: new shard %d: %w", i, err))
		}
		rep.Bytes += size
	}
	rep.Elapsed = o.Now().Sub(begin)
	return rep, nil
}

// recoverReadOnly loads sh from the snapshot and WAL of its index in dir,
// as Disk.Open does, on an FS that changes nothing.
func recoverReadOnly(fs persistence.FS, dir string, sh *Shard) error {
	log := sh.Srv.Log
	snap, err := persistence.LoadSnapshots(fs, dir, sh.Idx, log, persistence.SnapshotLoadOptions{}, sh.LoadSnapshotEntry)
	if err != nil {
		return fmt.Errorf("load snapshot: %w", err)
	}
	if _, err := persistence.Recover(fs, dir, sh.Idx, snap.Seq, false, log, sh.ApplyRecord); err != nil {
		return fmt.Errorf("recover WAL: %w", err)
	}
	return nil
}
