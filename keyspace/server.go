package keyspace

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
)

// Version is the server version reported by INFO, HELLO and RUVIO.
const Version = "0.1.0"

// RedisVersion is the Redis version whose behaviour the server follows; it
// is what clients read from HELLO and INFO to decide what to send.
const RedisVersion = "7.0.15"

// Options configure a Server.
type Options struct {
	// Config is the start-up configuration.
	Config config.Config
	// Live holds the settings CONFIG SET can change.
	Live *config.Live
	// Topology is the slot layout of the process.
	Topology *cluster.Topology
	// Logger receives structured logs; nil means no logging.
	Logger *zap.Logger
	// Now returns the current time; nil means time.Now. Tests inject a
	// clock here, and keyspace code never reads the wall clock itself.
	Now func() time.Time
	// Commands is the command table the families package builds
	// (commands.Table); an offline tool that runs no command (reshard)
	// passes an empty one.
	Commands CommandTable
	// ClusterFailover asks the control plane of a cluster across hosts to
	// make this member its group's primary (CLUSTER FAILOVER on a
	// replica); nil outside such a cluster. It returns once the request is
	// accepted, not when the failover is done, and must not block long.
	ClusterFailover func() error
	// OnShutdown is called once, on a goroutine of its own, when a client
	// sends SHUTDOWN. The caller stops the listeners and calls Close.
	OnShutdown func()
	// Persistence attaches the shards to their logs; nil serves from
	// memory only.
	Persistence Persistence
	// Replication streams shards to replicas and follows a primary; nil
	// refuses REPLSYNC and REPLICAOF.
	Replication Replication
	// OnDurable is told each time a shard's durable sequence advances
	// (from the WAL's goroutines; it must not block).
	OnDurable func(shard int, seq uint64)
}

// Persistence opens the durable state of one shard. Implemented in
// persist.go on top of the persistence package.
type Persistence interface {
	// Open recovers sh's durable state into it and attaches its log.
	Open(sh *Shard) error
}

// Server is the whole keyspace of a process: its shards, the command table
// and the client registry.
type Server struct {
	Opts           Options          // the options, with NewServer's defaults filled in
	Log            *zap.Logger      // the server's logger
	Clock          func() time.Time // the clock (Options.Now, else time.Now); read it through Now
	realNow        bool             // Clock is time.Now: elapsed reads the monotonic clock alone
	ShardList      []*Shard         // the shards, by index
	Cmds           CommandTable     // the command table
	ClientRegistry *clientRegistry  // every open connection
	Started        time.Time        // when NewServer ran, by Clock
	runID          string
	shutdown       sync.Once

	// Stats are the server-wide counters of INFO stats.
	Stats serverStats
	// Monitors are the clients in MONITOR mode.
	Monitors monitorSet
	// ACL holds the users every shard checks commands against.
	ACL *aclState
	// introspection holds what INFO samples (memory, ops per second).
	introspection serverExtras
	// MemTuner sets the Go runtime's memory limit from maxmemory.
	MemTuner memoryTuner
	// Repl is the replication role (replication.go).
	Repl replState
	// Cluster is the slot layout and the write lease (cluster.go).
	Cluster clusterState
	// pushBufs recycles the buffers that carry Pub/Sub messages and
	// invalidations to a connection once it has written them (pubsub.go).
	pushBufs sync.Pool
	// evictor enforces maxmemory-clients (clientmem.go).
	evictor clientEvictor
	// ClientsCronPaused is DEBUG PAUSE-CRON: the event loop's clients
	// cron (query buffer resizing, the periodic client eviction check)
	// skips its runs while it is set.
	ClientsCronPaused atomic.Bool
}

type serverStats struct {
	Connections     Counter
	RejectedConns   Counter
	ExpiredKeys     Counter
	ExpiredFields   Counter // hash fields deleted by their deadline (expired_subkeys)
	KeyspaceHits    Counter
	KeyspaceMisses  Counter
	NetInputBytes   Counter
	NetOutputBytes  Counter
	OutputBufKilled Counter
	ReadPauses      Counter
	EvictedClients  Counter // clients disconnected by maxmemory-clients
}

// NewServer builds the shards; Start runs them.
func NewServer(opts Options) (*Server, error) {
	if opts.Topology == nil {
		return nil, errors.New("keyspace: no topology")
	}
	if opts.Commands == nil {
		// A server without a table would answer every command "unknown".
		return nil, errors.New("keyspace: no command table")
	}
	if opts.Live == nil {
		opts.Live = config.NewLive(opts.Config)
	}
	s := &Server{
		Opts:           opts,
		Log:            opts.Logger,
		Clock:          opts.Now,
		Cmds:           opts.Commands,
		ClientRegistry: newClientRegistry(),
	}
	if s.Log == nil {
		s.Log = zap.NewNop()
	}
	if s.Clock == nil {
		s.Clock = time.Now // lint:allow-clock the one default clock
		s.realNow = true
	}
	s.Started = s.Clock()
	s.runID = RandomHex(40)
	s.Cluster.init(opts.Topology)
	n := len(opts.Topology.Nodes)
	databases := opts.Config.Server.Databases
	if n > 1 || opts.Topology.Multi {
		databases = 1
	}
	ncmds := s.Cmds.assignIDs()
	var err error
	if s.ACL, err = newACLState(s.Cmds, opts.Config, opts.Live, s.Clock); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		sh := newShard(s, i, databases)
		sh.CmdStats.ByID = make([]CmdStat, ncmds)
		s.ShardList = append(s.ShardList, sh)
	}
	checkIdemLimits(s)
	return s, nil
}

// Start recovers every shard's durable state and starts the keyspace loops.
func (s *Server) Start() error {
	for _, sh := range s.ShardList {
		if s.Opts.Persistence != nil {
			if err := s.Opts.Persistence.Open(sh); err != nil {
				s.abandonJournals()
				return fmt.Errorf("keyspace: shard %d: %w", sh.Idx, err)
			}
		}
	}
	for _, sh := range s.ShardList {
		sh.start()
	}
	return nil
}

// abandonJournals closes the logs of the shards a refused start opened,
// removing the segments it created and wrote nothing to: the directory is
// left as the start found it.
func (s *Server) abandonJournals() {
	for _, sh := range s.ShardList {
		if j, ok := sh.Journal.(*WALJournal); ok {
			if err := j.abandon(sh.Idx); err != nil {
				s.Log.Warn("closing the log of a refused start", zap.Int("shard", sh.Idx), zap.Error(err))
			}
			sh.Journal = nil
		}
	}
}

// Close stops every shard after it has run what it already accepted, and
// closes its log. Shards stop in parallel, so one shard busy with a long
// command holds back only itself; see Busy.
func (s *Server) Close() error {
	errs := make([]error, len(s.ShardList))
	var wg sync.WaitGroup
	for i, sh := range s.ShardList {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sh.Stop()
			sh.stopped.Store(true)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Busy lists the shards that Close has not finished stopping yet (still
// running a command, writing the shutdown snapshot or closing the log).
func (s *Server) Busy() []int {
	var busy []int
	for _, sh := range s.ShardList {
		if !sh.stopped.Load() {
			busy = append(busy, sh.Idx)
		}
	}
	return busy
}

// Shards is the number of shards.
func (s *Server) Shards() int { return len(s.ShardList) }

// Shard returns shard i.
func (s *Server) Shard(i int) *Shard { return s.ShardList[i] }

// Logger returns the server's logger.
func (s *Server) Logger() *zap.Logger { return s.Log }

// Live returns the run-time settings.
func (s *Server) Live() *config.Live { return s.Opts.Live }

// Config returns the start-up configuration.
func (s *Server) Config() config.Config { return s.Opts.Config }

// Topology returns the current slot layout.
func (s *Server) Topology() *cluster.Topology { return s.Cluster.topo.Load() }

// Now returns the server clock's time.
func (s *Server) Now() time.Time { return s.Clock() }

// elapsed returns the server clock's time since the server started, for
// measuring durations. With the real clock it reads the monotonic clock
// alone (time.Since of a time that carries a monotonic reading), where
// time.Now reads the wall clock as well: one clock read instead of two, on
// every command timed.
func (s *Server) elapsed() time.Duration {
	if s.realNow {
		return time.Since(s.Started) // lint:allow-clock monotonic reading of the default clock
	}
	return s.Clock().Sub(s.Started)
}

// Connected registers a new connection accepted on shard i and returns
// its client state. ok is false when maxclients is reached; the caller
// replies errMaxClients and closes.
func (s *Server) Connected(shard int, remote, local string, conn Conn) (c *Client, ok bool) {
	users := s.Users()
	return s.connected(shard, remote, local, conn, users, users.Default(), !s.AuthRequired(), false)
}

// connected registers a connection that runs as user u of snapshot users.
func (s *Server) connected(shard int, remote, local string, conn Conn, users *acl.Users, u *acl.User, authed, tls bool) (c *Client, ok bool) {
	if max := s.Opts.Live.MaxClients(); max > 0 && s.ClientRegistry.len() >= max {
		s.Stats.RejectedConns.Add(1)
		return nil, false
	}
	id := s.ClientRegistry.nextID.Add(1)
	c = NewClient(id, shard, remote, local, conn, s.Clock())
	c.SetUser(users, u)
	c.Authenticated = authed
	c.TLS = tls
	s.ClientRegistry.Add(c)
	s.Stats.Connections.Add(1)
	return c, true
}

// ConnectedTLS is Connected for a connection over TLS. When user is not
// empty (the identity of the client's certificate) the connection starts
// authenticated as the ACL user of that name, if it exists and is on. ok
// is false when maxclients is reached; as reports whether the user was
// taken.
func (s *Server) ConnectedTLS(shard int, remote, local string, conn Conn, user string) (c *Client, ok, as bool) {
	users := s.Users()
	if user != "" {
		if u := users.Get(user); u != nil && u.Enabled() {
			c, ok = s.connected(shard, remote, local, conn, users, u, true, true)
			return c, ok, ok
		}
	}
	c, ok = s.connected(shard, remote, local, conn, users, users.Default(), !s.AuthRequired(), true)
	return c, ok, false
}

// Disconnected forgets a closed connection; its reactor calls it once the
// connection is gone, whatever of its batches is still in flight.
func (s *Server) Disconnected(c *Client) { s.detach(c) }

// detach ends c as a connection of the server, from any goroutine: c is
// marked closed, leaves the client registry (CLIENT LIST, INFO clients)
// and the MONITOR set, loses its subscriptions, and is handed to its
// shard, which releases the rest (forget). It reports whether this call
// did it (false: c was already detached).
//
// Nothing registers a closed client again: every registration (SUBSCRIBE
// and its kin, a blocking command's wait, WATCH, CLIENT TRACKING, MONITOR)
// checks the flag on the shard goroutine, and the shard's release runs on
// that goroutine after the flag is set. A registration that ran before
// the release is undone by it; one after it sees the flag. So a batch
// still on its way to the shard when the connection closes can run its
// commands (what it writes stays written, as in Redis) but leaves nothing
// of the connection behind.
func (s *Server) detach(c *Client) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.closed = true
	c.mu.Unlock()
	s.ClientRegistry.Remove(c.ID)
	s.forgetMem(c)
	s.StopMonitor(c)
	s.dropSubscriptions(c)
	if c.Shard >= 0 && c.Shard < len(s.ShardList) {
		sh := s.ShardList[c.Shard]
		sh.forgetClosed(c)
		sh.Ring.Signal()
	}
	return true
}

// isClosed reports whether c was detached.
func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Clients returns the open connections ordered by id.
func (s *Server) Clients() []*Client { return s.ClientRegistry.snapshot() }

// ClientCount is the number of open connections.
func (s *Server) ClientCount() int { return s.ClientRegistry.len() }

// MaxClientsError is the reply for a connection over maxclients.
const MaxClientsError = errMaxClients

// CountOutputBufferKill records a client closed for exceeding its output
// buffer limit.
func (s *Server) CountOutputBufferKill() { s.Stats.OutputBufKilled.Add(1) }

// CountReadPause records a client whose reads were paused because its
// unparsed input had reached the read-ahead bound.
func (s *Server) CountReadPause() { s.Stats.ReadPauses.Add(1) }

// CountNetInput records bytes read from clients.
func (s *Server) CountNetInput(n int) { s.Stats.NetInputBytes.Add(int64(n)) }

// CountNetOutput records bytes written to clients.
func (s *Server) CountNetOutput(n int) { s.Stats.NetOutputBytes.Add(int64(n)) }

// RequestShutdown hands a SHUTDOWN to Options.OnShutdown, once.
func (s *Server) RequestShutdown() {
	s.shutdown.Do(func() {
		if s.Opts.OnShutdown != nil {
			go s.Opts.OnShutdown()
		}
	})
}
