package keyspace

import (
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
)

// This file holds the keyspace's side of a cluster across hosts: the slot
// layout, replaced whenever the control plane publishes a new one, the
// write lease that fences a primary, and the role changes the control
// plane orders. The control plane itself is the cluster/control package.

// clusterState is the slot layout and the write lease.
type clusterState struct {
	topo atomic.Pointer[cluster.Topology]
	// multi is set for a cluster across hosts, fixed at start.
	multi bool
	// leaseBase is the monotonic origin of leaseUntil.
	leaseBase time.Time
	// leaseUntil is when the write lease ends, in nanoseconds after
	// leaseBase on the monotonic clock; 0: no lease.
	leaseUntil atomic.Int64
	// outgoing are the migrations this process sends (SetMigrations).
	outgoing atomic.Pointer[[]Outgoing]
	// cleanFrom is the lowest topology epoch keys are deleted by: the
	// epoch this process had applied before it restarted (the control
	// plane replays older states first).
	cleanFrom atomic.Uint64
	// cleanBase is the topology the next one at least cleanFrom new is
	// compared with to find the slots a shard stops keeping: the last
	// such topology, or the one the process started with. Older ones
	// never become it, so the first topology past cleanFrom after a
	// restart is compared with the start's, which keeps no slot, and
	// deletes what a crash left of an earlier deletion.
	cleanBase atomic.Pointer[cluster.Topology]
}

func (c *clusterState) init(t *cluster.Topology) {
	c.topo.Store(t)
	c.cleanBase.Store(t)
	c.multi = t.Multi
	c.leaseBase = time.Now() // lint:allow-clock the lease is measured on the monotonic clock, not the server's clock
}

// ClusterAcrossHosts reports whether the process is a member of a cluster
// across hosts (its topology comes from the control plane).
func (s *Server) ClusterAcrossHosts() bool { return s.Cluster.multi }

// RoutesSlots reports whether keys are checked against the slot layout:
// with several shards, or in a cluster across hosts.
func (s *Server) RoutesSlots() bool { return len(s.ShardList) > 1 || s.Cluster.multi }

// SetTopology publishes a new slot layout; t must have as many local
// shards as the server.
func (s *Server) SetTopology(t *cluster.Topology) {
	if len(t.Nodes) != len(s.ShardList) {
		s.Log.Error("refusing a topology with another shard count", zap.Int("shards", len(t.Nodes)))
		return
	}
	s.Cluster.topo.Store(t)
	for _, i := range s.Cluster.cleanupAfter(t, len(s.ShardList)) {
		sh := s.ShardList[i]
		sh.Post(func() {
			sh.redirectBlocked()
			sh.scheduleCleanup()
		})
	}
}

// cleanupAfter returns the shards that delete keys when t is applied
// (cleanupPlan against cleanBase); topologies older than cleanFrom delete
// none and leave cleanBase alone.
func (c *clusterState) cleanupAfter(t *cluster.Topology, shards int) []int {
	if t.Epoch < c.cleanFrom.Load() {
		return nil
	}
	return cleanupPlan(c.cleanBase.Swap(t), t, shards)
}

// SetCleanFrom makes topologies older than epoch delete no keys: the
// epoch this process had applied before a restart.
func (s *Server) SetCleanFrom(epoch uint64) { s.Cluster.cleanFrom.Store(epoch) }

// SetWriteLease lets this process's primary shards serve until until (read
// on the monotonic clock); a zero time withdraws the lease at once.
func (s *Server) SetWriteLease(until time.Time) {
	if until.IsZero() {
		s.Cluster.leaseUntil.Store(0)
		return
	}
	s.Cluster.leaseUntil.Store(int64(until.Sub(s.Cluster.leaseBase)))
}

// WriteLeaseValid reports whether the write lease is held now. The
// monotonic clock is read afresh: a process stopped (SIGSTOP) past its
// lease finds it lapsed the moment it runs again.
func (s *Server) WriteLeaseValid() bool {
	until := s.Cluster.leaseUntil.Load()
	return until != 0 && int64(time.Since(s.Cluster.leaseBase)) < until // lint:allow-clock monotonic lease
}

// errNoLease is the reply of a primary without a write lease: Redis
// Cluster clients retry CLUSTERDOWN.
const errNoLease = "CLUSTERDOWN The cluster is down: this primary holds no write lease"

// errSlotNotServed is Redis's reply for a slot no node owns.
const errSlotNotServed = "CLUSTERDOWN Hash slot not served"

// SlotRefusal is the error for a command of client c on shard idx about a
// key of slot, or "" when the shard serves it: MOVED to the slot's primary,
// CLUSTERDOWN when no group owns it or when this primary has no write
// lease. A replica of the slot's group serves reads (write false) of a
// READONLY connection.
func (s *Server) SlotRefusal(t *cluster.Topology, slot uint16, idx int, write bool, c *Client) string {
	if t.ShardOf(slot) == idx {
		if !t.Multi {
			return ""
		}
		if !t.LocalReplica {
			if !s.WriteLeaseValid() {
				return errNoLease
			}
			return ""
		}
		if !write && c != nil && c.ReadOnly {
			return ""
		}
	}
	owner, ok := t.Owner(slot)
	if !ok {
		return errSlotNotServed
	}
	return "MOVED " + strconv.Itoa(int(slot)) + " " + t.AddrFor(owner, c.ReachedHost())
}

// BecomePrimary makes a replica process a primary, as REPLICAOF NO ONE
// does: it stops following, and, when newHistory is set, each shard's log
// starts a history of its own so that the former primary's replicas cannot
// resume from it as if nothing had diverged. It returns false when the
// process was a primary already.
func (s *Server) BecomePrimary(newHistory bool) bool {
	if !s.IsReplica() {
		return false
	}
	s.Repl.Replica.Store(false)
	s.Repl.Epoch.Add(1)
	if s.Opts.Replication != nil {
		s.Opts.Replication.Unfollow()
	}
	if newHistory {
		for _, o := range s.ShardList {
			o.Post(func() {
				if err := o.SetReplID(RandomHex(40)); err != nil {
					o.Logger().Error("storing the new replication id", zap.Error(err))
				}
			})
		}
	}
	s.Repl.Mu.Lock()
	s.Repl.Host, s.Repl.Port = "", 0
	s.Repl.Mu.Unlock()
	return true
}

// BecomeReplica makes the process follow the primary whose shard 0
// listens on host:port, as REPLICAOF does; its own replicas are dropped and
// reconnect. It returns false when it follows that primary already.
func (s *Server) BecomeReplica(host string, port int) (bool, error) {
	if h, p := s.PrimaryAddr(); s.IsReplica() && h == host && p == port {
		return false, nil
	}
	s.Repl.Mu.Lock()
	s.Repl.Host, s.Repl.Port = host, port
	s.Repl.Mu.Unlock()
	was := s.Repl.Replica.Swap(true)
	for _, o := range s.ShardList {
		o.Post(o.DropReplicas)
		if !was {
			o.Post(o.UnblockForRoleChange)
		}
	}
	if s.Opts.Replication == nil {
		return true, nil
	}
	return true, s.Opts.Replication.Follow(host, port, s.Repl.Epoch.Add(1))
}
