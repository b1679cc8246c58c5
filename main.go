// Command ruvio serves the Redis protocol from a shard-per-core keyspace.
//
// Usage:
//
//	ruvio [--config config.toml] [--port 6379] [--bind 127.0.0.1] [--shards N]
//	      [--reactors N] [--dir data] [--fsync always|everysec|no] [--loglevel info]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/eventloop"
	"github.com/ruvio/ruvio/keyspace"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ruvio:", err)
		os.Exit(1)
	}
}

// overrides are the command-line flags that take precedence over the file.
type overrides struct {
	config, bind, dir, fsync, loglevel string
	port, shards, reactors             int
	repair                             bool
}

func parseFlags(args []string) (overrides, *flag.FlagSet, error) {
	var o overrides
	fs := flag.NewFlagSet("ruvio", flag.ContinueOnError)
	fs.StringVar(&o.config, "config", "config.toml", "path of the TOML configuration file (\"\" for built-in defaults)")
	fs.StringVar(&o.bind, "bind", "", "address to listen on (overrides server.bind)")
	fs.IntVar(&o.port, "port", 0, "port of shard 0; shard i listens on port+i (overrides server.port)")
	fs.IntVar(&o.shards, "shards", 0, "number of shards (overrides server.shards)")
	fs.IntVar(&o.reactors, "reactors", -1, "number of network reactors, 0 = one per CPU (overrides server.reactors)")
	fs.StringVar(&o.dir, "dir", "", "data directory (overrides persistence.dir)")
	fs.StringVar(&o.fsync, "fsync", "", "WAL fsync policy: always, everysec or no (overrides persistence.fsync)")
	fs.StringVar(&o.loglevel, "loglevel", "", "log level: debug, info, warn, error (overrides log.level)")
	fs.BoolVar(&o.repair, "repair", false, "truncate a WAL at the first damaged record instead of refusing to start")
	err := fs.Parse(args)
	return o, fs, err
}

// loadConfig reads the file and applies the flags.
func loadConfig(o overrides, set map[string]bool) (config.Config, error) {
	cfg := config.Default()
	if o.config != "" {
		var err error
		cfg, err = config.Load(o.config)
		if err != nil {
			if !(errors.Is(err, os.ErrNotExist) && !set["config"]) {
				return cfg, err
			}
			cfg = config.Default()
		}
	}
	if set["bind"] {
		cfg.Server.Bind = o.bind
	}
	if set["port"] {
		cfg.Server.Port = o.port
	}
	if set["shards"] {
		cfg.Server.Shards = o.shards
	}
	if set["reactors"] {
		cfg.Server.Reactors = o.reactors
	}
	if set["dir"] {
		cfg.Persistence.Dir = o.dir
	}
	if set["fsync"] {
		cfg.Persistence.Fsync = o.fsync
	}
	if set["loglevel"] {
		cfg.Log.Level = o.loglevel
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func run(args []string) error {
	o, fs, err := parseFlags(args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg, err := loadConfig(o, set)
	if err != nil {
		return err
	}
	live := config.NewLive(cfg)
	log, err := config.NewLoggerAt(cfg.Log, live.LogLevel())
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	ids, err := cluster.LoadOrCreateNodeIDs(cfg.Persistence.Dir, cfg.Server.Shards)
	if err != nil {
		return fmt.Errorf("node ids: %w", err)
	}
	topo, err := cluster.NewTopology(cfg.Server.Bind, cfg.Server.Port, cfg.Server.Shards, ids)
	if err != nil {
		return err
	}
	shutdown := make(chan struct{}, 1)
	ksOpts := keyspace.Options{
		Config:   cfg,
		Live:     live,
		Topology: topo,
		Logger:   log,
		OnShutdown: func() {
			select {
			case shutdown <- struct{}{}:
			default:
			}
		},
	}
	if p, err := newPersistence(cfg, o.repair, log); err != nil {
		return err
	} else if p != nil {
		ksOpts.Persistence = p
	}
	ks, err := keyspace.NewServer(ksOpts)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := ks.Start(); err != nil {
		return err
	}
	log.Info("keyspace ready", zap.Int("shards", ks.Shards()), zap.Duration("recovery", time.Since(start)))

	srv, err := eventloop.New(eventloop.Options{
		Keyspace:        ks,
		Live:            live,
		Bind:            cfg.Server.Bind,
		Port:            cfg.Server.Port,
		Reactors:        cfg.Server.Reactors,
		MaxMultibulkLen: cfg.Limits.MaxMultibulkLen,
		Logger:          log,
	})
	if err != nil {
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve() }()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	select {
	case sig := <-sigs:
		log.Info("shutting down", zap.String("signal", sig.String()))
	case <-shutdown:
		log.Info("shutting down", zap.String("reason", "SHUTDOWN command"))
	case err := <-serveErr:
		if err != nil {
			_ = ks.Close()
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Stop(ctx); err != nil {
		log.Warn("stopping listeners", zap.Error(err))
	}
	if err := ks.Close(); err != nil {
		return fmt.Errorf("closing the keyspace: %w", err)
	}
	log.Info("bye")
	return nil
}
