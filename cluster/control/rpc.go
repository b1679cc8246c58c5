package control

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"sync"
	"time"

	"github.com/ruvio/ruvio/cluster"
)

// The requests between members and from the `ruvio cluster` command. Every
// reply names the leader's control address; a member that is not the
// leader answers NotLeader and the caller asks the leader instead.

// HeartbeatArgs is a member's periodic report to the leader.
type HeartbeatArgs struct {
	Name string
	// Epoch is the topology epoch the member has applied.
	Epoch uint64
	// Primary is set while the member serves as its group's primary.
	Primary bool
	// Seqs are its shards' durable log sequences.
	Seqs []uint64
}

// HeartbeatReply is the leader's answer.
type HeartbeatReply struct {
	Leader    string
	NotLeader bool
	// LeaseMs, when positive, grants the member a write lease of that many
	// milliseconds from when it sent the heartbeat.
	LeaseMs int64
	// Failed names the members the leader has not heard from in time.
	Failed []string
}

// JoinArgs asks the leader to add a member to the consensus group.
type JoinArgs struct {
	Name    string
	Control string
}

// RegisterArgs registers a member's addresses and node ids.
type RegisterArgs struct {
	Member Member
}

// FailoverArgs asks for a failover of a group: its primary loses its lease
// and, once that has ended, To (or the most advanced replica when empty)
// is promoted.
type FailoverArgs struct {
	Group int
	To    string
}

// RemoveArgs removes a member that is not a primary.
type RemoveArgs struct {
	Name string
}

// MigrateArgs begins moving Slots from shard FromShard of the group that
// owns them to shard ToShard of group To (FromShard and ToShard: -1 picks
// them: the owning shard, and the receiving group's shard that owns the
// fewest slots).
type MigrateArgs struct {
	Slots     cluster.SlotRange
	To        int
	FromShard int
	ToShard   int
}

// MigrateReply is the migration begun.
type MigrateReply struct {
	Leader    string
	NotLeader bool
	Migration Migration
}

// MigrateEndArgs ends migration ID: committed (the receiving shard has
// every record of the range and the sender holds its writes) or aborted.
type MigrateEndArgs struct {
	ID     uint64
	Commit bool
}

// StatusReply is the topology, the leader and the members' health.
type StatusReply struct {
	Leader    string
	NotLeader bool
	State     State
	Failed    []string
	Voters    []string
}

// Reply is the answer to the requests without data of their own.
type Reply struct {
	Leader    string
	NotLeader bool
}

// service is the object net/rpc serves as "Control".
type service struct{ n *Node }

func (s *service) Heartbeat(a HeartbeatArgs, r *HeartbeatReply) error {
	return s.n.handleHeartbeat(a, r)
}
func (s *service) Join(a JoinArgs, r *Reply) error         { return s.n.handleJoin(a, r) }
func (s *service) Register(a RegisterArgs, r *Reply) error { return s.n.handleRegister(a, r) }
func (s *service) Failover(a FailoverArgs, r *Reply) error { return s.n.handleFailover(a, r) }
func (s *service) Remove(a RemoveArgs, r *Reply) error     { return s.n.handleRemove(a, r) }
func (s *service) Status(_ struct{}, r *StatusReply) error { return s.n.handleStatus(r) }
func (s *service) Migrate(a MigrateArgs, r *MigrateReply) error {
	return s.n.handleMigrate(a, r)
}
func (s *service) MigrateEnd(a MigrateEndArgs, r *Reply) error { return s.n.handleMigrateEnd(a, r) }
func (s *service) AddGroup(a RemoveArgs, r *Reply) error       { return s.n.handleAddGroup(a, r) }

// peers keeps one JSON-RPC client per control address.
type peers struct {
	mu      sync.Mutex
	clients map[string]*rpc.Client
	// tls, when set, gives the TLS settings to dial with (tls-cluster).
	tls func() *tls.Config
}

// call sends method to addr and waits at most timeout for the answer.
func (p *peers) call(addr, method string, args, reply any, timeout time.Duration) error {
	c, err := p.client(addr, timeout)
	if err != nil {
		return err
	}
	call := c.Go("Control."+method, args, reply, make(chan *rpc.Call, 1))
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-call.Done:
		if call.Error != nil && (errors.Is(call.Error, rpc.ErrShutdown) || isNetErr(call.Error)) {
			p.drop(addr, c)
		}
		return call.Error
	case <-t.C:
		// A stuck connection is not reused.
		p.drop(addr, c)
		return fmt.Errorf("control: %s %s: no answer within %v", addr, method, timeout)
	}
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}

func (p *peers) client(addr string, timeout time.Duration) (*rpc.Client, error) {
	p.mu.Lock()
	c := p.clients[addr]
	p.mu.Unlock()
	if c != nil {
		return c, nil
	}
	var conf *tls.Config
	if p.tls != nil {
		conf = p.tls()
	}
	conn, err := dialKind(addr, connRPC, timeout, conf)
	if err != nil {
		return nil, err
	}
	c = jsonrpc.NewClient(conn)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.clients[addr]; old != nil {
		_ = c.Close()
		return old, nil
	}
	if p.clients == nil {
		p.clients = map[string]*rpc.Client{}
	}
	p.clients[addr] = c
	return c, nil
}

func (p *peers) drop(addr string, c *rpc.Client) {
	p.mu.Lock()
	if p.clients[addr] == c {
		delete(p.clients, addr)
	}
	p.mu.Unlock()
	_ = c.Close()
}

func (p *peers) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, c := range p.clients {
		_ = c.Close()
		delete(p.clients, a)
	}
}

// Client sends requests to a cluster's control plane from outside it (the
// `ruvio cluster` command); it follows the answers to the leader.
type Client struct {
	addr    string
	timeout time.Duration
	p       peers
}

// NewClient returns a client of the control plane a member listens for at
// addr ("host:port").
func NewClient(addr string, timeout time.Duration) *Client {
	return &Client{addr: addr, timeout: timeout}
}

// NewTLSClient is NewClient for control ports that serve TLS (tls-cluster):
// it connects with conf.
func NewTLSClient(addr string, timeout time.Duration, conf *tls.Config) *Client {
	c := NewClient(addr, timeout)
	c.p.tls = func() *tls.Config { return conf }
	return c
}

// Close closes the client's connections.
func (c *Client) Close() { c.p.close() }

// leaderOf reads the leader an answer names.
type leaderOf interface{ leader() (string, bool) }

// leaderReply is a reply that names the leader.
type leaderReply interface {
	setLeader(addr string, notLeader bool)
}

func (r *Reply) setLeader(a string, not bool)          { r.Leader, r.NotLeader = a, not }
func (r *MigrateReply) setLeader(a string, not bool)   { r.Leader, r.NotLeader = a, not }
func (r *MigrateReply) leader() (string, bool)         { return r.Leader, r.NotLeader }
func (r *StatusReply) setLeader(a string, not bool)    { r.Leader, r.NotLeader = a, not }
func (r *HeartbeatReply) setLeader(a string, not bool) { r.Leader, r.NotLeader = a, not }

func (r *Reply) leader() (string, bool)          { return r.Leader, r.NotLeader }
func (r *StatusReply) leader() (string, bool)    { return r.Leader, r.NotLeader }
func (r *HeartbeatReply) leader() (string, bool) { return r.Leader, r.NotLeader }

// ErrNoLeader is a client's error while the control plane elects a leader:
// nothing was done, and the same call may succeed a moment later.
var ErrNoLeader = errors.New("control: the cluster has no leader now; try again")

// do sends method, to the leader when addr is not.
func (c *Client) do(method string, args any, reply leaderOf) error {
	addr := c.addr
	for range 3 {
		if err := c.p.call(addr, method, args, reply, c.timeout); err != nil {
			return err
		}
		l, not := reply.leader()
		if !not {
			return nil
		}
		if l == "" {
			return ErrNoLeader
		}
		addr = l
	}
	return errors.New("control: the leader kept changing; try again")
}

// Status returns the topology as the leader has it. It is a read: while
// the members elect a leader (right after forming, or after losing one)
// it asks again, for up to the client's timeout.
func (c *Client) Status() (StatusReply, error) {
	deadline := time.Now().Add(c.timeout)
	for {
		var r StatusReply
		err := c.do("Status", struct{}{}, &r)
		if !errors.Is(err, ErrNoLeader) || !time.Now().Before(deadline) {
			return r, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Failover asks for a failover of group, to member to ("": the most
// advanced replica).
func (c *Client) Failover(group int, to string) error {
	var r Reply
	return c.do("Failover", FailoverArgs{Group: group, To: to}, &r)
}

// Remove removes member name, which must not be a primary.
func (c *Client) Remove(name string) error {
	var r Reply
	return c.do("Remove", RemoveArgs{Name: name}, &r)
}

// Migrate begins moving a slot range (see MigrateArgs); it returns the
// migration as the log recorded it. The move itself runs on the members:
// follow it with Status until the migration is gone from the state.
func (c *Client) Migrate(a MigrateArgs) (Migration, error) {
	var r MigrateReply
	err := c.do("Migrate", a, &r)
	return r.Migration, err
}

// AbortMigration ends migration id, leaving its range where it was.
func (c *Client) AbortMigration(id uint64) error {
	var r Reply
	return c.do("MigrateEnd", MigrateEndArgs{ID: id}, &r)
}

// AddGroup makes member name, which is no group's primary, the primary of
// a new group without slots; move slots onto it with Migrate.
func (c *Client) AddGroup(name string) error {
	var r Reply
	return c.do("AddGroup", RemoveArgs{Name: name}, &r)
}
