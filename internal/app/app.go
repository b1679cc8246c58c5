// Package app assembles a Ruvio process from its configuration: node ids,
// topology, keyspace with persistence, and the network edge. main.go and
// the integration tests both start servers through it.
package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/eventloop"
	"github.com/ruvio/ruvio/keyspace"
)

// Options are what a process needs beyond its configuration.
type Options struct {
	// Logger receives logs; nil builds one from the configuration.
	Logger *zap.Logger
	// Repair lets recovery cut a damaged WAL, or salvage a damaged
	// snapshot's intact entries, instead of refusing to start.
	Repair bool
}

// App is one running server process.
type App struct {
	log      *zap.Logger
	ks       *keyspace.Server
	net      *eventloop.Server
	serveErr chan error
	shutdown chan struct{}
	lock     *dirLock // held on the data directory until Stop
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
	lock, err := lockDataDir(cfg.Persistence.Dir, log)
	if err != nil {
		return nil, err
	}
	a.lock = lock
	started := false
	defer func() {
		if !started {
			lock.release()
		}
	}()

	ids, err := cluster.LoadOrCreateNodeIDs(cfg.Persistence.Dir, cfg.Server.Shards)
	if err != nil {
		return nil, fmt.Errorf("node ids: %w", err)
	}
	topo, err := cluster.NewTopology(cfg.Server.Bind, cfg.Server.Port, cfg.Server.Shards, ids)
	if err != nil {
		return nil, err
	}
	ksOpts := keyspace.Options{
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
	ksOpts.Persistence, err = newPersistence(cfg, opts.Repair, log)
	if err != nil {
		return nil, err
	}
	a.ks, err = keyspace.NewServer(ksOpts)
	if err != nil {
		return nil, err
	}
	begin := time.Now()
	if err := a.ks.Start(); err != nil {
		return nil, explainStartError(err)
	}
	log.Info("keyspace ready", zap.Int("shards", a.ks.Shards()), zap.Duration("recovery", time.Since(begin)))

	a.net, err = eventloop.New(eventloop.Options{
		Keyspace:        a.ks,
		Live:            live,
		Bind:            cfg.Server.Bind,
		Port:            cfg.Server.Port,
		Reactors:        cfg.Server.Reactors,
		Inline:          cfg.Server.InlineExecution,
		MaxMultibulkLen: cfg.Limits.MaxMultibulkLen,
		Logger:          log,
	})
	if err != nil {
		_ = a.ks.Close()
		return nil, err
	}
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
	started = true
	return a, nil
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
// and closes their logs.
func (a *App) Stop(ctx context.Context) error {
	if err := a.net.Stop(ctx); err != nil {
		a.log.Warn("stopping listeners", zap.Error(err))
	}
	err := a.ks.Close()
	a.lock.release()
	if err != nil {
		return fmt.Errorf("closing the keyspace: %w", err)
	}
	return nil
}
