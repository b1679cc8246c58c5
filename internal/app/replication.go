package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/replication"
)

// replicator joins the keyspace and the replication package: it is the
// keyspace's Replication and receives the WALs' durability hook.
type replicator struct {
	ks      *keyspace.Server
	primary *replication.Primary
	dir     string
	port    int
	nodeIDs []string
	log     *zap.Logger
	// tlsDial, when set, is how links dial their primary (tls-replication).
	tlsDial atomic.Pointer[tls.Config]
	// onRole, when set, runs after the process became a replica or a primary.
	onRole func()

	mu       sync.Mutex
	follower *replication.Follower // mu guards
}

func newReplicator(dir string, shards, port int, log *zap.Logger) *replicator {
	r := &replicator{dir: dir, port: port, log: log}
	r.primary = replication.NewPrimary(persistence.NewOSFS(), dir, shards, func(i int) uint64 { return r.ks.DurableSequence(i) },
		func(i int) string { return r.ks.ReplID(i) }, log)
	return r
}

// durable is the keyspace's OnDurable hook.
func (r *replicator) durable(shard int, seq uint64) {
	r.primary.Durable(shard, seq)
	r.mu.Lock()
	f := r.follower
	r.mu.Unlock()
	if f != nil {
		f.Durable(shard)
	}
}

// DropLink closes shard's connection to its primary (keyspace.LinkDropper).
func (r *replicator) DropLink(shard int) bool {
	r.mu.Lock()
	f := r.follower
	r.mu.Unlock()
	return f != nil && f.DropLink(shard)
}

// SyncCounts is the primary side's synchronisation counts (keyspace.SyncCounter).
func (r *replicator) SyncCounts(shard int) (full, partialOK, partialErr int64) {
	return r.primary.SyncCounts(shard)
}

func (r *replicator) Serve(shard int, after uint64, out keyspace.ReplicaStream) {
	r.primary.Serve(shard, after, out)
}

func (r *replicator) Follow(host string, port int, epoch uint64) error {
	f := replication.NewFollower(replication.FollowerOptions{
		Host: host, Port: port, Credentials: r.ks.Live().PrimaryCredentials,
		SourceAddr: r.ks.Live().BindSourceAddr, Epoch: epoch,
		FS: persistence.NewOSFS(), Dir: r.dir, Log: r.log, ListenPort: r.port, NodeIDs: r.nodeIDs,
		Announce: r.ks.Live().ReplicaAnnounce,
		RunID:    r.ks.RunID(),
		Dial:     r.dial,
	}, r.ks)
	r.mu.Lock()
	old := r.follower
	r.follower = f
	r.mu.Unlock()
	if old != nil {
		old.Stop()
	}
	f.Start()
	r.roleChanged()
	return nil
}

// dial opens a link's connection to its primary with d: over TLS while
// tls-replication is on (the settings current at each dial), plain TCP
// otherwise.
func (r *replicator) dial(d *net.Dialer, addr string) (net.Conn, error) {
	conf := r.tlsDial.Load()
	if conf == nil {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("replication: dial %s: %w", addr, err)
		}
		return c, nil
	}
	td := &tls.Dialer{NetDialer: d, Config: conf}
	// The dialer's timeout bounds the connection and the handshake.
	c, err := td.DialContext(context.Background(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("replication: TLS dial %s: %w", addr, err)
	}
	return c, nil
}

// setTLS makes the links dial with t's client settings when t turns
// tls-replication on, plain TCP when off; links already open keep theirs.
func (r *replicator) setTLS(t config.TLSConfig) error {
	if !t.Replication {
		r.tlsDial.Store(nil)
		return nil
	}
	conf, err := t.ClientConfig()
	if err != nil {
		return fmt.Errorf("tls-replication: %w", err)
	}
	r.tlsDial.Store(conf)
	return nil
}

// roleChanged runs onRole, if set, after the process became a replica or a primary.
func (r *replicator) roleChanged() {
	if r.onRole != nil {
		r.onRole()
	}
}

func (r *replicator) Unfollow() {
	r.mu.Lock()
	old := r.follower
	r.follower = nil
	r.mu.Unlock()
	if old != nil {
		old.Stop()
	}
	r.roleChanged()
}

// stop ends the follower's links and waits for them, before the keyspace
// closes.
func (r *replicator) stop() {
	r.mu.Lock()
	old := r.follower
	r.follower = nil
	r.mu.Unlock()
	if old != nil {
		old.Stop()
		old.Wait()
	}
}

func (r *replicator) Link(shard int) keyspace.LinkStatus {
	r.mu.Lock()
	f := r.follower
	r.mu.Unlock()
	if f == nil {
		return keyspace.LinkStatus{}
	}
	st := f.Status(shard)
	return keyspace.LinkStatus{Up: st.Up, Syncing: st.Syncing, LastIO: st.LastIO, PrimarySequence: st.PrimarySequence, DownSince: st.DownSince, PrimaryChain: st.PrimaryChain}
}
