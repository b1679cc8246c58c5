// Command ruvio serves the Redis protocol from a shard-per-core keyspace.
//
// Usage:
//
//	ruvio [--config config.toml] [--port 6379] [--bind 127.0.0.1] [--shards N]
//	      [--reactors N] [--dir data] [--fsync always|everysec|no] [--loglevel info]
//	      [--replicaof host:port]
//	ruvio healthcheck [--host 127.0.0.1] [--port 6379] [--timeout 3s]
//	ruvio import-rdb [--config config.toml] [--dir data] [--shards N] [--replace] dump.rdb
//	ruvio reshard [--config config.toml] [--dir data] --shards N
//
// The environment variable RUVIO_PASSWORD, when not empty, sets
// server.requirepass (over the file), and healthcheck authenticates with it;
// RUVIO_PRIMARYAUTH sets replication.primaryauth.
//
// SIGTERM or SIGINT starts a graceful shutdown bounded by
// server.shutdown_timeout; a second one exits at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		if err := healthcheck(os.Args[2:], os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "ruvio healthcheck:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "import-rdb" {
		if err := importRDB(os.Args[2:], os.Getenv, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "ruvio import-rdb:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "reshard" {
		if err := reshard(os.Args[2:], os.Getenv, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "ruvio reshard:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ruvio:", err)
		os.Exit(1)
	}
}

// overrides are the command-line flags that take precedence over the file.
type overrides struct {
	config, bind, dir, fsync, loglevel string
	replicaof                          string
	port, shards, reactors             int
	repair                             bool
	cpuProfile, execTrace              string
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
	fs.StringVar(&o.replicaof, "replicaof", "", "host:port of the primary to follow as a replica (overrides replication.primary)")
	fs.StringVar(&o.loglevel, "loglevel", "", "log level: debug, info, warn, error (overrides log.level)")
	fs.BoolVar(&o.repair, "repair", false, "instead of refusing to start on damage, cut the WAL at the first bad record or load a damaged snapshot up to its first bad entry (what is cut is kept as .broken)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the whole run to this file")
	fs.StringVar(&o.execTrace, "trace", "", "write a Go execution trace of the whole run to this file (go tool trace; large: for short runs)")
	err := fs.Parse(args)
	return o, fs, err
}

// startRecording creates path and starts a whole-run recorder into it (a
// CPU profile, an execution trace); the returned function stops it and
// closes the file. An empty path records nothing.
func startRecording(path, what string, start func(io.Writer) error, stop func()) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := start(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return func() {
		stop()
		_ = f.Close()
	}, nil
}

// passwordEnv names the environment variable that sets server.requirepass.
const passwordEnv = "RUVIO_PASSWORD"

// primaryAuthEnv names the environment variable that sets
// replication.primaryauth (a replica's password on its primary).
const primaryAuthEnv = "RUVIO_PRIMARYAUTH"

// loadConfig reads the file, then the environment (getenv), then applies
// the flags. note says why no file was read, when none was: the default
// ./config.toml may be missing, an explicit --config may not.
func loadConfig(o overrides, set map[string]bool, getenv func(string) string) (cfg config.Config, note string, err error) {
	cfg = config.Default()
	if o.config == "" {
		note = `--config ""`
	} else {
		cfg, err = config.Load(o.config)
		if err != nil {
			if !(errors.Is(err, os.ErrNotExist) && !set["config"]) {
				return cfg, "", err
			}
			cfg = config.Default()
			note = o.config + " not found"
		}
	}
	if pass := getenv(passwordEnv); pass != "" {
		cfg.Server.RequirePass = pass
	}
	if pass := getenv(primaryAuthEnv); pass != "" {
		cfg.Replication.PrimaryAuth = pass
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
	if set["replicaof"] {
		cfg.Replication.Primary = o.replicaof
	}
	if set["fsync"] {
		cfg.Persistence.Fsync = o.fsync
	}
	if set["loglevel"] {
		cfg.Log.Level = o.loglevel
	}
	if err := cfg.Validate(); err != nil {
		return cfg, note, err
	}
	return cfg, note, nil
}

func run(args []string) error {
	o, fs, err := parseFlags(args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg, note, err := loadConfig(o, set, os.Getenv)
	if err != nil {
		return err
	}
	stopProfile, err := startRecording(o.cpuProfile, "cpu profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	stopTrace, err := startRecording(o.execTrace, "execution trace", trace.Start, trace.Stop)
	if err != nil {
		return err
	}
	defer stopTrace()
	// Recovery builds the whole keyspace and frees almost nothing: the
	// collector is paused while it runs and restored once serving starts.
	gcPercent := debug.SetGCPercent(-1)
	a, err := app.Start(cfg, app.Options{Repair: o.repair, ConfigNote: note})
	debug.SetGCPercent(gcPercent)
	if err != nil {
		return err
	}
	log := a.Logger()
	defer func() { _ = log.Sync() }()

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	timeout := time.Duration(cfg.Server.ShutdownTimeout) * time.Second
	select {
	case sig := <-sigs:
		log.Info("shutting down", zap.String("signal", sig.String()))
	case <-a.ShutdownRequested():
		log.Info("shutting down", zap.String("reason", "SHUTDOWN command"))
	case err := <-a.Failed():
		if err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			_ = a.Stop(ctx)
			return err
		}
	}
	// The shutdown runs aside so that a second signal is heard while it
	// runs; its context bounds it whatever a shard is doing.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- a.Stop(ctx) }()
	select {
	case err := <-stopped:
		if err != nil {
			return err
		}
	case sig := <-sigs:
		log.Warn("second signal: exiting at once; the shutdown snapshot and WAL close are skipped, acknowledged writes are in the WAL and are replayed at the next start",
			zap.String("signal", sig.String()))
		_ = log.Sync()
		os.Exit(1)
	}
	log.Info("bye")
	return nil
}
