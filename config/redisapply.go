package config

import (
	"fmt"
	"strconv"
	"strings"
)

// RuntimeSetting is a runtime parameter's start value given by a Redis configuration file
// for a parameter the TOML file has no key for; [NewLive] applies it over the default.
type RuntimeSetting struct {
	// Name is the parameter's canonical name; Value its canonical value.
	Name, Value string
}

// configSetters write the canonical value of a runtime parameter into the typed fields of
// Config, for the parameters whose start value comes from Config. A directive of one of these
// names is parsed by the parameter's own rules (the same as CONFIG SET's), then set here.
var configSetters = map[string]func(c *Config, v string, n int64){
	"port":                 func(c *Config, _ string, n int64) { c.Server.Port = int(n) },
	"databases":            func(c *Config, _ string, n int64) { c.Server.Databases = int(n) },
	"maxclients":           func(c *Config, _ string, n int64) { c.Server.MaxClients = int(n) },
	"timeout":              func(c *Config, _ string, n int64) { c.Server.Timeout = int(n) },
	"requirepass":          func(c *Config, v string, _ int64) { c.Server.RequirePass = v },
	"protected-mode":       func(c *Config, v string, _ int64) { c.Server.ProtectedMode = v == "yes" },
	"enable-debug-command": func(c *Config, v string, _ int64) { c.Server.EnableDebugCommand = v },
	"cluster-enabled": func(c *Config, v string, _ int64) {
		c.Cluster.Enabled = switchOf(v == "yes")
	},
	"proto-max-bulk-len":        func(c *Config, _ string, n int64) { c.Limits.ProtoMaxBulkLen = n },
	"client-query-buffer-limit": func(c *Config, _ string, n int64) { c.Limits.ClientQueryBufferLimit = n },
	"client-output-buffer-limit": func(c *Config, v string, _ int64) {
		c.Limits.ClientOutputBuffer = obufLimits(obufFromCanonical(v))
	},
	"hz":                   func(c *Config, _ string, n int64) { c.Keyspace.Hz = int(n) },
	"active-expire-effort": func(c *Config, _ string, n int64) { c.Keyspace.ActiveExpireEffort = int(n) },
	"loglevel":             func(c *Config, v string, _ int64) { c.Log.Level = tomlLogLevel(v) },
	"appendfsync":          func(c *Config, v string, _ int64) { c.Persistence.Fsync = v },
	"dir":                  func(c *Config, v string, _ int64) { c.Persistence.Dir = v },
	"save":                 func(c *Config, v string, _ int64) { c.Persistence.Save = v },
	"maxmemory":            func(c *Config, _ string, n int64) { c.Memory.MaxMemory = n },
	"maxmemory-clients": func(c *Config, v string, _ int64) {
		c.Limits.MaxMemoryClients = v // canonical: parsed already
	},
	"maxmemory-policy":  func(c *Config, v string, _ int64) { c.Memory.MaxMemoryPolicy = v },
	"maxmemory-samples": func(c *Config, _ string, n int64) { c.Memory.MaxMemorySamples = int(n) },
	"lfu-log-factor":    func(c *Config, _ string, n int64) { c.Memory.LFULogFactor = int(n) },
	"lfu-decay-time":    func(c *Config, _ string, n int64) { c.Memory.LFUDecayTime = int(n) },
	"aclfile":           func(c *Config, v string, _ int64) { c.ACL.File = v },
	"unixsocket":        func(c *Config, v string, _ int64) { c.Server.UnixSocket = v },
	"unixsocketperm": func(c *Config, v string, _ int64) {
		n, _ := strconv.ParseUint(v, 8, 32) // canonical: parsed already
		c.Server.UnixSocketPerm = uint32(n)
	},
	"sync-replicas": func(c *Config, _ string, n int64) { c.Replication.SyncReplicas = int(n) },
}

// tomlLogLevel maps a Redis loglevel to log.level: zap has no level between debug and info,
// so verbose and notice are both info.
func tomlLogLevel(v string) string {
	switch v {
	case "debug":
		return "debug"
	case "warning", "warn":
		return "warn"
	case "error":
		return "error"
	}
	return "info"
}

// Directives Redis accepts whose settings are internal to Redis's own implementation
// (allocator, RDB/AOF file details, threads, process title, defragmentation, TCP tuning):
// they have no meaning here, and each is accepted with one log line naming it.
var redisIgnored = map[string]bool{
	"activedefrag": true, "active-defrag-cycle-min": true, "active-defrag-cycle-max": true,
	"active-defrag-threshold-lower": true, "active-defrag-threshold-upper": true,
	"active-defrag-ignore-bytes": true, "active-defrag-max-scan-fields": true,
	"activerehashing": true, "always-show-logo": true, "aof-disable-auto-gc": true,
	"aof-load-truncated": true, "aof-rewrite-incremental-fsync": true, "aof-timestamp-enabled": true,
	"aof-use-rdb-preamble": true, "appenddirname": true, "appendfilename": true,
	"crash-log-enabled": true, "crash-memcheck-enabled": true,
	"dbfilename": true, "disable-thp": true, "dynamic-hz": true,
	"ignore-warnings": true,
	"io-threads":      true, "io-threads-do-reads": true, "jemalloc-bg-thread": true,
	"lazyfree-lazy-eviction": true, "lazyfree-lazy-expire": true, "lazyfree-lazy-server-del": true,
	"lazyfree-lazy-user-del": true, "lazyfree-lazy-user-flush": true, "list-compress-depth": true,
	"maxmemory-eviction-tenacity": true,
	"no-appendfsync-on-rewrite":   true,
	"proc-title-template":         true, "rdb-del-sync-files": true, "rdb-key-save-delay": true,
	"key-load-delay": true, "rdb-save-incremental-fsync": true, "rdbchecksum": true,
	"rdbcompression": true, "repl-diskless-load": true, "repl-diskless-sync": true,
	"repl-diskless-sync-delay": true, "repl-diskless-sync-max-replicas": true,
	"repl-disable-tcp-nodelay": true, "replica-lazy-flush": true, "sanitize-dump-payload": true,
	"set-proc-title": true, "socket-mark-id": true,
	"stop-writes-on-bgsave-error": true,
	"supervised":                  true, "tcp-backlog": true, "tcp-keepalive": true,
	"watchdog-period":          true,
	"set-max-listpack-entries": true, "set-max-listpack-value": true,
	"cluster-config-file": true, "cluster-node-timeout": true, "cluster-require-full-coverage": true,
	"cluster-replica-no-failover": true, "cluster-replica-validity-factor": true,
	"cluster-migration-barrier": true, "cluster-allow-replica-migration": true,
	"cluster-allow-reads-when-down": true, "cluster-allow-pubsubshard-when-down": true,
	"cluster-link-sendbuf-limit": true, "repl-timeout": true, "repl-ping-replica-period": true,
	"repl-backlog-ttl": true, "loading-process-events-interval-bytes": true, "use-exit-on-panic": true, "repl-backlog-size": true, "lua-replicate-commands": true,
	// A command that fails while its effects propagate to the AOF or replicas: every write
	// here reaches the WAL and the replication stream as the same record, so there is no
	// such failure to react to (CONFIG GET reports it).
	"propagation-error-behavior": true,
}

// redisNoEffect are immutable parameters whose other values Redis uses to enable what this
// server does not have; a file may set them (Redis's test suite does) and CONFIG GET reports
// the value, and the log line says why it changes nothing.
var redisNoEffect = map[string]string{
	"enable-module-command":    "there are no modules and no MODULE command here, so there is nothing to enable",
	"enable-protected-configs": "dir and dbfilename still cannot be changed at run time here",
}

// Directives that would change behaviour in a way this server does not support. Each is
// accepted only at Redis's default value, which changes nothing, and refused with its line
// number otherwise. A nil value means no value is accepted.
var redisUnsupported = map[string][]string{
	"rename-command":                   nil,
	"loadmodule":                       nil,
	"sentinel":                         nil,
	"syslog-enabled":                   {"no"},
	"syslog-ident":                     {"redis"},
	"syslog-facility":                  {"local0"},
	"replica-ignore-maxmemory":         {"yes"},
	"replica-ignore-disk-write-errors": {"no"},
	// "force" (exit even when the shutdown snapshot fails) is what this server always does:
	// its acknowledged writes are in the WAL, so a failed snapshot never holds the exit.
	"shutdown-on-sigint":              {"default", "force"},
	"shutdown-on-sigterm":             {"default", "force"},
	"cluster-port":                    {"0"},
	"cluster-announce-ip":             {""},
	"cluster-announce-hostname":       {""},
	"cluster-announce-port":           {"0"},
	"cluster-announce-bus-port":       {"0"},
	"cluster-announce-tls-port":       {"0"},
	"cluster-preferred-endpoint-type": {"ip"},
}

// redisAliases are Redis's older names of directives this file handles itself (the runtime
// table knows the aliases of its own parameters).
var redisAliases = map[string]string{
	"slaveof": "replicaof", "slave-priority": "replica-priority", "slave-announce-ip": "replica-announce-ip",
	"slave-announce-port": "replica-announce-port", "slave-lazy-flush": "replica-lazy-flush",
	"slave-ignore-maxmemory": "replica-ignore-maxmemory", "cluster-slave-no-failover": "cluster-replica-no-failover",
	"cluster-slave-validity-factor": "cluster-replica-validity-factor", "repl-ping-slave-period": "repl-ping-replica-period",
	"hash-max-ziplist-entries": "hash-max-listpack-entries", "hash-max-ziplist-value": "hash-max-listpack-value",
	"zset-max-ziplist-entries": "zset-max-listpack-entries", "zset-max-ziplist-value": "zset-max-listpack-value",
	"list-max-ziplist-size": "list-max-listpack-size",
}

// redisArgs joins a directive's arguments into the value CONFIG SET would be given: the
// multi-word directives (save, client-output-buffer-limit, ...) take the words joined by
// one space.
func redisArgs(d RedisDirective) string { return strings.Join(d.Args, " ") }

// RedisDefaultSave is Redis 7.0's save points when its file has no save line.
const RedisDefaultSave = "3600 1 300 100 60 10000"

// ApplyRedisDirectives applies directives to c in order, as Redis reads its file: a later
// directive overrides an earlier one, except the ones that accumulate (save,
// client-output-buffer-limit, user). It returns one notice per directive accepted without
// effect, and an error naming the first directive refused.
func ApplyRedisDirectives(c *Config, dirs []RedisDirective) ([]string, error) {
	var notes []string
	saveSeen := false
	appendonly := "no" // Redis's default
	appendonlyAt := ""
	runtime := map[string]int{} // canonical name -> index in c.Runtime
	for _, d := range dirs {
		name := d.Name
		if a, ok := redisAliases[name]; ok {
			name = a
		}
		if i, ok := lookupParam(name); ok {
			name = params[i].name
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s: '%s': %s", d.Where(), d.Name, fmt.Sprintf(format, args...))
		}
		switch name {
		case "bind":
			if len(d.Args) == 0 {
				return nil, fail("wrong number of arguments")
			}
			// Every address is bound, a '-' one only when the host has it (ParseBind);
			// bind "" binds none.
			if len(d.Args) > 16 {
				return nil, fail("Too many bind addresses specified.")
			}
			c.Server.Bind = canonicalBind(strings.Join(d.Args, " "))
			if !validBind(c.Server.Bind) {
				return nil, fail("Invalid bind address")
			}
			continue
		case "replicaof":
			if len(d.Args) != 2 {
				return nil, fail("wrong number of arguments")
			}
			if strings.EqualFold(d.Args[0], "no") && strings.EqualFold(d.Args[1], "one") {
				c.Replication.Primary = ""
				continue
			}
			if p, err := strconv.Atoi(d.Args[1]); err != nil || p < 1 || p > 65535 {
				return nil, fail("Invalid master port")
			}
			c.Replication.Primary = d.Args[0] + ":" + d.Args[1]
			continue
		case "masterauth", "masteruser":
			if len(d.Args) != 1 {
				return nil, fail("wrong number of arguments")
			}
			if name == "masterauth" {
				c.Replication.PrimaryAuth = d.Args[0]
			} else {
				c.Replication.PrimaryUser = d.Args[0]
			}
			continue
		case "user":
			u, err := redisUser(d.Args)
			if err != nil {
				return nil, fail("%v", err)
			}
			c.ACL.Users = append(c.ACL.Users, u)
			continue
		case "daemonize":
			if len(d.Args) != 1 {
				return nil, fail("wrong number of arguments")
			}
			if strings.EqualFold(d.Args[0], "yes") {
				notes = append(notes, d.Where()+": daemonize yes: this server does not fork; it runs in the foreground (run it under a supervisor such as systemd)")
			} else if !strings.EqualFold(d.Args[0], "no") {
				return nil, fail("argument must be 'yes' or 'no'")
			}
			continue
		case "logfile":
			if len(d.Args) != 1 {
				return nil, fail("wrong number of arguments")
			}
			c.Log.File = d.Args[0]
			continue
		case "pidfile":
			if len(d.Args) != 1 {
				return nil, fail("wrong number of arguments")
			}
			c.Server.PidFile = d.Args[0]
			continue
		case "shutdown-timeout":
			if len(d.Args) != 1 {
				return nil, fail("wrong number of arguments")
			}
			n, ok := parseStrictInt(d.Args[0])
			if !ok || n < 1 || n > 3600 {
				return nil, fail("argument must be between 1 and 3600 inclusive")
			}
			c.Server.ShutdownTimeout = int(n)
			continue
		case "appendonly":
			if len(d.Args) != 1 || !containsFold([]string{"yes", "no"}, d.Args[0]) {
				return nil, fail("argument must be 'yes' or 'no'")
			}
			appendonly, appendonlyAt = strings.ToLower(d.Args[0]), d.Where()
			continue
		case "auto-aof-rewrite-percentage", "auto-aof-rewrite-min-size":
			// The WAL is compacted by snapshots, whose size trigger these are.
			if len(d.Args) != 1 {
				return nil, fail("wrong number of arguments")
			}
			if name == "auto-aof-rewrite-percentage" {
				n, ok := parseStrictInt(d.Args[0])
				if !ok || n < 0 || n > intMax {
					return nil, fail("argument couldn't be parsed into an integer")
				}
				c.Persistence.SnapshotWALPercent = int(n)
			} else {
				n, err := ParseSize(d.Args[0])
				if err != nil || n < 0 {
					return nil, fail("argument must be a memory value")
				}
				c.Persistence.SnapshotWALBytes = n
			}
			continue
		}
		if allowed, ok := redisUnsupported[name]; ok {
			v := redisArgs(d)
			if !containsFold(allowed, v) {
				return nil, fail("not supported by this server (docs/redis-conf.md)")
			}
			what := "Redis's default"
			if len(allowed) > 0 && !strings.EqualFold(allowed[0], v) {
				what = "what this server does anyway"
			}
			notes = append(notes, fmt.Sprintf("%s: %s %s: %s, nothing to do", d.Where(), d.Name, quoteRedis(v), what))
			continue
		}
		i, known := lookupParam(name)
		if !known {
			if redisIgnored[name] {
				notes = append(notes, fmt.Sprintf("%s: %s ignored: it tunes Redis's own implementation and has no meaning here", d.Where(), d.Name))
				continue
			}
			return nil, fail("Bad directive or wrong number of arguments")
		}
		p := &params[i]
		v := redisArgs(d)
		if p.kind != kindSpecial && len(d.Args) != 1 {
			return nil, fail("wrong number of arguments")
		}
		cur := p.def
		if j, ok := runtime[p.name]; ok {
			cur = c.Runtime[j].Value
		} else if p.initial != nil {
			cur = p.initial(c)
		}
		if p.name == "save" {
			// The file's first save line replaces the default points; later ones add to it.
			if !saveSeen {
				cur = ""
			}
			saveSeen = true
			if v != "" && cur != "" {
				v = cur + " " + v
			}
		}
		canon, n, reason := p.parse(v, cur)
		if reason != "" {
			return nil, fail("%s", reason)
		}
		if redisIgnored[name] {
			notes = append(notes, fmt.Sprintf("%s: %s ignored: it tunes Redis's own implementation and has no meaning here (CONFIG GET reports it)", d.Where(), d.Name))
		}
		if set, ok := configSetters[p.name]; ok {
			set(c, canon, n)
			continue
		}
		if p.tls != nil {
			p.tls(&c.TLS, canon, n)
			continue
		}
		if why, ok := redisNoEffect[p.name]; ok && canon != p.def {
			notes = append(notes, fmt.Sprintf("%s: %s %s: accepted without effect: %s", d.Where(), d.Name, canon, why))
		} else if p.immutable && p.initial == nil && canon != p.def && !redisIgnored[name] {
			return nil, fail("not supported by this server (docs/redis-conf.md)")
		}
		if j, ok := runtime[p.name]; ok {
			c.Runtime[j].Value = canon
		} else {
			runtime[p.name] = len(c.Runtime)
			c.Runtime = append(c.Runtime, RuntimeSetting{Name: p.name, Value: canon})
		}
	}
	// Snapshots, Redis's RDB save points here, are built from the WAL: with save points the
	// WAL stays on even under "appendonly no", and persistence is off only when Redis's would
	// be, with "appendonly no" and save "".
	c.Persistence.WAL = appendonly == "yes" || c.Persistence.Save != ""
	if appendonly == "no" && c.Persistence.WAL && appendonlyAt != "" {
		notes = append(notes, appendonlyAt+": appendonly no: the write-ahead log stays on, since the save points' snapshots are built from it (save \"\" with appendonly no turns persistence off)")
	}
	return notes, nil
}

// quoteRedis quotes an empty value as Redis's configuration format writes it.
func quoteRedis(v string) string {
	if v == "" {
		return `""`
	}
	return v
}

// redisUser turns a "user <name> <rules…>" directive into an [[acl.user]] table; the rules
// are checked at start as the table's are.
func redisUser(args []string) (ACLUser, error) {
	if len(args) == 0 {
		return ACLUser{}, fmt.Errorf("wrong number of arguments")
	}
	off := false // Redis creates a user disabled until "on"
	u := ACLUser{Name: args[0], Enabled: &off}
	var cmds []string
	for _, r := range args[1:] {
		lr := strings.ToLower(r)
		switch {
		case lr == "on" || lr == "off":
			on := lr == "on"
			u.Enabled = &on
		case lr == "nopass":
			u.NoPass = true
			u.Passwords = nil
		case lr == "resetpass":
			u.NoPass = false
			u.Passwords = nil
		case strings.HasPrefix(r, ">"):
			u.Passwords = append(u.Passwords, "plain:"+r[1:])
		case strings.HasPrefix(r, "#"):
			u.Passwords = append(u.Passwords, "sha256:"+strings.ToLower(r[1:]))
		case strings.HasPrefix(r, "~") || strings.HasPrefix(r, "%") || lr == "allkeys":
			u.Keys = append(u.Keys, r)
		case lr == "resetkeys":
			u.Keys = nil
		case strings.HasPrefix(r, "&") || lr == "allchannels":
			u.Channels = append(u.Channels, r)
		case lr == "resetchannels":
			u.Channels = nil
		case strings.HasPrefix(r, "+") || strings.HasPrefix(r, "-") || lr == "allcommands" || lr == "nocommands":
			cmds = append(cmds, r)
		default:
			return ACLUser{}, fmt.Errorf("user %s: rule %q is not supported in this file (use an aclfile)", args[0], r)
		}
	}
	u.Commands = strings.Join(cmds, " ")
	return u, nil
}

func containsFold(list []string, v string) bool {
	for _, a := range list {
		if strings.EqualFold(a, v) {
			return true
		}
	}
	return false
}

func switchOf(on bool) Switch {
	if on {
		return On
	}
	return Off
}
