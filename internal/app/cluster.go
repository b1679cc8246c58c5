package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/cluster/control"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
)

// member joins the keyspace and the control plane of a cluster across
// hosts: it turns each topology the control plane applies into the
// keyspace's slot layout and role (primary, or replica following its
// group's primary), and the control plane's leases into the keyspace's
// write lease.
type member struct {
	cfg  config.Config
	self control.Member
	ks   *keyspace.Server
	log  *zap.Logger
	node *control.Node

	mu sync.Mutex // serialises role changes
	// primaryEpoch is the group epoch at which this member last became
	// primary, kept in the data directory: a primary that restarts into
	// the same epoch keeps its history, so its replicas resume.
	primaryEpoch uint64
	// appliedEpoch is the highest topology epoch applied (appliedEpochFile).
	appliedEpoch uint64
	// imports cancel the imports this member runs, by migration id.
	imports map[uint64]context.CancelFunc
	// committed are the migrations this member committed as their
	// receiver and whose commit its own log may not have applied yet.
	committed map[uint64]bool
	// lastFailed is the failed list of the last state applied.
	lastFailed []string
	stopWatch  chan struct{}
	// tlsServer and tlsClient are the control port's TLS settings under
	// tls-cluster (setTLS), read at each new control connection.
	tlsServer atomic.Pointer[tls.Config]
	tlsClient atomic.Pointer[tls.Config]
}

// setTLS builds the control port's TLS settings from t. tls-cluster is
// fixed at start: the control plane's links are TLS or not for the
// process's life.
func (m *member) setTLS(t config.TLSConfig) error {
	if t.Cluster != m.cfg.TLS.Cluster {
		return errors.New("tls-cluster is fixed at start (tls.cluster in the configuration file)")
	}
	if !t.Cluster {
		return nil
	}
	server, err := t.ServerConfig()
	if err != nil {
		return fmt.Errorf("tls-cluster: %w", err)
	}
	client, err := t.ClientConfig()
	if err != nil {
		return fmt.Errorf("tls-cluster: %w", err)
	}
	m.tlsServer.Store(server)
	m.tlsClient.Store(client)
	return nil
}

// primaryEpochFile holds member.primaryEpoch.
const primaryEpochFile = "cluster-primary-epoch"

// newMember describes this process as a member; ids are its shards' node
// ids.
func newMember(cfg config.Config, ids []string, log *zap.Logger) *member {
	host := cfg.AnnounceHost()
	m := &member{cfg: cfg, log: log.Named("cluster"), self: control.Member{
		Name:    cfg.Cluster.Name,
		Host:    host,
		Port:    cfg.Server.Port,
		Control: net.JoinHostPort(host, strconv.Itoa(cfg.ControlPortOrDefault())),
		NodeIDs: slices.Clone(ids),
	}}
	m.primaryEpoch = readEpochFile(cfg.Persistence.Dir, primaryEpochFile)
	m.appliedEpoch = readEpochFile(cfg.Persistence.Dir, appliedEpochFile)
	m.imports = map[uint64]context.CancelFunc{}
	m.committed = map[uint64]bool{}
	m.stopWatch = make(chan struct{})
	return m
}

// initialTopology is the layout before the control plane has told
// anything: this member's shards serve no slot.
func (m *member) initialTopology() (*cluster.Topology, error) {
	return cluster.NewClusterTopology(m.view(m.self, false), 0, nil)
}

func (m *member) view(mb control.Member, failed bool) cluster.MemberView {
	return cluster.MemberView{Name: mb.Name, Host: mb.Host, Port: mb.Port, NodeIDs: mb.NodeIDs, Failed: failed}
}

// start runs the control plane; the keyspace serves by then.
func (m *member) start() error {
	var seeds []control.Seed
	for _, s := range m.cfg.Cluster.Members {
		sd, err := config.ParseClusterMember(s)
		if err != nil {
			return fmt.Errorf("cluster.members: %w", err)
		}
		seeds = append(seeds, control.Seed{Name: sd.Name, Control: sd.Control})
	}
	node, err := control.Start(control.Config{
		Self:        m.self,
		Listen:      net.JoinHostPort(m.cfg.Server.Host(), strconv.Itoa(m.cfg.ControlPortOrDefault())),
		Dir:         filepath.Join(m.cfg.Persistence.Dir, "control"),
		Seeds:       seeds,
		Join:        m.cfg.Cluster.Join,
		Replicas:    m.cfg.Cluster.Replicas,
		NodeTimeout: time.Duration(m.cfg.Cluster.NodeTimeoutMs) * time.Millisecond,
		Logger:      m.log,
		OnState:     m.apply,
		OnLease:     m.lease,
		Status:      m.status,
		TLS:         m.controlTLS(),
	})
	if err != nil {
		return err
	}
	m.node = node
	go m.freezeWatch(m.stopWatch)
	m.log.Info("control plane started", zap.String("member", m.self.Name), zap.String("control", m.self.Control))
	return nil
}

// moveClient is CONFIG SET port or bind on a member of a cluster across
// hosts: this member is reached at host and port now. The control plane
// registers the new address, and the topology every member applies from
// its log then names it. A wildcard host (a bind of 0.0.0.0 with no
// cluster.announce) names no host to reach: the member keeps its
// registered host and moves only its port.
func (m *member) moveClient(host string, port int) {
	m.mu.Lock()
	if cluster.Wildcard(host) {
		host = m.self.Host
	}
	changed := m.self.Host != host || m.self.Port != port
	m.self.Host, m.self.Port = host, port
	m.mu.Unlock()
	if !changed {
		return
	}
	m.log.Info("registering this member's new client address", zap.String("member", m.self.Name), zap.String("addr", net.JoinHostPort(host, strconv.Itoa(port))))
	if m.node != nil {
		m.node.SetClientAddress(host, port)
	}
}

// controlTLS is the control plane's TLS under tls-cluster, nil without.
func (m *member) controlTLS() *control.TLS {
	if !m.cfg.TLS.Cluster {
		return nil
	}
	return &control.TLS{Server: m.tlsServer.Load, Client: m.tlsClient.Load}
}

func (m *member) stop() {
	if m.node == nil {
		return
	}
	close(m.stopWatch)
	m.mu.Lock()
	for id, cancel := range m.imports {
		cancel()
		delete(m.imports, id)
	}
	m.mu.Unlock()
	if err := m.node.Close(); err != nil {
		m.log.Warn("stopping the control plane", zap.Error(err))
	}
}

// requestFailover is CLUSTER FAILOVER on this member: it runs on a shard
// goroutine, so the request to the leader is bounded by the control
// plane's own timeouts.
func (m *member) requestFailover() error {
	if m.node == nil {
		return errors.New("the control plane is not running yet")
	}
	return m.node.RequestFailover()
}

// status is what the heartbeats report.
func (m *member) status() control.Status {
	st := control.Status{Primary: !m.ks.IsReplica()}
	for i := range m.ks.Shards() {
		st.Seqs = append(st.Seqs, m.ks.DurableSequence(i))
	}
	return st
}

// lease applies a write lease the leader granted.
func (m *member) lease(until time.Time) {
	if m.ks.IsReplica() {
		return
	}
	m.ks.SetWriteLease(until)
}

// apply makes the keyspace match a new topology.
func (m *member) apply(st *control.State, failed []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastFailed = failed
	st = m.withOwnCommits(st)
	var groups []cluster.GroupView
	for _, g := range st.Groups {
		p, ok := st.Member(g.Primary)
		if !ok {
			continue
		}
		gv := cluster.GroupView{ID: g.ID, Slots: g.Slots, ShardSlots: g.ShardSlots, Epoch: g.Epoch, Primary: m.view(p, slices.Contains(failed, p.Name))}
		for _, r := range g.Replicas {
			if rm, ok := st.Member(r); ok {
				gv.Replicas = append(gv.Replicas, m.view(rm, slices.Contains(failed, r)))
			}
		}
		groups = append(groups, gv)
	}
	var imports []cluster.ImportView
	for _, mg := range st.Migrations {
		imports = append(imports, cluster.ImportView{ID: mg.ID, Group: mg.To, Shard: mg.ToShard, Slots: mg.Slots})
	}
	topo, err := cluster.NewClusterTopology(m.view(m.self, false), st.Epoch, groups, imports...)
	if err != nil {
		m.log.Error("topology refused", zap.Error(err))
		return
	}
	// The topology first: a freeze ended by a commit must find the range
	// served elsewhere when its held writes run again.
	defer m.storeAppliedEpoch(st.Epoch)
	defer m.migrations(st)
	g := st.GroupOf(m.self.Name)
	switch {
	case g == nil:
		m.ks.SetTopology(topo)
	case g.Primary == m.self.Name:
		if m.ks.IsReplica() {
			// Same epoch as before a restart: the same history goes on.
			newHistory := m.primaryEpoch != g.Epoch
			m.ks.BecomePrimary(newHistory)
			m.storePrimaryEpoch(g.Epoch)
			m.log.Warn("serving as the primary of a group", zap.Int("group", g.ID), zap.Uint64("epoch", g.Epoch), zap.Bool("new_history", newHistory))
		}
		m.ks.SetTopology(topo)
	default:
		p, ok := st.Member(g.Primary)
		if !ok {
			return
		}
		// A primary demoted now, or one that restarts after a failover
		// (its data directory says it was a primary).
		wasPrimary := !m.ks.IsReplica() || m.primaryEpoch != 0
		m.ks.SetWriteLease(time.Time{})
		m.ks.SetTopology(topo)
		if wasPrimary {
			m.logDiscarded(g)
			m.storePrimaryEpoch(0)
		}
		changed, err := m.ks.BecomeReplica(p.Host, p.Port)
		if err != nil {
			m.log.Error("following the group's primary", zap.String("primary", p.Name), zap.Error(err))
			return
		}
		if changed {
			m.log.Info("following the group's primary", zap.Int("group", g.ID), zap.String("primary", p.Name), zap.String("addr", net.JoinHostPort(p.Host, strconv.Itoa(p.Port))))
		}
	}
}

// logDiscarded counts, when a former primary rejoins as a replica, the
// records it made durable after the sequence its successor was promoted
// at: the full resync that follows discards them.
func (m *member) logDiscarded(g *control.Group) {
	var n uint64
	for i := range m.ks.Shards() {
		own := m.ks.DurableSequence(i)
		if i < len(g.PromotedAt) && own > g.PromotedAt[i] {
			n += own - g.PromotedAt[i]
		}
	}
	m.log.Warn("a former primary rejoins as a replica: records written after the failover are discarded by the resync",
		zap.Int("group", g.ID), zap.String("primary", g.Primary), zap.Uint64("discarded_records", n))
}

func (m *member) storePrimaryEpoch(e uint64) {
	m.primaryEpoch = e
	if err := writeEpochFile(m.cfg.Persistence.Dir, primaryEpochFile, e); err != nil {
		m.log.Error("storing the primary epoch", zap.Error(err))
	}
}

// readEpochFile reads an epoch kept in file name of dir (0 when absent).
func readEpochFile(dir, name string) uint64 {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0
	}
	e, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return e
}

// writeEpochFile keeps epoch e in file name of dir, durably: written to a
// temporary file, synced, then renamed over it.
func writeEpochFile(dir, name string, e uint64) error {
	p := filepath.Join(dir, name)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatUint(e, 10)+"\n"), 0o600); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func syncFile(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
