// Package app assembles a Ruvio process from its configuration: node ids,
// topology, keyspace with persistence, and the network edge. main.go and
// the integration tests both start servers through it.
package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/commands"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/eventloop"
	"github.com/ruvio/ruvio/internal/oomscore"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/metrics"
	"github.com/ruvio/ruvio/persistence"
)

// Options are what a process needs beyond its configuration.
type Options struct {
	// Logger receives logs; nil builds one from the configuration.
	Logger *zap.Logger
	// Repair lets recovery cut a damaged WAL, or salvage a damaged
	// snapshot's intact entries, instead of refusing to start.
	Repair bool
	// ConfigNote says why no configuration file was read when cfg.File is
	// empty (for example "config.toml not found"); the start line shows it.
	ConfigNote string
	// ConfigNotices are lines the start-up log carries after the start line:
	// the directives of a Redis configuration file accepted without effect.
	ConfigNotices []string
	// FS, when set, is the file system the shards' logs and snapshots are
	// written through instead of the operating system's (tests inject disk
	// failures with persistence.ErrorFS).
	FS persistence.FS
}

// ErrShutdownTimeout is returned by Stop when its context ends before
// every shard has stopped.
var ErrShutdownTimeout = errors.New("app: shutdown timed out")

// App is one running server process.
type App struct {
	log      *zap.Logger
	ks       *keyspace.Server
	net      *eventloop.Server
	serveErr chan error
	shutdown chan struct{}
	lock     *dirLock // held on the data directory until Stop
	repl     *replicator
	member   *member         // in a cluster across hosts
	metrics  *metrics.Server // the Prometheus endpoint; nil without one
}

// Start recovers the data, starts the keyspace loops and listens. It
// returns once the listeners accept connections.
func Start(cfg config.Config, opts Options) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	live := config.NewLive(cfg)
	log := opts.Logger
	if log == nil {
		var err error
		log, err = config.NewLoggerAt(cfg.Log, live.LogLevel())
		if err != nil {
			return nil, err
		}
	}
	a := &App{log: log, serveErr: make(chan error, 1), shutdown: make(chan struct{}, 1)}
	logStart(log, cfg, opts.ConfigNote)
	for _, n := range opts.ConfigNotices {
		log.Info("configuration: " + n)
	}
	lock, err := lockDataDir(cfg.Persistence.Dir, log)
	if err != nil {
		return nil, err
	}
	a.lock = lock
	started := false
	// A refused start on a new directory takes back the node ids it made.
	nodesFile := filepath.Join(cfg.Persistence.Dir, cluster.NodeIDsFile)
	_, statErr := os.Stat(nodesFile)
	newNodes := errors.Is(statErr, os.ErrNotExist)
	defer func() {
		if !started {
			if newNodes {
				_ = os.Remove(nodesFile)
			}
			lock.release()
		}
	}()

	if cfg.Persistence.WAL {
		if err := checkLayout(persistence.NewOSFS(), cfg.Persistence.Dir, cfg.Server.Shards); err != nil {
			return nil, err
		}
	}
	ids, err := cluster.LoadOrCreateNodeIDs(cfg.Persistence.Dir, cfg.Server.Shards)
	if err != nil {
		return nil, explainStartError(fmt.Errorf("node ids: %w", err), cfg.Persistence.Dir)
	}
	// The port clients reach shard 0 at: the plain one, or the TLS one
	// when the server serves TLS only (server.port = 0).
	clientPort := cfg.Server.Port
	if clientPort == 0 {
		clientPort = cfg.TLS.Port
	}
	var topo *cluster.Topology
	if cfg.Cluster.AcrossHosts() {
		a.member = newMember(cfg, ids, log)
		if err := a.member.setTLS(cfg.TLS); err != nil {
			return nil, err
		}
		topo, err = a.member.initialTopology()
	} else {
		topo, err = cluster.NewTopology(cfg.AnnounceHost(), clientPort, cfg.Server.Shards, ids)
	}
	if err != nil {
		return nil, err
	}
	ksOpts := keyspace.Options{
		Commands: commands.Table(),
		Config:   cfg,
		Live:     live,
		Topology: topo,
		Logger:   log,
		OnShutdown: func() {
			select {
			case a.shutdown <- struct{}{}:
			default:
			}
		},
	}
	if a.member != nil {
		ksOpts.ClusterFailover = a.member.requestFailover
	}
	ksOpts.Persistence, err = newPersistence(cfg, opts.Repair, opts.FS, log)
	if err != nil {
		return nil, err
	}
	if ksOpts.Persistence != nil {
		// A replica announces the port its primary can reach it at: the
		// TLS one under tls-replication, as Redis does.
		announce := clientPort
		if cfg.TLS.Replication && cfg.TLS.Port > 0 {
			announce = cfg.TLS.Port
		}
		a.repl = newReplicator(cfg.Persistence.Dir, cfg.Server.Shards, announce, log)
		if err := a.repl.setTLS(cfg.TLS); err != nil {
			return nil, err
		}
		a.repl.nodeIDs = ids
		ksOpts.Replication = a.repl
		ksOpts.OnDurable = a.repl.durable
	}
	a.ks, err = keyspace.NewServer(ksOpts)
	if err != nil {
		return nil, err
	}
	if a.member != nil {
		// A member opens as a replica, so that nothing of its own (expiry,
		// eviction) enters its logs before the control plane says whether
		// it is its group's primary.
		a.member.ks = a.ks
		a.ks.SetCleanFrom(a.member.appliedEpoch)
		a.ks.StartReplica("", 0)
	}
	a.setupOOMScore(live, log)
	if a.repl != nil {
		a.repl.ks = a.ks
		if p := cfg.Replication.Primary; p != "" {
			host, port, err := splitHostPort(p)
			if err != nil {
				return nil, err
			}
			a.ks.StartReplica(host, port)
		}
	}
	begin := time.Now()
	if err := a.ks.Start(); err != nil {
		return nil, explainStartError(err, cfg.Persistence.Dir)
	}

	// "Server initialized" is the line after which tools watching a redis-server (and Redis 7.4's test suite) expect it to be up.
	log.Info("Server initialized: keyspace ready", zap.Int("shards", a.ks.Shards()), zap.Duration("recovery", time.Since(begin)))

	a.net, err = eventloop.New(eventloop.Options{
		Keyspace:        a.ks,
		Live:            live,
		Bind:            cfg.Server.Bind,
		Port:            cfg.Server.Port,
		TLSPort:         cfg.TLS.Port,
		UnixSocket:      cfg.Server.UnixSocket,
		UnixSocketPerm:  os.FileMode(cfg.Server.UnixSocketPerm),
		Reactors:        cfg.Server.Reactors,
		ReactorPerShard: cfg.Server.ReactorPerShard,
		Inline:          cfg.Server.InlineExecution,
		DirectReplies:   cfg.Server.DirectReplies,
		MaxMultibulkLen: cfg.Limits.MaxMultibulkLen,
		Logger:          log,
	})
	if err != nil {
		_ = a.ks.Close()
		return nil, err
	}
	if cfg.TLS.Port > 0 {
		if err := a.net.ApplyTLS(cfg.TLS); err != nil {
			_ = a.ks.Close()
			return nil, err
		}
	}
	live.SetTLSCheck(a.applyTLS)
	// CONFIG SET bind, port and tls-port move the listeners, and the
	// addresses MOVED and CLUSTER name move with them: on one host at once,
	// across hosts once the control plane has registered the new one.
	live.SetListenerHook(func(ls config.Listeners) error {
		if err := a.net.SetListeners(ls); err != nil {
			return err
		}
		if !cfg.Cluster.AcrossHosts() {
			a.moveTopology(cfg, ls)
		} else if host, port, ok := clientAddress(cfg, ls); ok && a.member != nil {
			a.member.moveClient(host, port)
		}
		return nil
	})
	go func() { a.serveErr <- a.net.Serve() }()
	select {
	case <-a.net.Ready():
	case err := <-a.serveErr:
		_ = a.ks.Close()
		if err == nil {
			err = errors.New("app: listeners stopped during start-up")
		}
		return nil, err
	}
	// A replica follows once it serves: its links announce its ports.
	if err := a.ks.FollowConfigured(); err != nil {
		_ = a.net.Stop(context.Background())
		_ = a.ks.Close()
		return nil, err
	}
	if a.member != nil {
		if err := a.member.start(); err != nil {
			_ = a.net.Stop(context.Background())
			_ = a.ks.Close()
			return nil, err
		}
	}
	if l := cfg.Metrics.Listen; l != "" {
		a.metrics, err = metrics.Listen(l, a.ks)
		if err != nil {
			a.stopAfterFailedStart()
			return nil, err
		}
		log.Info("metrics endpoint", zap.String("addr", "http://"+a.metrics.Addr()+metrics.Path))
	}
	started = true
	return a, nil
}

// applyTLS puts new [tls] settings in force (CONFIG SET tls-*, SIGHUP):
// the TLS listeners serve new connections with them, and a replica's
// links dial with them. Settings that do not build change nothing.
func (a *App) applyTLS(t config.TLSConfig) error {
	if a.member != nil {
		if err := a.member.setTLS(t); err != nil {
			a.log.Warn("TLS configuration refused", zap.Error(err))
			return fmt.Errorf("app: %w", err)
		}
	}
	if t.Port > 0 || t.Replication {
		if err := a.net.ApplyTLS(t); err != nil {
			return fmt.Errorf("app: %w", err)
		}
	}
	if a.repl != nil {
		if err := a.repl.setTLS(t); err != nil {
			a.log.Warn("TLS configuration refused", zap.Error(err))
			return fmt.Errorf("app: %w", err)
		}
	}
	return nil
}

// ReloadTLS reads the TLS certificate, key and CA files again (SIGHUP):
// new TLS connections use them, open ones are unaffected. On failure the
// settings in force stay.
func (a *App) ReloadTLS() error {
	if err := a.ks.Live().ReloadTLS(); err != nil {
		return fmt.Errorf("reloading TLS: %w", err)
	}
	return nil
}

// stopAfterFailedStart undoes a start that failed once serving.
func (a *App) stopAfterFailedStart() {
	if a.member != nil {
		a.member.stop()
	}
	_ = a.net.Stop(context.Background())
	_ = a.ks.Close()
}

// MetricsAddr is the address of the metrics endpoint, "" when there is none.
func (a *App) MetricsAddr() string {
	if a.metrics == nil {
		return ""
	}
	return a.metrics.Addr()
}

// Logger returns the process logger.
func (a *App) Logger() *zap.Logger { return a.log }

// Keyspace returns the keyspace server.
func (a *App) Keyspace() *keyspace.Server { return a.ks }

// ShutdownRequested is signalled when a client sends SHUTDOWN.
func (a *App) ShutdownRequested() <-chan struct{} { return a.shutdown }

// Failed delivers an error if the listeners stop on their own.
func (a *App) Failed() <-chan error { return a.serveErr }

// Stop closes the listeners, lets the shards finish what they accepted,
// and closes their logs. When ctx ends first it logs which shards are
// still busy and what their shutdown skips, and returns an error wrapping
// ErrShutdownTimeout; the caller should then exit. That is safe for the
// data: every write a shard acknowledged is already in its WAL file
// (fsynced under "always"), so the next start replays it as after a crash.
func (a *App) Stop(ctx context.Context) error {
	if a.metrics != nil {
		if err := a.metrics.Close(ctx); err != nil {
			a.log.Warn("stopping the metrics endpoint", zap.Error(err))
		}
	}
	if a.member != nil {
		a.member.stop()
	}
	if err := a.net.Stop(ctx); err != nil {
		a.log.Warn("stopping listeners", zap.Error(err))
	}
	if a.repl != nil {
		a.repl.stop()
	}
	closed := make(chan error, 1)
	go func() { closed <- a.ks.Close() }()
	var err error
	select {
	case err = <-closed:
	case <-ctx.Done():
		select {
		case err = <-closed:
		default:
			busy := a.ks.Busy()
			a.log.Error("shutdown timed out: shards still busy (a long command such as DEBUG SLEEP, or the shutdown snapshot)",
				zap.Ints("busy_shards", busy),
				zap.String("skipped", "their shutdown snapshot, final WAL sync and close"),
				zap.String("data", "every acknowledged write is in the WAL and is replayed at the next start"))
			// The process exits next; the OS releases the directory lock.
			return fmt.Errorf("%w: shards %v still busy", ErrShutdownTimeout, busy)
		}
	}
	a.lock.release()
	if err != nil {
		return fmt.Errorf("closing the keyspace: %w", err)
	}
	return nil
}

// setupOOMScore applies oom-score-adj at start and whenever CONFIG SET or a change of role (a
// replica scores values[1], a primary values[0]) changes what it should be.
func (a *App) setupOOMScore(live *config.Live, log *zap.Logger) {
	adj := oomscore.New()
	apply := func(mode string, values [3]int) error {
		v := values[0]
		if a.ks.IsReplica() {
			v = values[1]
		}
		if mode == oomscore.ModeYes {
			mode = oomscore.ModeRelative
		}
		if err := adj.Apply(mode, v); err != nil {
			log.Warn("oom-score-adj not applied", zap.String("mode", mode), zap.Int("value", v), zap.Error(err))
			return err
		}
		return nil
	}
	live.SetOOMScoreHook(apply)
	if a.repl != nil {
		a.repl.onRole = func() { _ = apply(live.OOMScoreAdj()) }
	}
	if mode, values := live.OOMScoreAdj(); mode != oomscore.ModeNo {
		_ = apply(mode, values)
	}
}

// logStart writes the start line: what runs, from which configuration,
// with which durability, where.
func logStart(log *zap.Logger, cfg config.Config, note string) {
	file := cfg.File
	if file == "" {
		file = "none (built-in defaults)"
		if note != "" {
			file = "none (" + note + "; built-in defaults)"
		}
	}
	fsync := cfg.Persistence.Fsync
	if !cfg.Persistence.WAL {
		fsync = "off (persistence.wal = false)"
	}
	dir := cfg.Persistence.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	// " PID: n" is also what Redis's test suite waits for in the log of a server it started.
	log.Info(fmt.Sprintf("starting ruvio, PID: %d", os.Getpid()),
		zap.String("version", keyspace.Version),
		zap.String("config_file", file),
		zap.String("fsync", fsync),
		zap.String("dir", dir),
		zap.String("bind", cfg.Server.Bind),
		zap.Int("port", cfg.Server.Port),
		zap.Int("shards", cfg.Server.Shards))
}

// splitHostPort parses replication.primary.
func splitHostPort(hp string) (string, int, error) {
	host, p, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, fmt.Errorf("replication.primary: %w", err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("replication.primary: bad port %q", p)
	}
	return host, port, nil
}

// clientAddress is where clients reach shard 0 through the listeners ls:
// the announced host (cluster.announce, else ls's first bind address) and
// ls.Port, or ls.TLSPort when only TLS is served. ok is false with no TCP
// listener left.
func clientAddress(cfg config.Config, ls config.Listeners) (host string, port int, ok bool) {
	port = ls.Port
	if port == 0 {
		port = ls.TLSPort
	}
	if port == 0 || ls.Bind == "" {
		return "", 0, false
	}
	moved := cfg
	moved.Server.Bind = ls.Bind
	return moved.AnnounceHost(), port, true
}

// moveTopology publishes the one-host topology at the listeners ls now in
// force: shard i at the announced host (cluster.announce, else ls's first
// bind address) and port ls.Port+i, or ls.TLSPort+i when only TLS is served.
// With no TCP listener left, the topology stays as it was.
func (a *App) moveTopology(cfg config.Config, ls config.Listeners) {
	host, port, ok := clientAddress(cfg, ls)
	if !ok {
		return
	}
	t, err := a.ks.Topology().Moved(host, port)
	if err != nil {
		a.log.Warn("the cluster topology keeps its old addresses", zap.Error(err))
		return
	}
	a.ks.SetTopology(t)
}
