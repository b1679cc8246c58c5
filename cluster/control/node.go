package control

import (
	"errors"
	"fmt"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/ruvio/ruvio/cluster"
	"go.uber.org/zap"
)

// Seed is an initial member of a cluster: its name and control address.
type Seed struct {
	Name    string
	Control string
}

// Status is what a member reports of itself in its heartbeats.
type Status struct {
	// Primary is set while the member serves as a primary (it has
	// stopped following and its shards take writes once leased).
	Primary bool
	// Seqs are its shards' durable log sequences.
	Seqs []uint64
}

// Config configures a Node.
type Config struct {
	// Self is this member as it registers: name, client address, control
	// address, node ids.
	Self Member
	// Listen is the address the control port listens on ("host:port").
	Listen string
	// Dir holds the consensus log and its snapshots.
	Dir string
	// Seeds are the members that form the cluster; the first three or five
	// of them vote. Every seed must be given the same list.
	Seeds []Seed
	// Join are control addresses of a running cluster, for a member that is
	// not a seed.
	Join []string
	// Replicas is the number of replicas per group when the cluster forms.
	Replicas int
	// NodeTimeout is how long a primary may be silent before its group
	// fails over; it is also the length of a write lease.
	NodeTimeout time.Duration
	// Logger receives the control plane's events.
	Logger *zap.Logger
	// OnState is called with the newest topology whenever it or the set of
	// failed members changes, from one goroutine; states that were
	// superseded before it ran are skipped.
	OnState func(s *State, failed []string)
	// OnLease is called when a lease is granted: this member may serve as a
	// primary until until (monotonic clock).
	OnLease func(until time.Time)
	// Status reports this member's role and sequences for its heartbeats.
	Status func() Status
	// TLS, when set, makes the control port's links TLS (tls-cluster).
	TLS *TLS
}

// Node is a member's part of the control plane.
type Node struct {
	cfg       Config
	log       *zap.Logger
	raft      *raft.Raft
	fsm       *fsm
	mux       *muxListener
	transport *raft.NetworkTransport
	store     *raftboltdb.BoltStore
	rpcSrv    *rpc.Server
	peers     peers

	// selfMu guards self: this member as it registers, cfg.Self with the
	// client address CONFIG SET port or bind may have changed since.
	selfMu sync.Mutex
	self   Member

	stateCh chan struct{} // a new state or failed set to deliver
	mu      sync.Mutex
	latest  *State   // mu guards: the newest state not yet delivered
	failed  []string // mu guards: the members the leader reports failed

	// Leader-only state, guarded by lmu.
	lmu         sync.Mutex
	leading     bool
	leases      *leases
	lastSeen    map[string]time.Time
	seqs        map[string][]uint64
	revoked     map[string]int // member → group whose failover was asked for
	preferred   map[int]string // group → member a manual failover promotes
	confirmedAt time.Time      // when leadership was last confirmed by a quorum

	stop chan struct{}
	wg   sync.WaitGroup
}

// Start opens the consensus log in cfg.Dir, listens on cfg.Listen and runs
// the member's loops until Close.
func Start(cfg Config) (*Node, error) {
	if cfg.Self.Name == "" {
		return nil, errors.New("control: cluster.name is empty")
	}
	if cfg.NodeTimeout <= 0 {
		cfg.NodeTimeout = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	n := &Node{
		cfg:     cfg,
		log:     cfg.Logger.Named("control"),
		self:    cfg.Self,
		stateCh: make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
	n.fsm = &fsm{state: &State{}, changed: n.publish}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("control: listening on %s: %w", cfg.Listen, err)
	}
	n.rpcSrv = rpc.NewServer()
	if err := n.rpcSrv.RegisterName("Control", &service{n: n}); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("control: %w", err)
	}
	n.mux = newMux(ln, cfg.Self.Control, func(c net.Conn) { n.rpcSrv.ServeCodec(jsonrpc.NewServerCodec(c)) }, cfg.TLS)
	if cfg.TLS != nil {
		n.peers.tls = cfg.TLS.Client
	}
	ok := false
	defer func() {
		if !ok {
			_ = n.mux.Close()
			if n.store != nil {
				_ = n.store.Close()
			}
		}
	}()

	hlog := hclog.New(&hclog.LoggerOptions{
		Name:            "raft",
		Level:           hclog.Warn,
		Output:          raftLogWriter{n.log.Named("raft")},
		DisableTime:     true,
		IncludeLocation: false,
	})
	n.transport = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  n.mux,
		MaxPool: 3,
		Timeout: 2 * time.Second,
		Logger:  hlog,
	})
	n.store, err = raftboltdb.NewBoltStore(filepath.Join(cfg.Dir, "raft.db"))
	if err != nil {
		return nil, fmt.Errorf("control: opening the consensus log: %w", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(cfg.Dir, 2, hlog)
	if err != nil {
		return nil, fmt.Errorf("control: opening the snapshots: %w", err)
	}
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.Self.Name)
	rc.Logger = hlog
	rc.SnapshotThreshold = 1024
	existing, err := raft.HasExistingState(n.store, n.store, snaps)
	if err != nil {
		return nil, fmt.Errorf("control: reading the consensus log: %w", err)
	}
	n.raft, err = raft.NewRaft(rc, n.fsm, n.store, n.store, snaps, n.transport)
	if err != nil {
		return nil, fmt.Errorf("control: starting consensus: %w", err)
	}
	if !existing && n.isVotingSeed() {
		// The voting seeds form the cluster, all with the same
		// configuration; the other seeds are in it and receive the log.
		if err := n.raft.BootstrapCluster(n.bootstrapConfiguration()).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			_ = n.raft.Shutdown().Error()
			return nil, fmt.Errorf("control: forming the cluster: %w", err)
		}
		n.log.Info("forming the cluster", zap.Int("seeds", len(cfg.Seeds)))
	}
	ok = true
	n.wg.Add(4)
	go n.deliverLoop()
	go n.memberLoop()
	go n.leaderLoop()
	go n.confirmLoop()
	return n, nil
}

func (n *Node) isVotingSeed() bool {
	v := votersFor(len(n.cfg.Seeds))
	for i, s := range n.cfg.Seeds {
		if s.Name == n.cfg.Self.Name {
			return i < v
		}
	}
	return false
}

func (n *Node) isSeed() bool {
	return slices.ContainsFunc(n.cfg.Seeds, func(s Seed) bool { return s.Name == n.cfg.Self.Name })
}

// votersFor is how many of n seeds vote: 5 of 5 or more, else 3 of 3 or
// more, else 1.
func votersFor(n int) int {
	switch {
	case n >= 5:
		return 5
	case n >= 3:
		return 3
	}
	return 1
}

func (n *Node) bootstrapConfiguration() raft.Configuration {
	var c raft.Configuration
	v := votersFor(len(n.cfg.Seeds))
	for i, s := range n.cfg.Seeds {
		suffrage := raft.Nonvoter
		if i < v {
			suffrage = raft.Voter
		}
		c.Servers = append(c.Servers, raft.Server{Suffrage: suffrage, ID: raft.ServerID(s.Name), Address: raft.ServerAddress(s.Control)})
	}
	return c
}

// Close stops the node: its loops, the consensus and the control port.
func (n *Node) Close() error {
	select {
	case <-n.stop:
		return nil
	default:
	}
	close(n.stop)
	n.wg.Wait()
	err := n.raft.Shutdown().Error()
	_ = n.transport.Close()
	_ = n.mux.Close()
	n.peers.close()
	if cerr := n.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// publish hands a new state to the delivery loop (fsm.changed).
func (n *Node) publish(s *State) {
	n.mu.Lock()
	n.latest = s
	n.mu.Unlock()
	select {
	case n.stateCh <- struct{}{}:
	default:
	}
}

func (n *Node) setFailed(failed []string) {
	sort.Strings(failed)
	n.mu.Lock()
	same := slices.Equal(n.failed, failed)
	n.failed = failed
	if n.latest == nil && !same {
		n.latest = n.fsm.current()
	}
	n.mu.Unlock()
	if !same {
		select {
		case n.stateCh <- struct{}{}:
		default:
		}
	}
}

// deliverLoop calls OnState with each new state, newest first when several
// arrived meanwhile.
func (n *Node) deliverLoop() {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case <-n.stateCh:
		}
		n.mu.Lock()
		s, failed := n.latest, slices.Clone(n.failed)
		n.latest = nil
		n.mu.Unlock()
		if s != nil && n.cfg.OnState != nil {
			n.cfg.OnState(s, failed)
		}
	}
}

// RequestFailover asks the leader to make this member the primary of its
// group: the current primary is fenced and, once its lease has ended, this
// member is promoted.
func (n *Node) RequestFailover() error {
	st := n.fsm.current()
	g := st.GroupOf(n.cfg.Self.Name)
	switch {
	case g == nil:
		return errors.New("this member is in no group")
	case g.Primary == n.cfg.Self.Name:
		return errors.New("this member is its group's primary already")
	}
	leader, _ := n.raft.LeaderWithID()
	if leader == "" {
		return errors.New("the control plane has no leader now")
	}
	var r Reply
	return n.callLeader(string(leader), "Failover", FailoverArgs{Group: g.ID, To: n.cfg.Self.Name}, &r)
}

// State returns a copy of the topology this member has applied.
func (n *Node) State() *State { return n.fsm.current() }

// heartbeatEvery is how often a member reports to the leader.
func (n *Node) heartbeatEvery() time.Duration {
	return max(n.cfg.NodeTimeout/8, 50*time.Millisecond)
}

// rpcTimeout bounds each request between members.
func (n *Node) rpcTimeout() time.Duration { return max(n.cfg.NodeTimeout/2, 200*time.Millisecond) }

// memberLoop joins the cluster when needed, registers this member and
// sends its heartbeats.
func (n *Node) memberLoop() {
	defer n.wg.Done()
	t := time.NewTicker(n.heartbeatEvery())
	defer t.Stop()
	joined := n.isSeed()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		if !joined {
			if n.inConfiguration() {
				joined = true
			} else {
				n.tryJoin()
				continue
			}
		}
		leader, _ := n.raft.LeaderWithID()
		if leader == "" {
			continue
		}
		st := n.fsm.current()
		self := n.selfMember()
		if m, ok := st.Member(self.Name); !ok || !sameMember(m, self) {
			var r Reply
			if err := n.callLeader(string(leader), "Register", RegisterArgs{Member: self}, &r); err != nil {
				n.log.Debug("registering", zap.Error(err))
			}
			continue
		}
		n.heartbeat(string(leader), st)
	}
}

// SetClientAddress changes the address clients reach this member at (its
// first shard's host and port), as CONFIG SET port or bind moves the
// listeners: the member loop registers it with the leader at its next
// beat, and every member's topology (MOVED, CLUSTER SLOTS, the address its
// replicas follow) takes it from the log, as Redis's nodes take a changed
// port from the bus header.
func (n *Node) SetClientAddress(host string, port int) {
	n.selfMu.Lock()
	n.self.Host, n.self.Port = host, port
	n.selfMu.Unlock()
}

// selfMember is this member as it registers now.
func (n *Node) selfMember() Member {
	n.selfMu.Lock()
	defer n.selfMu.Unlock()
	return n.self
}

func sameMember(a, b Member) bool {
	return a.Name == b.Name && a.Host == b.Host && a.Port == b.Port && a.Control == b.Control && slices.Equal(a.NodeIDs, b.NodeIDs)
}

func (n *Node) inConfiguration() bool {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return false
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == raft.ServerID(n.cfg.Self.Name) {
			return true
		}
	}
	return false
}

// tryJoin asks the join addresses in turn to add this member.
func (n *Node) tryJoin() {
	for _, addr := range n.cfg.Join {
		var r Reply
		err := n.callLeader(addr, "Join", JoinArgs{Name: n.cfg.Self.Name, Control: n.cfg.Self.Control}, &r)
		if err == nil {
			n.log.Info("joined the cluster", zap.String("through", addr))
			return
		}
		n.log.Debug("joining", zap.String("through", addr), zap.Error(err))
	}
}

// callLeader sends a request to addr, then to the leader it names.
func (n *Node) callLeader(addr, method string, args any, reply leaderOf) error {
	for range 3 {
		if addr == n.cfg.Self.Control {
			if err := n.local(method, args, reply); err != nil {
				return err
			}
		} else if err := n.peers.call(addr, method, args, reply, n.rpcTimeout()); err != nil {
			return err
		}
		l, not := reply.leader()
		if !not {
			return nil
		}
		if l == "" || l == addr {
			return errors.New("control: no leader now")
		}
		addr = l
	}
	return errors.New("control: the leader kept changing")
}

// local runs a request on this node without the network.
func (n *Node) local(method string, args any, reply any) error {
	s := &service{n: n}
	switch method {
	case "Heartbeat":
		return s.Heartbeat(args.(HeartbeatArgs), reply.(*HeartbeatReply))
	case "Join":
		return s.Join(args.(JoinArgs), reply.(*Reply))
	case "Register":
		return s.Register(args.(RegisterArgs), reply.(*Reply))
	case "Failover":
		return s.Failover(args.(FailoverArgs), reply.(*Reply))
	case "MigrateEnd":
		return s.MigrateEnd(args.(MigrateEndArgs), reply.(*Reply))
	}
	return fmt.Errorf("control: no local %s", method)
}

func (n *Node) heartbeat(leader string, st *State) {
	status := Status{}
	if n.cfg.Status != nil {
		status = n.cfg.Status()
	}
	args := HeartbeatArgs{Name: n.cfg.Self.Name, Epoch: st.Epoch, Primary: status.Primary, Seqs: status.Seqs}
	sent := time.Now()
	var r HeartbeatReply
	if err := n.callLeader(leader, "Heartbeat", args, &r); err != nil {
		n.log.Debug("heartbeat", zap.String("leader", leader), zap.Error(err))
		return
	}
	if r.LeaseMs > 0 && n.cfg.OnLease != nil {
		n.cfg.OnLease(sent.Add(time.Duration(r.LeaseMs) * time.Millisecond))
	}
	n.setFailed(r.Failed)
}

// ---- the leader's side ----

// leaderAddr is the leader's control address as this node knows it.
func (n *Node) leaderAddr() string {
	a, _ := n.raft.LeaderWithID()
	return string(a)
}

// isLeader reports whether this node leads and has heard from a quorum
// within the leader lease.
func (n *Node) isLeader() bool { return n.raft.State() == raft.Leader }

// answerAsLeader fills the leader fields of a reply and reports whether
// this node leads; a caller that does not lead answers only those.
func (n *Node) answerAsLeader(r leaderReply) bool {
	if !n.isLeader() {
		r.setLeader(n.leaderAddr(), true)
		return false
	}
	r.setLeader(n.cfg.Self.Control, false)
	return true
}

func (n *Node) handleHeartbeat(a HeartbeatArgs, r *HeartbeatReply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	now := time.Now()
	st := n.fsm.current()
	n.lmu.Lock()
	defer n.lmu.Unlock()
	if !n.leading {
		// Leadership is starting or ending: no lease now.
		return nil
	}
	n.lastSeen[a.Name] = now
	n.seqs[a.Name] = slices.Clone(a.Seqs)
	g := st.GroupOf(a.Name)
	_, revoked := n.revoked[a.Name]
	confirmed := now.Sub(n.confirmedAt) < confirmWindow
	if g != nil && g.Primary == a.Name && a.Epoch >= g.Epoch && a.Primary && !revoked && confirmed {
		n.leases.grant(a.Name, now)
		r.LeaseMs = n.cfg.NodeTimeout.Milliseconds()
	}
	r.Failed = n.failedLocked(st, now)
	return nil
}

// failedLocked lists the members not heard from within the node timeout.
func (n *Node) failedLocked(st *State, now time.Time) []string {
	var out []string
	for _, m := range st.Members {
		if now.Sub(n.seen(m.Name)) > n.cfg.NodeTimeout {
			out = append(out, m.Name)
		}
	}
	return out
}

// seen is when the leader last heard from member, leadership's start at
// the earliest.
func (n *Node) seen(member string) time.Time {
	t, ok := n.lastSeen[member]
	if !ok || t.Before(n.leases.since) {
		return n.leases.since
	}
	return t
}

func (n *Node) handleJoin(a JoinArgs, r *Reply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	if a.Name == "" || a.Control == "" {
		return errors.New("a joining member needs a name and a control address")
	}
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return err
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == raft.ServerID(a.Name) {
			if s.Address == raft.ServerAddress(a.Control) {
				return nil
			}
			return fmt.Errorf("a member named %s is already in the cluster at %s", a.Name, s.Address)
		}
	}
	n.log.Info("adding a member", zap.String("member", a.Name), zap.String("control", a.Control))
	return n.raft.AddNonvoter(raft.ServerID(a.Name), raft.ServerAddress(a.Control), 0, n.rpcTimeout()).Error()
}

func (n *Node) handleRegister(a RegisterArgs, r *Reply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	m := a.Member
	return n.apply(Command{Op: OpRegister, Member: &m})
}

func (n *Node) handleFailover(a FailoverArgs, r *Reply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	st := n.fsm.current()
	if a.Group < 0 || a.Group >= len(st.Groups) {
		return fmt.Errorf("no group %d", a.Group)
	}
	g := st.Groups[a.Group]
	if len(g.Replicas) == 0 {
		return fmt.Errorf("group %d has no replica to fail over to", a.Group)
	}
	if a.To != "" && !slices.Contains(g.Replicas, a.To) {
		return fmt.Errorf("%s is not a replica of group %d", a.To, a.Group)
	}
	n.lmu.Lock()
	defer n.lmu.Unlock()
	if !n.leading {
		return errors.New("leadership is changing; try again")
	}
	if a.To != "" && time.Since(n.seen(a.To)) > n.cfg.NodeTimeout {
		// Fencing the primary for a replica that cannot take over would
		// leave the group without a writer.
		return fmt.Errorf("%s is not answering the control plane", a.To)
	}
	n.revoked[g.Primary] = a.Group
	if a.To != "" {
		n.preferred[a.Group] = a.To
	}
	n.log.Info("failover asked for", zap.Int("group", a.Group), zap.String("primary", g.Primary), zap.String("to", a.To))
	return nil
}

func (n *Node) handleRemove(a RemoveArgs, r *Reply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	if err := n.apply(Command{Op: OpRemove, Name: a.Name}); err != nil {
		return err
	}
	if err := n.raft.RemoveServer(raft.ServerID(a.Name), 0, n.rpcTimeout()).Error(); err != nil {
		return fmt.Errorf("removed from the topology, not yet from the consensus group: %w", err)
	}
	n.log.Info("removed a member", zap.String("member", a.Name))
	return nil
}

func (n *Node) handleStatus(r *StatusReply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	st := n.fsm.current()
	r.State = *st
	n.lmu.Lock()
	if n.leading {
		r.Failed = n.failedLocked(st, time.Now())
	}
	n.lmu.Unlock()
	f := n.raft.GetConfiguration()
	if f.Error() == nil {
		for _, s := range f.Configuration().Servers {
			if s.Suffrage == raft.Voter {
				r.Voters = append(r.Voters, string(s.ID))
			}
		}
	}
	return nil
}

func (n *Node) handleMigrate(a MigrateArgs, r *MigrateReply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	st := n.fsm.current()
	if !st.Created {
		return ErrNotCreated
	}
	if a.To < 0 || a.To >= len(st.Groups) {
		return fmt.Errorf("no group %d", a.To)
	}
	if a.Slots.Start > a.Slots.End || int(a.Slots.End) >= cluster.SlotCount {
		return fmt.Errorf("slots %d-%d are not a range of 0-%d", a.Slots.Start, a.Slots.End, cluster.SlotCount-1)
	}
	from, fromShard := -1, -1
	for _, g := range st.Groups {
		for i, p := range g.ShardSlots {
			if covers(p, cluster.SlotRange{Start: a.Slots.Start, End: a.Slots.Start}) {
				from, fromShard = g.ID, i
			}
		}
	}
	if from < 0 {
		return fmt.Errorf("slot %d is owned by no group", a.Slots.Start)
	}
	if a.FromShard >= 0 && a.FromShard != fromShard {
		return fmt.Errorf("slot %d is on shard %d of group %d, not shard %d", a.Slots.Start, fromShard, from, a.FromShard)
	}
	toShard := a.ToShard
	if toShard < 0 {
		// The receiving group's shard with the fewest slots; not the
		// sending shard itself.
		best := -1
		for i, p := range st.Groups[a.To].ShardSlots {
			if a.To == from && i == fromShard {
				continue
			}
			if best < 0 || slotsIn(p) < slotsIn(st.Groups[a.To].ShardSlots[best]) {
				best = i
			}
		}
		if best < 0 {
			return errors.New("the range is on the only shard of its group")
		}
		toShard = best
	}
	m := Migration{Slots: a.Slots, From: from, FromShard: fromShard, To: a.To, ToShard: toShard}
	if err := n.apply(Command{Op: OpMigrate, Migration: &m}); err != nil {
		return err
	}
	for _, got := range n.fsm.current().Migrations {
		if got.Slots == m.Slots && got.From == from && got.FromShard == fromShard {
			r.Migration = got
		}
	}
	n.log.Info("migration begun", zap.Uint64("id", r.Migration.ID), zap.Uint16("start", a.Slots.Start), zap.Uint16("end", a.Slots.End),
		zap.Int("from", from), zap.Int("from_shard", fromShard), zap.Int("to", a.To), zap.Int("to_shard", toShard))
	return nil
}

// slotsIn counts the slots of rs.
func slotsIn(rs []cluster.SlotRange) int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

func (n *Node) handleMigrateEnd(a MigrateEndArgs, r *Reply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	op := OpMigrateAbort
	if a.Commit {
		op = OpMigrateCommit
	}
	if err := n.apply(Command{Op: op, Migration: &Migration{ID: a.ID}}); err != nil {
		return err
	}
	n.log.Info("migration ended", zap.Uint64("id", a.ID), zap.Bool("committed", a.Commit))
	return nil
}

func (n *Node) handleAddGroup(a RemoveArgs, r *Reply) error {
	if !n.answerAsLeader(r) {
		return nil
	}
	if err := n.apply(Command{Op: OpAddGroup, Name: a.Name}); err != nil {
		return err
	}
	n.log.Info("group added", zap.String("primary", a.Name))
	return nil
}

// EndMigration asks the leader to commit or abort migration id. An error
// wrapping ErrNoMigration means it had already ended, one way or the
// other: the caller learns which from the state.
func (n *Node) EndMigration(id uint64, commit bool) error {
	leader, _ := n.raft.LeaderWithID()
	if leader == "" {
		return errors.New("the control plane has no leader now")
	}
	var r Reply
	err := n.callLeader(string(leader), "MigrateEnd", MigrateEndArgs{ID: id, Commit: commit}, &r)
	if err != nil && strings.Contains(err.Error(), ErrNoMigration.Error()) {
		// The error crossed the wire as text.
		return fmt.Errorf("migration %d: %w", id, ErrNoMigration)
	}
	return err
}

// abortStaleMigrations ends the migrations that cannot commit any more:
// either group failed over, or either primary is silent past the node
// timeout (a receiver that died would otherwise keep the sender holding
// the range's writes until its own watchdog fires).
func (n *Node) abortStaleMigrations(st *State) {
	n.lmu.Lock()
	failed := n.failedLocked(st, time.Now())
	n.lmu.Unlock()
	for _, m := range st.Migrations {
		from, to := st.Groups[m.From], st.Groups[m.To]
		why := ""
		switch {
		case from.Epoch != m.FromEpoch || to.Epoch != m.ToEpoch:
			why = "a group failed over"
		case slices.Contains(failed, from.Primary):
			why = "the sending primary is silent"
		case slices.Contains(failed, to.Primary):
			why = "the receiving primary is silent"
		default:
			continue
		}
		if err := n.apply(Command{Op: OpMigrateAbort, Migration: &Migration{ID: m.ID}}); err != nil {
			n.log.Warn("aborting a migration", zap.Uint64("id", m.ID), zap.Error(err))
			continue
		}
		n.log.Warn("migration aborted", zap.Uint64("id", m.ID), zap.String("reason", why))
	}
}

// apply appends c to the log and waits until it is applied.
func (n *Node) apply(c Command) error {
	f := n.raft.Apply(c.Encode(), n.rpcTimeout())
	if err := f.Error(); err != nil {
		return fmt.Errorf("control: %s: %w", c.Op, err)
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return err
	}
	return nil
}

// confirmWindow is how recent a quorum's confirmation of this leader must
// be for it to grant a lease. A rival can only be elected once a quorum
// member has not heard from this leader for a heartbeat timeout (raft's
// followers refuse votes while they have a leader), so grants confirmed
// within less than that end before a successor's wait does (lead waits a
// whole lease from its election). Wider than raft's leader lease, so that
// a loaded machine's slower confirmations do not lapse the primaries'
// leases.
// Three quarters of raft's default heartbeat timeout (1 s), which Start keeps.
const confirmWindow = 750 * time.Millisecond

// confirmLoop confirms leadership with a quorum several times per leader
// lease: leases are granted only while it is recent.
func (n *Node) confirmLoop() {
	defer n.wg.Done()
	t := time.NewTicker(raft.DefaultConfig().LeaderLeaseTimeout / 5)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		if !n.isLeader() {
			continue
		}
		start := time.Now()
		if n.raft.VerifyLeader().Error() == nil {
			n.lmu.Lock()
			if start.After(n.confirmedAt) {
				n.confirmedAt = start
			}
			n.lmu.Unlock()
		}
	}
}

// leaderLoop follows leadership changes and, while leading, forms the
// cluster and fails over groups whose primary went silent.
func (n *Node) leaderLoop() {
	defer n.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		leader := n.isLeader()
		n.lmu.Lock()
		switch {
		case leader && !n.leading:
			now := time.Now()
			n.leading = true
			n.leases = newLeases(n.cfg.NodeTimeout, now)
			n.lastSeen = map[string]time.Time{}
			n.seqs = map[string][]uint64{}
			n.revoked = map[string]int{}
			n.preferred = map[int]string{}
			n.log.Info("leading the control plane")
		case !leader && n.leading:
			n.leading = false
			n.log.Info("no longer leading the control plane")
		}
		n.lmu.Unlock()
		if leader {
			n.lead()
		}
	}
}

// lead is one round of the leader's duties.
func (n *Node) lead() {
	st := n.fsm.current()
	if !st.Created {
		n.maybeCreate(st)
		return
	}
	n.keepVoters(st)
	n.abortStaleMigrations(st)
	for _, g := range st.Groups {
		if c, ok := n.failoverDecision(st, g, time.Now()); ok {
			if err := n.apply(c); err != nil {
				n.log.Warn("failover refused", zap.Int("group", g.ID), zap.Error(err))
				continue
			}
			n.lmu.Lock()
			delete(n.revoked, c.From)
			delete(n.preferred, g.ID)
			n.leases.forget(c.From)
			n.lmu.Unlock()
			n.log.Warn("failed over", zap.Int("group", g.ID), zap.String("from", c.From), zap.String("to", c.To))
		}
	}
}

// failoverDecision decides whether group g fails over now, and to whom: its
// primary must be silent past the node timeout (or its failover asked for)
// and its lease over; the replica promoted is the preferred one of a manual
// failover, else the live one with the most records.
func (n *Node) failoverDecision(st *State, g Group, now time.Time) (Command, bool) {
	n.lmu.Lock()
	defer n.lmu.Unlock()
	if !n.leading || len(g.Replicas) == 0 {
		return Command{}, false
	}
	_, revoked := n.revoked[g.Primary]
	silent := now.Sub(n.seen(g.Primary)) > n.cfg.NodeTimeout
	if !revoked && !silent {
		return Command{}, false
	}
	if !n.leases.expired(g.Primary, now) {
		return Command{}, false
	}
	best, bestSum := "", uint64(0)
	for _, r := range g.Replicas {
		if now.Sub(n.seen(r)) > n.cfg.NodeTimeout {
			continue
		}
		if _, ok := n.lastSeen[r]; !ok {
			continue
		}
		if p := n.preferred[g.ID]; p != "" && p != r {
			continue
		}
		var sum uint64
		for _, s := range n.seqs[r] {
			sum += s
		}
		if best == "" || sum > bestSum {
			best, bestSum = r, sum
		}
	}
	if best == "" {
		return Command{}, false
	}
	return Command{Op: OpFailover, Group: g.ID, From: g.Primary, To: best, Seqs: slices.Clone(n.seqs[best])}, true
}

// keepVoters promotes a live non-voter when the consensus group has fewer
// voters than its size calls for (a voter was removed), preferring one on
// a host with no voter.
func (n *Node) keepVoters(st *State) {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return
	}
	servers := f.Configuration().Servers
	voters, hosts := 0, map[string]bool{}
	for _, sv := range servers {
		if sv.Suffrage == raft.Voter {
			voters++
			if m, ok := st.Member(string(sv.ID)); ok {
				hosts[m.Host] = true
			}
		}
	}
	if voters >= votersFor(len(servers)) {
		return
	}
	now := time.Now()
	var pick *raft.Server
	n.lmu.Lock()
	for i, sv := range servers {
		if sv.Suffrage == raft.Voter {
			continue
		}
		m, ok := st.Member(string(sv.ID))
		if _, heard := n.lastSeen[m.Name]; !ok || !heard || now.Sub(n.seen(m.Name)) > n.cfg.NodeTimeout {
			continue
		}
		if pick == nil || (!hosts[m.Host] && hostOf(st, *pick, hosts)) {
			pick = &servers[i]
		}
	}
	n.lmu.Unlock()
	if pick == nil {
		return
	}
	if err := n.raft.AddVoter(pick.ID, pick.Address, 0, n.rpcTimeout()).Error(); err != nil {
		n.log.Warn("promoting a member to voter", zap.String("member", string(pick.ID)), zap.Error(err))
		return
	}
	n.log.Info("a member votes now", zap.String("member", string(pick.ID)), zap.Int("voters", voters+1))
}

// hostOf reports whether server sv's host already has a voter.
func hostOf(st *State, sv raft.Server, hosts map[string]bool) bool {
	m, _ := st.Member(string(sv.ID))
	return hosts[m.Host]
}

// maybeCreate forms the groups once every seed has registered.
func (n *Node) maybeCreate(st *State) {
	var seeds []string
	for _, s := range n.cfg.Seeds {
		if _, ok := st.Member(s.Name); !ok {
			return
		}
		seeds = append(seeds, s.Name)
	}
	if len(seeds) == 0 {
		return
	}
	if err := n.apply(Command{Op: OpCreate, Seeds: seeds, Replicas: n.cfg.Replicas}); err != nil && !errors.Is(err, ErrCreated) {
		n.log.Warn("forming the groups", zap.Error(err))
		return
	}
	n.log.Info("cluster formed", zap.Strings("seeds", seeds), zap.Int("replicas", n.cfg.Replicas))
}

// raftLogWriter passes raft's log lines to zap at their own level.
type raftLogWriter struct{ log *zap.Logger }

func (w raftLogWriter) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	switch {
	case strings.HasPrefix(line, "[ERROR]"):
		w.log.Error(strings.TrimSpace(strings.TrimPrefix(line, "[ERROR]")))
	case strings.HasPrefix(line, "[WARN]"):
		w.log.Warn(strings.TrimSpace(strings.TrimPrefix(line, "[WARN]")))
	default:
		w.log.Info(line)
	}
	return len(p), nil
}
