// Command ruvio serves the Redis protocol from a shard-per-core keyspace.
//
// Usage:
//
//	ruvio [--config config.toml | --redis-conf redis.conf] [--port 6379] [--bind 127.0.0.1] [--shards N]
//	      [--reactors N | --reactor-per-shard] [--dir data] [--fsync always|everysec|no] [--loglevel info]
//	      [--replicaof host:port]
//	      [--cluster-name n --cluster-announce host --cluster-members n1=host:port,... | --cluster-join host:port,...]
//	      [--repair] [--cpuprofile file] [--trace file]
//	ruvio [flags] redis.conf [--directive value ...]
//	ruvio healthcheck [--host 127.0.0.1] [--port 6379] [--timeout 3s] [--password p]
//	ruvio import-rdb [--config config.toml] [--dir data] [--shards N] [--replace] dump.rdb
//	ruvio reshard [--config config.toml] [--dir data] --shards N
//	ruvio cluster status|failover|remove --control host:port [...]
//	ruvio help
//
// "ruvio --help" (or "ruvio help") prints the flags and the subcommands and
// exits 0; "ruvio <subcommand> --help" prints a subcommand's flags.
//
// A Redis 7.0 configuration file is read with --redis-conf, or given as the
// first argument when its name ends in ".conf" or it names an existing file other than a
// ".toml" one, as redis-server takes it; the
// "--directive value" options after that argument are applied after the file,
// as redis-server applies them (docs/redis-conf.md). The flags before it still
// take precedence over both.
//
// The environment variable RUVIO_PASSWORD, when not empty, sets
// server.requirepass (over the file), and healthcheck authenticates with it;
// RUVIO_PRIMARYAUTH sets replication.primaryauth.
//
// SIGTERM or SIGINT starts a graceful shutdown bounded by
// server.shutdown_timeout; a second one exits at once. SIGHUP reads the
// TLS certificate, key and CA files again: new TLS connections use them.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/app"
)

func main() {
	// A help request (--help, -h) has printed its text: exit 0.
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		if err := healthcheck(os.Args[2:], os.Getenv); err != nil && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ruvio healthcheck:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "import-rdb" {
		if err := importRDB(os.Args[2:], os.Getenv, os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ruvio import-rdb:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "cluster" {
		if err := clusterTool(os.Args[2:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ruvio cluster:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "reshard" {
		if err := reshard(os.Args[2:], os.Getenv, os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ruvio reshard:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "ruvio:", err)
		os.Exit(1)
	}
}

// subcommandsHelp lists the subcommands main dispatches, for "ruvio
// --help": a line of synopsis, then what it does; a new subcommand adds its
// lines here.
const subcommandsHelp = `  healthcheck [--host h] [--port n] [--timeout d] [--password p]
        send PING (after AUTH with $RUVIO_PASSWORD when set) to one shard;
        exit 0 on PONG (the Docker image's health check)
  import-rdb [--config file] [--dir path] [--shards n] [--replace] dump.rdb
        load a Redis RDB file into the data directory, for the server's next start
  reshard [--config file] [--dir path] --shards n
        with the server stopped, rewrite the data directory into n shards
        (docs/operations.md, "Changing the shard count")
  help
        print this text
`

// printUsage writes the help text of the server's flags and subcommands.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage:
  ruvio [flags]                serve; flags override the configuration file
  ruvio [flags] redis.conf [--directive value ...]
                               serve from a Redis 7.0 configuration file
                               (as redis-server; or --redis-conf redis.conf)
  ruvio <subcommand> [flags]

Subcommands:
`+subcommandsHelp+`
"ruvio <subcommand> --help" prints a subcommand's flags.

Flags:
`)
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// parseArgs parses args into fs. A help request prints fs's usage on
// stdout and returns flag.ErrHelp (main then exits 0); after a bad flag the
// message and the usage go to stderr.
func parseArgs(fs *flag.FlagSet, args []string) error {
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = os.Stdout.Write(buf.Bytes())
	} else if err != nil {
		_, _ = os.Stderr.Write(buf.Bytes())
	}
	return err
}

// overrides are the command-line flags that take precedence over the file.
type overrides struct {
	config, bind, dir, fsync, loglevel string
	// redisConf is a Redis configuration file (--redis-conf, or the ".conf"
	// argument); redisArgs are the directives that followed that argument.
	redisConf              string
	redisArgs              []config.RedisDirective
	replicaof              string
	clusterName            string
	clusterAnnounce        string
	clusterMembers         string
	clusterJoin            string
	clusterControlPort     int
	clusterReplicas        int
	clusterNodeTimeoutMs   int
	port, shards, reactors int
	reactorPerShard        bool
	repair                 bool
	cpuProfile, execTrace  string
	metricsListen          string
}

func parseFlags(args []string) (overrides, *flag.FlagSet, error) {
	var o overrides
	fs := flag.NewFlagSet("ruvio", flag.ContinueOnError)
	fs.StringVar(&o.config, "config", "config.toml", "path of the TOML configuration file (\"\" for built-in defaults)")
	fs.StringVar(&o.redisConf, "redis-conf", "", "path of a Redis 7.0 configuration file to read instead of the TOML one (a first argument ending in .conf is read the same way)")
	fs.StringVar(&o.bind, "bind", "", "address to listen on (overrides server.bind)")
	fs.IntVar(&o.port, "port", 0, "port of shard 0; shard i listens on port+i (overrides server.port)")
	fs.IntVar(&o.shards, "shards", 0, "number of shards (overrides server.shards)")
	fs.IntVar(&o.reactors, "reactors", -1, "number of network reactors shared by every port, 0 = one per CPU (overrides server.reactors; above 0 it implies --reactor-per-shard=false unless that is given)")
	fs.BoolVar(&o.reactorPerShard, "reactor-per-shard", true, "give each shard's port a reactor of its own, so commands of different connections of a shard run in the order read; false shares --reactors reactors among the ports (overrides server.reactor_per_shard)")
	fs.StringVar(&o.dir, "dir", "", "data directory (overrides persistence.dir)")
	fs.StringVar(&o.fsync, "fsync", "", "WAL fsync policy: always, everysec or no (overrides persistence.fsync)")
	fs.StringVar(&o.replicaof, "replicaof", "", "host:port of the primary's shard 0 to follow as a replica (overrides replication.primary)")
	fs.StringVar(&o.clusterName, "cluster-name", "", "this member's name in a cluster across hosts (overrides cluster.name)")
	fs.StringVar(&o.clusterAnnounce, "cluster-announce", "", "host clients and members reach this process at (overrides cluster.announce)")
	fs.StringVar(&o.clusterMembers, "cluster-members", "", "comma-separated name=host:control_port of the members the cluster is formed of (overrides cluster.members)")
	fs.StringVar(&o.clusterJoin, "cluster-join", "", "comma-separated control addresses of a running cluster to join (overrides cluster.join)")
	fs.IntVar(&o.clusterControlPort, "cluster-control-port", 0, "control plane port (overrides cluster.control_port; 0 is port+10000)")
	fs.IntVar(&o.clusterReplicas, "cluster-replicas", 1, "replicas per group when the cluster is formed (overrides cluster.replicas)")
	fs.IntVar(&o.clusterNodeTimeoutMs, "cluster-node-timeout-ms", 2000, "milliseconds a primary may be silent before its group fails over (overrides cluster.node_timeout_ms)")
	fs.StringVar(&o.metricsListen, "metrics-listen", "", "host:port of the Prometheus endpoint (GET /metrics); \"\" serves none (overrides metrics.listen)")
	fs.StringVar(&o.loglevel, "loglevel", "", "log level: debug, info, warn, error (overrides log.level)")
	fs.BoolVar(&o.repair, "repair", false, "instead of refusing to start on damage, cut the WAL at the first bad record or load a damaged snapshot up to its first bad entry (what is cut is kept as .broken)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the whole run to this file")
	fs.StringVar(&o.execTrace, "trace", "", "write a Go execution trace of the whole run to this file (go tool trace; large: for short runs)")
	fs.Usage = func() { printUsage(fs.Output(), fs) }
	err := parseArgs(fs, args)
	if err == nil && fs.NArg() > 0 && isRedisConfArg(fs.Arg(0)) {
		// redis-server's form: the file, then options written as directives.
		if o.redisConf != "" {
			return o, fs, fmt.Errorf("two Redis configuration files: --redis-conf %q and %q", o.redisConf, fs.Arg(0))
		}
		o.redisConf = fs.Arg(0)
		o.redisArgs, err = config.RedisOptionArgs(fs.Args()[1:])
		if err != nil {
			err = fmt.Errorf("%w (ruvio --help lists the flags)", err)
		}
		return o, fs, err
	}
	if err == nil && fs.NArg() > 0 {
		// A mistyped subcommand must not start a server.
		err = fmt.Errorf("unknown subcommand or argument %q (ruvio --help lists them)", fs.Arg(0))
	}
	return o, fs, err
}

// isRedisConfArg tells whether a first positional argument is a Redis configuration file, as
// redis-server takes its first argument: a name ending in ".conf", or any existing regular file
// (Redis's test suite names its files "redis.conf.<pid>.<n>") other than a TOML one, which
// belongs to --config.
func isRedisConfArg(a string) bool {
	if strings.HasSuffix(a, ".conf") {
		return true
	}
	if strings.HasSuffix(a, ".toml") {
		return false
	}
	st, err := os.Stat(a)
	return err == nil && st.Mode().IsRegular()
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
	cfg, note, _, err = loadConfigNotices(o, set, getenv)
	return cfg, note, err
}

// loadConfigNotices is loadConfig that also returns what a Redis
// configuration file's directives said to log (those accepted without effect).
func loadConfigNotices(o overrides, set map[string]bool, getenv func(string) string) (cfg config.Config, note string, notices []string, err error) {
	cfg = config.Default()
	if o.redisConf != "" {
		if set["config"] && o.config != "" {
			return cfg, "", nil, fmt.Errorf("--config %q and the Redis configuration file %q: give one", o.config, o.redisConf)
		}
		cfg, notices, err = config.LoadRedisConf(o.redisConf, o.redisArgs)
		if err != nil {
			return cfg, "", nil, err
		}
	} else if o.config == "" {
		note = `--config ""`
	} else {
		cfg, err = config.Load(o.config)
		if err != nil {
			if !(errors.Is(err, os.ErrNotExist) && !set["config"]) {
				return cfg, "", nil, err
			}
			cfg = config.Default()
			note = o.config + " not found"
		}
	}
	cfg, err = applyOverrides(cfg, o, set, getenv)
	if err == nil && cfg.FileFormat == config.FormatRedis && cfg.ACL.File != "" && !filepath.IsAbs(cfg.ACL.File) {
		// redis-server changes into its dir before it loads the ACL file, so a relative
		// aclfile names a file there.
		cfg.ACL.File = filepath.Join(cfg.Persistence.Dir, cfg.ACL.File)
	}
	return cfg, note, notices, err
}

// applyOverrides applies the environment, then the flags, over cfg and
// validates the result.
func applyOverrides(cfg config.Config, o overrides, set map[string]bool, getenv func(string) string) (config.Config, error) {
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
		if o.reactors > 0 && !set["reactor-per-shard"] {
			cfg.Server.ReactorPerShard = false
		}
	}
	if set["reactor-per-shard"] {
		cfg.Server.ReactorPerShard = o.reactorPerShard
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
	if set["cluster-name"] {
		cfg.Cluster.Name = o.clusterName
	}
	if set["cluster-announce"] {
		cfg.Cluster.Announce = o.clusterAnnounce
	}
	if set["cluster-members"] {
		cfg.Cluster.Members = splitList(o.clusterMembers)
	}
	if set["cluster-join"] {
		cfg.Cluster.Join = splitList(o.clusterJoin)
	}
	if set["cluster-control-port"] {
		cfg.Cluster.ControlPort = o.clusterControlPort
	}
	if set["cluster-replicas"] {
		cfg.Cluster.Replicas = o.clusterReplicas
	}
	if set["cluster-node-timeout-ms"] {
		cfg.Cluster.NodeTimeoutMs = o.clusterNodeTimeoutMs
	}
	if set["loglevel"] {
		cfg.Log.Level = o.loglevel
	}
	if set["metrics-listen"] {
		cfg.Metrics.Listen = o.metricsListen
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "help" {
		args = []string{"--help"}
	}
	o, fs, err := parseFlags(args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg, note, notices, err := loadConfigNotices(o, set, os.Getenv)
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
	a, err := app.Start(cfg, app.Options{Repair: o.repair, ConfigNote: note, ConfigNotices: notices})
	debug.SetGCPercent(gcPercent)
	if err != nil {
		return err
	}
	log := a.Logger()
	defer func() { _ = log.Sync() }()
	if removePid := writePidFile(cfg.Server.PidFile, log); removePid != nil {
		defer removePid()
	}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	// SIGHUP reloads the TLS certificates, keys and CAs.
	hups := make(chan os.Signal, 1)
	signal.Notify(hups, syscall.SIGHUP)
	defer signal.Stop(hups)
	timeout := time.Duration(cfg.Server.ShutdownTimeout) * time.Second
wait:
	select {
	case <-hups:
		if err := a.ReloadTLS(); err != nil {
			log.Warn("SIGHUP: the TLS settings in force stay", zap.Error(err))
		} else {
			log.Info("SIGHUP: TLS files reloaded")
		}
		goto wait
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

// writePidFile writes the process id into path, as Redis's pidfile, and
// returns the function that removes it at exit; nil when path is "" or the
// file could not be written, which is logged and not fatal, as in Redis.
func writePidFile(path string, log *zap.Logger) func() {
	if path == "" {
		return nil
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		log.Warn("failed to write the pid file", zap.String("pidfile", path), zap.Error(err))
		return nil
	}
	return func() { _ = os.Remove(path) }
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
