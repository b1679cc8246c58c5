package config

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// kind says how a parameter's value is parsed and printed.
type kind uint8

const (
	kindBool    kind = iota // "yes" or "no", case-insensitive on input
	kindInt                 // a strict decimal integer within [min, max]
	kindMemory              // a Redis memory value ("512mb") within [min, max]; printed in bytes
	kindEnum                // one of enum, case-insensitive on input, stored in lower case
	kindString              // any string
	kindSpecial             // parsed by special
)

// param describes one runtime parameter. The table of params is immutable.
type param struct {
	name      string
	alias     string // Redis's older name, accepted everywhere name is
	kind      kind
	immutable bool
	// fixed, when not empty, marks a parameter Redis can change at run time and this server
	// cannot (its listeners, its log, what it does not implement yet): CONFIG SET accepts its
	// current value, as a no-op, and refuses any other value with fixed as the reason.
	fixed string
	// protected parameters are Redis's PROTECTED_CONFIG ones. This server reports
	// enable-protected-configs as "no": CONFIG SET refuses them whatever the value.
	protected bool
	// listener parameters (bind, port, tls-port) say where the server listens: a change is
	// applied only once the listeners it gives are open (Live.SetListenerHook).
	listener bool
	// oomScore parameters are written to the process by the OOM score hook
	// (SetOOMScoreHook) once a CONFIG SET has applied them.
	oomScore bool
	// hidden parameters are left out of glob matches; CONFIG GET by exact name reports them.
	hidden   bool
	min, max int64    // bounds of kindInt and kindMemory
	clamp    [2]int64 // if clamp[1] != 0, a kindInt value is clamped into [clamp[0], clamp[1]]
	enum     []string // values of kindEnum
	def      string   // default, canonical form, used when initial is nil
	initial  func(c *Config) string
	// special parses a kindSpecial value given the current canonical value and returns the new
	// canonical value, or a Redis error reason.
	special func(v, cur string) (string, string)
	// tls, on the tls-* parameters, writes a canonical value into the [tls] settings: a
	// change is applied only once the settings it gives build (Live.SetTLSCheck).
	tls func(t *TLSConfig, v string, n int64)
	// apply publishes a new canonical value (n is its number for kindInt/kindMemory) to the
	// typed fields of Live. It runs with Live.mu held for writing.
	apply func(l *Live, v string, n int64)
}

const (
	intMax  = math.MaxInt32
	intMin  = math.MinInt32
	longMax = math.MaxInt64
	uintMax = math.MaxUint32
)

func yesno(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// redisLogLevel names a log.level value the way CONFIG GET loglevel reports it.
func redisLogLevel(level string) string {
	switch level {
	case "info":
		return "notice"
	case "warn":
		return "warning"
	}
	return level
}

// zapLevel maps a loglevel value (Redis's or ours) to a zap level.
func zapLevel(v string) zapcore.Level {
	switch v {
	case "debug":
		return zapcore.DebugLevel
	case "warning", "warn":
		return zapcore.WarnLevel
	case "error":
		return zapcore.ErrorLevel
	}
	return zapcore.InfoLevel // verbose, notice, info
}

// parseOctalPerm parses unixsocketperm as Redis does: permission bits in octal, 0 to 777.
func parseOctalPerm(v, _ string) (string, string) {
	n, err := strconv.ParseUint(v, 8, 32)
	if err != nil || n > 0o777 {
		return "", "argument must be an octal number between 0 and 777"
	}
	return strconv.FormatUint(n, 8), ""
}

// Parameters marked "stored only" are accepted for client compatibility; no effect yet: CONFIG
// SET validates and keeps them, CONFIG GET reports them, and nothing else reads them.
var params = [...]param{
	// Listeners and identity.
	{name: "bind", kind: kindSpecial, special: parseBindParam, listener: true, initial: func(c *Config) string { return canonicalBind(c.Server.Bind) }},
	{name: "port", kind: kindInt, listener: true, min: 0, max: 65535, initial: func(c *Config) string { return itoa(int64(c.Server.Port)) }},
	{name: "unixsocket", kind: kindString, immutable: true, initial: func(c *Config) string { return c.Server.UnixSocket }},
	{name: "unixsocketperm", kind: kindSpecial, immutable: true, special: parseOctalPerm,
		initial: func(c *Config) string { return strconv.FormatUint(uint64(c.Server.UnixSocketPerm), 8) }},
	{name: "databases", kind: kindInt, immutable: true, min: 1, max: intMax, initial: func(c *Config) string { return itoa(int64(c.Server.Databases)) }},
	{name: "cluster-enabled", kind: kindBool, immutable: true, initial: func(c *Config) string { return yesno(c.ClusterEnabled()) }},
	{name: "daemonize", kind: kindBool, immutable: true, def: "no"}, // the server never forks into the background
	// The primary a replica follows is changed with REPLICAOF (or replication.primary at start).
	{name: "replicaof", alias: "slaveof", kind: kindString, immutable: true, def: ""},
	// The local address a replica dials its primary from ("": the kernel's choice).
	{name: "bind-source-addr", kind: kindString, def: "",
		apply: func(l *Live, v string, _ int64) { l.bindSourceAddr.Store(&v) }},
	// What a replica authenticates to its primary with (replication.primaryauth and
	// primaryuser); a change applies from the link's next connection.
	{name: "masterauth", kind: kindString, initial: func(c *Config) string { return c.Replication.PrimaryAuth },
		apply: func(l *Live, v string, _ int64) { l.primaryAuth.Store(&v) }},
	{name: "masteruser", kind: kindString, initial: func(c *Config) string { return c.Replication.PrimaryUser },
		apply: func(l *Live, v string, _ int64) { l.primaryUser.Store(&v) }},
	// Who may run DEBUG (server.enable_debug_command); fixed at start, as in Redis.
	{name: "enable-debug-command", kind: kindEnum, immutable: true, enum: []string{DebugNo, DebugYes, DebugLocal},
		initial: func(c *Config) string { return c.Server.EnableDebugCommand }},
	// There is no MODULE command, and no protected parameter can change (see protected).
	{name: "enable-module-command", kind: kindEnum, immutable: true, enum: []string{DebugNo, DebugYes, DebugLocal}, def: DebugNo},
	{name: "enable-protected-configs", kind: kindEnum, immutable: true, enum: []string{DebugNo, DebugYes, DebugLocal}, def: DebugNo},

	// Clients.
	{name: "maxclients", kind: kindInt, min: 1, max: uintMax, initial: func(c *Config) string { return itoa(int64(c.Server.MaxClients)) },
		apply: func(l *Live, _ string, n int64) { l.maxClients.Store(n) }},
	{name: "timeout", kind: kindInt, min: 0, max: intMax, initial: func(c *Config) string { return itoa(int64(c.Server.Timeout)) },
		apply: func(l *Live, _ string, n int64) { l.timeout.Store(n * int64(time.Second)) }},
	{name: "requirepass", kind: kindString, initial: func(c *Config) string { return c.Server.RequirePass },
		apply: func(l *Live, v string, _ int64) { l.requirePass.Store(&v) }},
	{name: "protected-mode", kind: kindBool, initial: func(c *Config) string { return yesno(c.Server.ProtectedMode) },
		apply: func(l *Live, v string, _ int64) { l.protectedMode.Store(v == "yes") }},
	{name: "proto-max-bulk-len", kind: kindMemory, min: MinProtoMaxBulkLen, max: longMax, initial: func(c *Config) string { return itoa(c.Limits.ProtoMaxBulkLen) },
		apply: func(l *Live, _ string, n int64) { l.protoMaxBulk.Store(n) }},
	{name: "client-query-buffer-limit", kind: kindMemory, min: MinProtoMaxBulkLen, max: longMax, initial: func(c *Config) string { return itoa(c.Limits.ClientQueryBufferLimit) },
		apply: func(l *Live, _ string, n int64) { l.queryBufLimit.Store(n) }},
	// Per-class output buffer limits (obuf.go); the second is the normal class's hard limit
	// under its older name, kept in step with the first.
	{name: "client-output-buffer-limit", kind: kindSpecial, initial: func(c *Config) string { return c.Limits.ClientOutputBuffer.String() },
		special: parseObufLimits, apply: applyObufLimits},
	{name: "ruvio-client-output-buffer-limit", kind: kindMemory, min: 0, max: longMax, initial: func(c *Config) string { return itoa(c.Limits.ClientOutputBuffer.Normal.Hard) },
		apply: applyObufNormalHard},

	// Background work and logging.
	{name: "hz", kind: kindInt, min: 0, max: intMax, clamp: [2]int64{MinHz, MaxHz}, initial: func(c *Config) string { return itoa(int64(c.Keyspace.Hz)) },
		apply: func(l *Live, _ string, n int64) { l.hz.Store(n) }},
	{name: "active-expire-effort", kind: kindInt, min: 1, max: 10, initial: func(c *Config) string { return itoa(int64(c.Keyspace.ActiveExpireEffort)) },
		apply: func(l *Live, _ string, n int64) { l.effort.Store(n) }},
	{name: "ruvio-active-expire", kind: kindBool, initial: func(c *Config) string { return yesno(c.Keyspace.ActiveExpire) },
		apply: func(l *Live, v string, _ int64) { l.activeExpire.Store(v == "yes") }},
	{name: "loglevel", kind: kindEnum, enum: []string{"debug", "verbose", "notice", "warning", "info", "warn", "error"},
		initial: func(c *Config) string { return redisLogLevel(c.Log.Level) },
		apply:   func(l *Live, v string, _ int64) { l.level.SetLevel(zapLevel(v)) }},

	// Persistence.
	{name: "appendonly", kind: kindBool, fixed: whyAppendonly, initial: func(c *Config) string { return yesno(c.Persistence.WAL) }},
	{name: "appendfsync", kind: kindEnum, fixed: whyFsync, enum: []string{FsyncAlways, FsyncEverysec, FsyncNo}, initial: func(c *Config) string { return c.Persistence.Fsync },
		apply: func(l *Live, v string, _ int64) { l.fsync.Store(&v) }},
	{name: "ruvio-commit-delay-max-us", kind: kindInt, min: 0, max: MaxCommitDelayMaxUs, initial: func(c *Config) string { return itoa(c.Persistence.CommitDelayMaxUs) },
		apply: func(l *Live, _ string, n int64) { l.commitDelay.Store(n * int64(time.Microsecond)) }},
	{name: "dir", kind: kindString, protected: true, initial: func(c *Config) string {
		if abs, err := filepath.Abs(c.Persistence.Dir); err == nil {
			return abs
		}
		return c.Persistence.Dir
	}},
	{name: "appendfilename", kind: kindString, immutable: true, def: "appendonly.aof"}, // stored only
	// Snapshots are named by shard and sequence (shard-NNN-snap-SEQ.snap); no file takes this name.
	{name: "dbfilename", kind: kindString, protected: true, def: "dump.rdb"},
	// Save points add to persistence.snapshot_every / snapshot_wal_*: each shard snapshots
	// itself once one of them is met.
	{name: "save", kind: kindSpecial, initial: func(c *Config) string { s, _ := parseSave(c.Persistence.Save, ""); return s },
		special: parseSave, apply: func(l *Live, v string, _ int64) { p := ParseSavePoints(v); l.savePoints.Store(&p) }},
	{name: "repl-backlog-size", kind: kindMemory, min: 1, max: longMax, def: "1048576"}, // stored only
	// How Redis transfers and loads an RDB in a full sync, and its link timers: a full sync
	// here streams the shard's snapshot frames and then its WAL, and the link is watched by
	// its own heartbeat, so these are stored only, for the scripts and tests that set them.
	{name: "repl-backlog-ttl", kind: kindInt, min: 0, max: longMax, def: "3600"},                                                // stored only
	{name: "repl-diskless-sync", kind: kindBool, def: "yes"},                                                                    // stored only
	{name: "repl-diskless-sync-delay", kind: kindInt, min: 0, max: intMax, def: "5"},                                            // stored only
	{name: "repl-diskless-sync-max-replicas", kind: kindInt, min: 0, max: intMax, def: "0"},                                     // stored only
	{name: "repl-diskless-load", kind: kindEnum, enum: []string{"disabled", "on-empty-db", "swapdb"}, def: "disabled"},          // stored only
	{name: "repl-timeout", kind: kindInt, min: 1, max: intMax, def: "60"},                                                       // stored only
	{name: "repl-ping-replica-period", alias: "repl-ping-slave-period", kind: kindInt, min: 1, max: intMax, def: "10"},          // stored only
	{name: "repl-disable-tcp-nodelay", kind: kindBool, def: "no"},                                                               // stored only
	{name: "propagation-error-behavior", kind: kindEnum, enum: []string{"ignore", "panic", "panic-on-replicas"}, def: "ignore"}, // stored only
	// RESTORE always checks a payload whole before it changes anything (it is decoded into a
	// new value first), which is what "yes" asks of Redis; the setting is stored only.
	{name: "sanitize-dump-payload", kind: kindEnum, enum: []string{"no", "yes", "clients"}, def: "no"},     // stored only
	{name: "rdbcompression", kind: kindBool, def: "yes"},                                                   // stored only
	{name: "rdbchecksum", kind: kindBool, immutable: true, def: "yes"},                                     // stored only
	{name: "rdb-del-sync-files", kind: kindBool, def: "no"},                                                // stored only
	{name: "stop-writes-on-bgsave-error", kind: kindBool, def: "yes"},                                      // stored only
	{name: "activerehashing", kind: kindBool, def: "yes"},                                                  // stored only
	{name: "dynamic-hz", kind: kindBool, def: "yes"},                                                       // stored only
	{name: "loading-process-events-interval-bytes", kind: kindInt, min: 1024, max: intMax, def: "2097152"}, // stored only
	{name: "min-replicas-to-write", alias: "min-slaves-to-write", kind: kindInt, min: 0, max: intMax, def: "0",
		apply: func(l *Live, _ string, n int64) { l.minReplicas.Store(n) }},
	{name: "min-replicas-max-lag", alias: "min-slaves-max-lag", kind: kindInt, min: 0, max: intMax, def: "10",
		apply: func(l *Live, _ string, n int64) { l.minReplicasLag.Store(n) }},
	// Synchronous replication (replication.sync_replicas): a primary holds each reply until
	// this many replicas acknowledged the records it depends on; 0: asynchronous.
	{name: "sync-replicas", kind: kindInt, min: 0, max: MaxSyncReplicas, initial: func(c *Config) string { return itoa(int64(c.Replication.SyncReplicas)) },
		apply: func(l *Live, _ string, n int64) { l.syncReplicas.Store(n) }},
	// Sentinel reads replica-priority (INFO slave_priority; 0: never promoted) and
	// replica-announced; a replica announces replica-announce-ip/-port to its primary
	// at its next handshake (shard i announces port+i).
	{name: "replica-priority", alias: "slave-priority", kind: kindInt, min: 0, max: intMax, def: "100",
		apply: func(l *Live, _ string, n int64) { l.replicaPriority.Store(n) }},
	{name: "replica-announced", kind: kindBool, def: "yes",
		apply: func(l *Live, v string, _ int64) { l.replicaAnnounced.Store(v == "yes") }},
	{name: "replica-announce-ip", alias: "slave-announce-ip", kind: kindString, def: "",
		apply: func(l *Live, v string, _ int64) { l.announceIP.Store(&v) }},
	{name: "replica-announce-port", alias: "slave-announce-port", kind: kindInt, min: 0, max: 65535, def: "0",
		apply: func(l *Live, _ string, n int64) { l.announcePort.Store(n) }},
	// replica-read-only no lets a replica's clients write; their writes stay
	// in memory only, since a replica's log holds only its primary's records.
	{name: "replica-read-only", alias: "slave-read-only", kind: kindBool, def: "yes",
		apply: func(l *Live, v string, _ int64) { l.replicaWritable.Store(v == "no") }},
	{name: "replica-serve-stale-data", alias: "slave-serve-stale-data", kind: kindBool, def: "yes",
		apply: func(l *Live, v string, _ int64) { l.serveStale.Store(v == "yes") }},

	// Memory and eviction.
	{name: "maxmemory", kind: kindMemory, min: 0, max: longMax, initial: func(c *Config) string { return itoa(c.Memory.MaxMemory) },
		apply: func(l *Live, _ string, n int64) { l.maxMemory.Store(n) }},
	{name: "maxmemory-policy", kind: kindEnum, enum: MaxMemoryPolicies[:], initial: func(c *Config) string { return c.Memory.MaxMemoryPolicy },
		apply: func(l *Live, v string, _ int64) {
			l.maxMemoryPolicy.Store(&v)
			l.lfu.Store(strings.HasSuffix(v, "-lfu"))
		}},
	{name: "maxmemory-samples", kind: kindInt, min: 1, max: 64, initial: func(c *Config) string { return itoa(int64(c.Memory.MaxMemorySamples)) },
		apply: func(l *Live, _ string, n int64) { l.maxMemorySamples.Store(n) }},
	{name: "lfu-log-factor", kind: kindInt, min: 0, max: intMax, initial: func(c *Config) string { return itoa(int64(c.Memory.LFULogFactor)) },
		apply: func(l *Live, _ string, n int64) { l.lfuLogFactor.Store(n) }},
	{name: "lfu-decay-time", kind: kindInt, min: 0, max: intMax, initial: func(c *Config) string { return itoa(int64(c.Memory.LFUDecayTime)) },
		apply: func(l *Live, _ string, n int64) { l.lfuDecayTime.Store(n) }},
	{name: "maxmemory-clients", kind: kindSpecial, initial: func(c *Config) string { return canonicalMemoryOrPercent(c.Limits.MaxMemoryClients) },
		special: parseMemoryOrPercent, apply: func(l *Live, v string, _ int64) {
			m, _ := ParseMemoryOrPercent(v) // canonical: parsed already
			l.maxMemClients.Store(&m)
		}},
	{name: "lazyfree-lazy-eviction", kind: kindBool, def: "no"},
	{name: "lazyfree-lazy-expire", kind: kindBool, def: "no"},
	{name: "lazyfree-lazy-server-del", kind: kindBool, def: "no"},
	{name: "lazyfree-lazy-user-del", kind: kindBool, def: "no"},
	{name: "lazyfree-lazy-user-flush", kind: kindBool, def: "no"},
	{name: "activedefrag", kind: kindBool, def: "no"},

	// Encoding thresholds (stored only).
	{name: "list-max-listpack-size", alias: "list-max-ziplist-size", kind: kindInt, min: intMin, max: intMax, def: "-2",
		apply: func(l *Live, _ string, n int64) { l.listFill.Store(n) }},
	{name: "list-compress-depth", kind: kindInt, min: 0, max: intMax, def: "0"},
	{name: "set-max-intset-entries", kind: kindInt, min: 0, max: longMax, def: "512",
		apply: func(l *Live, _ string, n int64) { l.setMaxIntset.Store(n) }},
	{name: "set-max-listpack-entries", kind: kindInt, min: 0, max: longMax, def: "128"},
	{name: "set-max-listpack-value", kind: kindMemory, min: 0, max: longMax, def: "64"},
	{name: "hash-max-listpack-entries", alias: "hash-max-ziplist-entries", kind: kindInt, min: 0, max: longMax, def: "512",
		apply: func(l *Live, _ string, n int64) { l.hashMaxEntries.Store(n) }},
	{name: "hash-max-listpack-value", alias: "hash-max-ziplist-value", kind: kindMemory, min: 0, max: longMax, def: "64",
		apply: func(l *Live, _ string, n int64) { l.hashMaxValue.Store(n) }},
	{name: "zset-max-listpack-entries", alias: "zset-max-ziplist-entries", kind: kindInt, min: 0, max: longMax, def: "128",
		apply: func(l *Live, _ string, n int64) { l.zsetMaxEntries.Store(n) }},
	{name: "zset-max-listpack-value", alias: "zset-max-ziplist-value", kind: kindMemory, min: 0, max: longMax, def: "64",
		apply: func(l *Live, _ string, n int64) { l.zsetMaxValue.Store(n) }},
	{name: "stream-node-max-bytes", kind: kindMemory, min: 0, max: longMax, def: "4096",
		apply: func(l *Live, _ string, n int64) { l.streamNodeBytes.Store(n) }},
	{name: "stream-node-max-entries", kind: kindInt, min: 0, max: longMax, def: "100",
		apply: func(l *Live, _ string, n int64) { l.streamNodeEntries.Store(n) }},
	{name: "hll-sparse-max-bytes", kind: kindMemory, min: 0, max: longMax, def: "3000",
		apply: func(l *Live, _ string, n int64) { l.hllSparseMax.Store(n) }},

	// Introspection, notifications, scripting (stored only except notify-keyspace-events and slowlog-*).
	{name: "latency-tracking", kind: kindBool, def: "yes",
		apply: func(l *Live, v string, _ int64) { l.latencyTracking.Store(v == "yes") }},
	{name: "latency-tracking-info-percentiles", kind: kindSpecial, def: "50 99 99.9",
		special: parsePercentiles, apply: func(l *Live, v string, _ int64) { p := ParsePercentiles(v); l.latencyPercentiles.Store(&p) }},
	{name: "latency-monitor-threshold", kind: kindInt, min: 0, max: longMax, def: "0",
		apply: func(l *Live, _ string, n int64) { l.latencyThreshold.Store(n) }},
	{name: "slowlog-log-slower-than", kind: kindInt, min: -1, max: longMax, def: "10000",
		apply: func(l *Live, _ string, n int64) { l.slowlogSlowerThan.Store(n) }},
	{name: "slowlog-max-len", kind: kindInt, min: 0, max: longMax, def: "128",
		apply: func(l *Live, _ string, n int64) { l.slowlogMaxLen.Store(n) }},
	{name: "acllog-max-len", kind: kindInt, min: 0, max: longMax, def: "128",
		apply: func(l *Live, _ string, n int64) { l.aclLogMaxLen.Store(n) }},
	// The process's OOM-killer score adjustment; the hook (SetOOMScoreHook) writes it.
	{name: "oom-score-adj", kind: kindSpecial, def: "no", special: parseOOMScoreAdj, oomScore: true},
	{name: "oom-score-adj-values", kind: kindSpecial, def: "0 200 800", special: parseOOMScoreAdjValues, oomScore: true},
	// Whether new users (and "reset") start with every channel; users that exist keep theirs.
	{name: "acl-pubsub-default", kind: kindEnum, enum: []string{"allchannels", "resetchannels"}, def: "resetchannels",
		apply: func(l *Live, v string, _ int64) { l.aclPubsubAll.Store(v == "allchannels") }},
	// The ACL file (acl.file), fixed at start as in Redis.
	{name: "aclfile", kind: kindString, immutable: true, initial: func(c *Config) string { return c.ACL.File }},
	{name: "tracking-table-max-keys", kind: kindInt, min: 0, max: longMax, def: "1000000"},
	{name: "notify-keyspace-events", kind: kindSpecial, def: "", special: parseNotify,
		apply: func(l *Live, v string, _ int64) { l.notify.Store(&v); l.notifyMask.Store(NotifyMask(v)) }},
	{name: "busy-reply-threshold", alias: "lua-time-limit", kind: kindInt, min: 0, max: longMax, def: "5000"},
	// How much a Lua script or function may add to the Go heap before it is stopped with an OOM
	// error (capped by maxmemory when that is set); 0: no limit of its own.
	{name: "ruvio-lua-memory-limit", kind: kindMemory, min: 0, max: longMax, def: "1073741824"},

	// TLS (tls.go): the settings of the [tls] section. A change is applied only once the
	// settings it gives build; new connections then use them, open ones keep theirs.
	{name: "tls-port", kind: kindInt, listener: true, min: 0, max: 65535, initial: func(c *Config) string { return itoa(int64(c.TLS.Port)) },
		tls: func(t *TLSConfig, _ string, n int64) { t.Port = int(n) }},
	{name: "tls-cert-file", kind: kindString, initial: func(c *Config) string { return c.TLS.CertFile },
		tls: func(t *TLSConfig, v string, _ int64) { t.CertFile = v }},
	{name: "tls-key-file", kind: kindString, initial: func(c *Config) string { return c.TLS.KeyFile },
		tls: func(t *TLSConfig, v string, _ int64) { t.KeyFile = v }},
	{name: "tls-key-file-pass", kind: kindString, initial: func(c *Config) string { return c.TLS.KeyFilePass },
		tls: func(t *TLSConfig, v string, _ int64) { t.KeyFilePass = v }},
	{name: "tls-client-cert-file", kind: kindString, initial: func(c *Config) string { return c.TLS.ClientCertFile },
		tls: func(t *TLSConfig, v string, _ int64) { t.ClientCertFile = v }},
	{name: "tls-client-key-file", kind: kindString, initial: func(c *Config) string { return c.TLS.ClientKeyFile },
		tls: func(t *TLSConfig, v string, _ int64) { t.ClientKeyFile = v }},
	{name: "tls-client-key-file-pass", kind: kindString, initial: func(c *Config) string { return c.TLS.ClientKeyFilePass },
		tls: func(t *TLSConfig, v string, _ int64) { t.ClientKeyFilePass = v }},
	{name: "tls-dh-params-file", kind: kindString, initial: func(c *Config) string { return c.TLS.DHParamsFile },
		tls: func(t *TLSConfig, v string, _ int64) { t.DHParamsFile = v }},
	{name: "tls-ca-cert-file", kind: kindString, initial: func(c *Config) string { return c.TLS.CACertFile },
		tls: func(t *TLSConfig, v string, _ int64) { t.CACertFile = v }},
	{name: "tls-ca-cert-dir", kind: kindString, initial: func(c *Config) string { return c.TLS.CACertDir },
		tls: func(t *TLSConfig, v string, _ int64) { t.CACertDir = v }},
	{name: "tls-auth-clients", kind: kindEnum, enum: []string{TLSAuthYes, TLSAuthNo, TLSAuthOptional},
		initial: func(c *Config) string { return strings.ToLower(c.TLS.AuthClients) },
		tls:     func(t *TLSConfig, v string, _ int64) { t.AuthClients = v }},
	{name: "tls-auth-clients-user", kind: kindEnum, enum: []string{TLSUserOff, TLSUserCN},
		initial: func(c *Config) string { return strings.ToLower(c.TLS.AuthClientsUser) },
		tls:     func(t *TLSConfig, v string, _ int64) { t.AuthClientsUser = v }},
	{name: "tls-protocols", kind: kindString, initial: func(c *Config) string { return c.TLS.Protocols },
		tls: func(t *TLSConfig, v string, _ int64) { t.Protocols = v }},
	{name: "tls-ciphers", kind: kindString, initial: func(c *Config) string { return c.TLS.Ciphers },
		tls: func(t *TLSConfig, v string, _ int64) { t.Ciphers = v }},
	{name: "tls-ciphersuites", kind: kindString, initial: func(c *Config) string { return c.TLS.Ciphersuites },
		tls: func(t *TLSConfig, v string, _ int64) { t.Ciphersuites = v }},
	{name: "tls-prefer-server-ciphers", kind: kindBool, initial: func(c *Config) string { return yesno(c.TLS.PreferServerCiphers) },
		tls: func(t *TLSConfig, v string, _ int64) { t.PreferServerCiphers = v == "yes" }},
	{name: "tls-session-caching", kind: kindBool, initial: func(c *Config) string { return yesno(c.TLS.SessionCaching) },
		tls: func(t *TLSConfig, v string, _ int64) { t.SessionCaching = v == "yes" }},
	{name: "tls-session-cache-size", kind: kindInt, min: 0, max: intMax, initial: func(c *Config) string { return itoa(int64(c.TLS.SessionCacheSize)) },
		tls: func(t *TLSConfig, _ string, n int64) { t.SessionCacheSize = int(n) }},
	{name: "tls-session-cache-timeout", kind: kindInt, min: 0, max: intMax, initial: func(c *Config) string { return itoa(int64(c.TLS.SessionCacheTimeout)) },
		tls: func(t *TLSConfig, _ string, n int64) { t.SessionCacheTimeout = int(n) }},
	{name: "tls-replication", kind: kindBool, initial: func(c *Config) string { return yesno(c.TLS.Replication) },
		tls: func(t *TLSConfig, v string, _ int64) { t.Replication = v == "yes" }},
	{name: "tls-cluster", kind: kindBool, initial: func(c *Config) string { return yesno(c.TLS.Cluster) },
		tls: func(t *TLSConfig, v string, _ int64) { t.Cluster = v == "yes" }},
	{name: "ruvio-tls-handshake-timeout", kind: kindInt, min: 1, max: intMax, initial: func(c *Config) string { return itoa(int64(c.TLS.HandshakeTimeoutMs)) },
		tls: func(t *TLSConfig, _ string, n int64) { t.HandshakeTimeoutMs = int(n) }},

	// Redis's hidden testing knobs (stored only): left out of CONFIG GET patterns.
	{name: "key-load-delay", kind: kindInt, hidden: true, min: intMin, max: intMax, def: "0"},
	{name: "rdb-key-save-delay", kind: kindInt, hidden: true, min: intMin, max: intMax, def: "0"},
}

// Reasons CONFIG SET gives for refusing a new value of a fixed parameter. The ones for what
// cannot change while the server runs start with Redis's "can't set immutable config".
const (
	// whyPort and whyBind are Redis's reasons when the listeners cannot move: a port
	// (port, tls-port) that cannot be listened on, addresses that cannot be bound.
	whyPort       = "Unable to listen on this port. Check server logs."
	whyBind       = "Failed to bind to specified addresses."
	whyAppendonly = "can't set immutable config: the write-ahead log is turned on or off at start (persistence.wal in the configuration file)"
	whyFsync      = "can't set immutable config: the WAL fsync policy is chosen at start (persistence.fsync in the configuration file)"
	// whyTLS is Redis's reason when new TLS settings do not build; the log says why.
	whyTLS = "Unable to update TLS configuration. Check server logs."
)

// paramIndex maps every lower-case name and alias to its index in params. Built once, never
// written afterwards.
var paramIndex = func() map[string]int {
	m := make(map[string]int, 2*len(params))
	for i := range params {
		m[params[i].name] = i
		if params[i].alias != "" {
			m[params[i].alias] = i
		}
	}
	return m
}()

func lookupParam(name string) (int, bool) {
	i, ok := paramIndex[strings.ToLower(name)]
	return i, ok
}

// Live is the set of runtime parameters behind CONFIG GET and CONFIG SET. It is safe for
// concurrent use: Get and Set take a lock, the typed getters are single atomic loads.
type Live struct {
	mu   sync.RWMutex
	vals []string // guarded by mu; vals[i] is the canonical value of params[i]

	// Published copies of the parameters the server reads on its paths. Written only by
	// apply functions, under mu.
	maxClients    atomic.Int64
	aclLogMaxLen  atomic.Int64
	aclPubsubAll  atomic.Bool
	oomHook       func(mode string, values [3]int) error // under mu
	timeout       atomic.Int64                           // nanoseconds
	protoMaxBulk  atomic.Int64
	hllSparseMax  atomic.Int64
	queryBufLimit atomic.Int64
	obuf          atomic.Pointer[OutputBufferLimits]
	// hashMaxEntries and hashMaxValue are the hash encoding thresholds.
	hashMaxEntries atomic.Int64
	hashMaxValue   atomic.Int64
	// listFill is list-max-listpack-size.
	listFill      atomic.Int64
	hz            atomic.Int64
	effort        atomic.Int64
	protectedMode atomic.Bool
	activeExpire  atomic.Bool
	requirePass   atomic.Pointer[string]
	fsync         atomic.Pointer[string]
	commitDelay   atomic.Int64 // nanoseconds
	// Replication: min-replicas-to-write, min-replicas-max-lag (seconds)
	// and replica-serve-stale-data.
	minReplicas    atomic.Int64
	minReplicasLag atomic.Int64
	serveStale     atomic.Bool
	// replicaWritable is replica-read-only's negation, so that the zero value is the default.
	replicaWritable atomic.Bool
	// syncReplicas is sync-replicas.
	syncReplicas atomic.Int64
	// Sentinel-facing replica settings.
	replicaPriority  atomic.Int64
	replicaAnnounced atomic.Bool
	announceIP       atomic.Pointer[string]
	primaryAuth      atomic.Pointer[string]
	bindSourceAddr   atomic.Pointer[string]
	primaryUser      atomic.Pointer[string]
	announcePort     atomic.Int64
	notify           atomic.Pointer[string]
	notifyMask       atomic.Uint32
	savePoints       atomic.Pointer[[]SavePoint]
	level            zap.AtomicLevel

	maxMemory        atomic.Int64
	maxMemClients    atomic.Pointer[MemoryOrPercent]
	maxMemoryPolicy  atomic.Pointer[string]
	lfu              atomic.Bool
	maxMemorySamples atomic.Int64
	lfuLogFactor     atomic.Int64
	lfuDecayTime     atomic.Int64

	slowlogSlowerThan atomic.Int64 // microseconds; -1: off
	// latencyTracking is latency-tracking, latencyPercentiles
	// latency-tracking-info-percentiles, latencyThreshold
	// latency-monitor-threshold (milliseconds; 0: off).
	latencyTracking    atomic.Bool
	latencyPercentiles atomic.Pointer[[]float64]
	latencyThreshold   atomic.Int64
	slowlogMaxLen      atomic.Int64

	setMaxIntset   atomic.Int64
	zsetMaxEntries atomic.Int64
	zsetMaxValue   atomic.Int64

	streamNodeBytes   atomic.Int64
	streamNodeEntries atomic.Int64

	// tlsCheck, when set, is given the [tls] settings a CONFIG SET of tls-* parameters
	// would make; its error refuses the change. Guarded by mu.
	tlsCheck func(TLSConfig) error
	// listenHook, when set, is given the listener settings a CONFIG SET of bind, port or
	// tls-port would make: it moves the listeners there, or returns why it cannot and the
	// change is refused. Guarded by mu.
	listenHook func(Listeners) error

	databases  int        // immutable
	dir        string     // immutable, as configured
	debugCmd   string     // immutable: enable-debug-command
	configFile string     // immutable: the file read at start, "" for none
	fileFormat string     // immutable: Config.FileFormat
	startVals  []string   // immutable: vals once NewLive has built them
	rewriteMu  sync.Mutex // serialises CONFIG REWRITE
}

// NewLive returns the runtime parameters initialised from c, which should have passed
// [Config.Validate].
func NewLive(c Config) *Live {
	l := &Live{
		vals:       make([]string, len(params)),
		level:      zap.NewAtomicLevel(),
		databases:  c.Server.Databases,
		dir:        c.Persistence.Dir,
		debugCmd:   c.Server.EnableDebugCommand,
		configFile: c.File,
		fileFormat: c.FileFormat,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range params {
		p := &params[i]
		v := p.def
		if p.initial != nil {
			v = p.initial(&c)
		}
		var n int64
		if p.kind == kindInt || p.kind == kindMemory {
			n, _ = strconv.ParseInt(v, 10, 64)
			if p.clamp[1] != 0 {
				n = min(max(n, p.clamp[0]), p.clamp[1])
				v = itoa(n)
			}
		}
		l.vals[i] = v
		if p.apply != nil {
			p.apply(l, v, n)
		}
	}
	// Values from a Redis configuration file were parsed by the parameters' own rules.
	for _, rs := range c.Runtime {
		i, ok := lookupParam(rs.Name)
		if !ok {
			continue
		}
		v, n, reason := params[i].parse(rs.Value, l.vals[i])
		if reason != "" {
			continue
		}
		l.vals[i] = v
		if params[i].apply != nil {
			params[i].apply(l, v, n)
		}
	}
	l.startVals = append([]string(nil), l.vals...)
	return l
}

// Get returns the name/value pairs of the parameters matching pattern, as CONFIG GET does:
// pattern is a case-insensitive glob (*, ?, [...] and \ escapes) matched against every name
// and alias, and each matching name appears once, in table order. A pattern without glob
// characters is an exact, case-insensitive lookup and is answered under the name as asked
// (in lower case). Nothing matching gives an empty result.
func (l *Live) Get(pattern string) [][2]string {
	return l.GetMulti([]string{pattern})
}

// GetMulti is [Live.Get] for several patterns at once, as Redis 7's CONFIG GET with more than
// one argument: a name matched by several patterns appears once.
func (l *Live) GetMulti(patterns []string) [][2]string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out [][2]string
	seen := make(map[string]bool)
	add := func(name string, i int) {
		if !seen[name] {
			seen[name] = true
			out = append(out, [2]string{name, l.vals[i]})
		}
	}
	for _, pat := range patterns {
		if !strings.ContainsAny(pat, "*?[") {
			if i, ok := lookupParam(pat); ok {
				add(strings.ToLower(pat), i)
			}
			continue
		}
		for i := range params {
			if params[i].hidden {
				continue
			}
			if GlobMatch(pat, params[i].name) {
				add(params[i].name, i)
			}
			if params[i].alias != "" && GlobMatch(pat, params[i].alias) {
				add(params[i].alias, i)
			}
		}
	}
	return out
}

// Value returns the current value of one parameter by exact name or alias (any case).
func (l *Live) Value(name string) (string, bool) {
	i, ok := lookupParam(name)
	if !ok {
		return "", false
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.vals[i], true
}

// Set changes parameters as CONFIG SET does in Redis 7: pairs are (name, value); either every
// pair is applied or none is. The error is the reply text, with its "ERR " prefix, for the
// first problem in argument order: an unknown name, an immutable parameter, a parameter given
// twice (by name or alias), then a value that does not parse or is out of range.
func (l *Live) Set(pairs [][2]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	idx := make([]int, len(pairs))
	for k, pr := range pairs {
		i, ok := lookupParam(pr[0])
		if !ok {
			return errors.New("ERR Unknown option or number of arguments for CONFIG SET - '" + pr[0] + "'")
		}
		if params[i].immutable {
			return setFailed(pr[0], "can't set immutable config")
		}
		if params[i].protected {
			return setFailed(pr[0], "can't set protected config")
		}
		if why := params[i].fixed; why != "" {
			// A value that does not parse gets its parse error, below.
			if v, _, reason := params[i].parse(pr[1], l.vals[i]); reason == "" && v != l.vals[i] {
				return setFailed(pr[0], why)
			}
		}
		for _, j := range idx[:k] {
			if j == i {
				return setFailed(pr[0], "duplicate parameter")
			}
		}
		idx[k] = i
	}

	vals := make([]string, len(pairs))
	nums := make([]int64, len(pairs))
	for k, pr := range pairs {
		v, n, reason := params[idx[k]].parse(pr[1], l.vals[idx[k]])
		if reason != "" {
			return setFailed(pr[0], reason)
		}
		vals[k], nums[k] = v, n
	}
	tlsApplied, err := l.checkTLS(idx, vals, nums, pairs)
	if err != nil {
		return err
	}
	listenMoved, err := l.checkListeners(idx, vals, pairs)
	if err != nil {
		if tlsApplied {
			_ = l.tlsCheck(l.tlsLocked()) // back to the settings in force
		}
		return err
	}
	old := make([]string, len(idx))
	oom := ""
	for k, i := range idx {
		old[k] = l.vals[i]
		l.vals[i] = vals[k]
		if params[i].apply != nil {
			params[i].apply(l, vals[k], nums[k])
		}
		if params[i].oomScore {
			oom = pairs[k][0]
		}
	}
	if oom != "" && l.oomHook != nil {
		mode, values := l.oomScoreAdjLocked()
		if err := l.oomHook(mode, values); err != nil {
			for k, i := range idx {
				l.vals[i] = old[k]
				if params[i].apply != nil {
					_, n, _ := params[i].parse(old[k], old[k])
					params[i].apply(l, old[k], n)
				}
			}
			if tlsApplied {
				_ = l.tlsCheck(l.tlsLocked())
			}
			if listenMoved {
				_ = l.listenHook(l.listenersLocked()) // back where it listened
			}
			return setFailed(oom, "Failed to set current oom_score_adj. Check server logs.")
		}
	}
	return nil
}

// firstChanged returns the index in idx of the first pair that changes a
// parameter of the kind of, or -1; with mu held.
func (l *Live) firstChanged(idx []int, vals []string, of func(*param) bool) int {
	for k, i := range idx {
		if of(&params[i]) && vals[k] != l.vals[i] {
			return k
		}
	}
	return -1
}

// checkTLS hands the [tls] settings the pairs would make to the TLS check, when a pair
// changes one, and reports whether it applied them; with mu held.
func (l *Live) checkTLS(idx []int, vals []string, nums []int64, pairs [][2]string) (bool, error) {
	first := l.firstChanged(idx, vals, func(p *param) bool { return p.tls != nil })
	if first < 0 || l.tlsCheck == nil {
		return false, nil
	}
	t := l.tlsLocked()
	for k, i := range idx {
		if params[i].tls != nil {
			params[i].tls(&t, vals[k], nums[k])
		}
	}
	if err := l.tlsCheck(t); err != nil {
		return false, setFailed(pairs[first][0], whyTLS)
	}
	return true, nil
}

// Listeners are where the server listens: bind, port and tls-port.
type Listeners struct {
	// Bind is the bind list, in Redis's form (ParseBind); empty: no TCP listener.
	Bind string
	// Port is shard 0's port (shard i listens on Port+i); 0: none.
	Port int
	// TLSPort is shard 0's TLS port (shard i serves TLS on TLSPort+i); 0: none.
	TLSPort int
}

// Listeners returns the listener settings in force.
func (l *Live) Listeners() Listeners {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.listenersLocked()
}

func (l *Live) listenersLocked() Listeners {
	var ls Listeners
	for i := range params {
		switch params[i].name {
		case "bind":
			ls.Bind = l.vals[i]
		case "port":
			n, _ := strconv.Atoi(l.vals[i])
			ls.Port = n
		case "tls-port":
			n, _ := strconv.Atoi(l.vals[i])
			ls.TLSPort = n
		}
	}
	return ls
}

// SetListenerHook installs what a CONFIG SET of bind, port or tls-port must pass: hook gets
// the listener settings the change would make and moves the listeners there (existing
// connections stay), or returns why it cannot, and the change is refused with Redis's
// reason for the first listener parameter that changes.
func (l *Live) SetListenerHook(hook func(Listeners) error) {
	l.mu.Lock()
	l.listenHook = hook
	l.mu.Unlock()
}

// checkListeners hands the listener settings the pairs would make to the listener hook,
// when a pair changes one, and reports whether the listeners moved; with mu held.
func (l *Live) checkListeners(idx []int, vals []string, pairs [][2]string) (bool, error) {
	first := l.firstChanged(idx, vals, func(p *param) bool { return p.listener })
	if first < 0 || l.listenHook == nil {
		return false, nil
	}
	ls := l.listenersLocked()
	for k, i := range idx {
		switch params[i].name {
		case "bind":
			ls.Bind = vals[k]
		case "port":
			n, _ := strconv.Atoi(vals[k])
			ls.Port = n
		case "tls-port":
			n, _ := strconv.Atoi(vals[k])
			ls.TLSPort = n
		}
	}
	if err := l.listenHook(ls); err != nil {
		why := whyPort
		if params[idx[first]].name == "bind" {
			why = whyBind
		}
		return false, setFailed(pairs[first][0], why)
	}
	return true, nil
}

// TLS returns the current [tls] settings (CONFIG SET may have changed them since start).
func (l *Live) TLS() TLSConfig {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.tlsLocked()
}

func (l *Live) tlsLocked() TLSConfig {
	t := DefaultTLS()
	for i := range params {
		if params[i].tls != nil {
			n, _ := strconv.ParseInt(l.vals[i], 10, 64)
			params[i].tls(&t, l.vals[i], n)
		}
	}
	return t
}

// SetTLSCheck installs the check CONFIG SET of a tls-* parameter must pass: check gets the
// [tls] settings the change would make, builds them (reads the files) and applies them,
// or returns why it cannot, and the change is refused. It also runs for ReloadTLS.
func (l *Live) SetTLSCheck(check func(TLSConfig) error) {
	l.mu.Lock()
	l.tlsCheck = check
	l.mu.Unlock()
}

// ReloadTLS runs the TLS check on the current settings again (on SIGHUP): the certificate,
// key and CA files are read anew.
func (l *Live) ReloadTLS() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tlsCheck == nil {
		return nil
	}
	return l.tlsCheck(l.tlsLocked())
}

func setFailed(name, reason string) error {
	return errors.New("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason)
}

// parse turns a CONFIG SET argument into the canonical value, its number for numeric kinds,
// or a Redis error reason.
func (p *param) parse(v, cur string) (string, int64, string) {
	switch p.kind {
	case kindBool:
		switch {
		case strings.EqualFold(v, "yes"):
			return "yes", 0, ""
		case strings.EqualFold(v, "no"):
			return "no", 0, ""
		}
		return "", 0, "argument must be 'yes' or 'no'"
	case kindInt, kindMemory:
		var n int64
		if p.kind == kindInt {
			var ok bool
			if n, ok = parseStrictInt(v); !ok {
				return "", 0, "argument couldn't be parsed into an integer"
			}
		} else {
			var err error
			if n, err = ParseSize(v); err != nil {
				return "", 0, "argument must be a memory value"
			}
		}
		if n < p.min || n > p.max {
			return "", 0, "argument must be between " + itoa(p.min) + " and " + itoa(p.max) + " inclusive"
		}
		if p.clamp[1] != 0 {
			n = min(max(n, p.clamp[0]), p.clamp[1])
		}
		return itoa(n), n, ""
	case kindEnum:
		for _, e := range p.enum {
			if strings.EqualFold(v, e) {
				return e, 0, ""
			}
		}
		return "", 0, "argument(s) must be one of the following: " + strings.Join(p.enum, ", ")
	case kindSpecial:
		s, reason := p.special(v, cur)
		return s, 0, reason
	}
	return v, 0, ""
}

// parseStrictInt parses a decimal integer the way Redis's string2ll does: an optional minus
// sign, no plus sign, no spaces and no leading zeros.
func parseStrictInt(s string) (int64, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || d[0] == '+' || (d[0] == '0' && (len(d) > 1 || len(s) > 1)) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseSave validates a "save" value: pairs of seconds (≥ 1) and changes (≥ 0), or "".
func parseSave(v, _ string) (string, string) {
	f := strings.Fields(v)
	if len(f)%2 != 0 {
		return "", "Invalid save parameters"
	}
	for j, s := range f {
		n, ok := parseStrictInt(s)
		if !ok || (j%2 == 0 && n < 1) || (j%2 == 1 && n < 0) {
			return "", "Invalid save parameters"
		}
	}
	return strings.Join(f, " "), ""
}

// parseOOMScoreAdj parses oom-score-adj: no, yes, relative (the same as yes, reported as
// yes, as Redis does) or absolute.
func parseOOMScoreAdj(v, _ string) (string, string) {
	switch strings.ToLower(v) {
	case "no":
		return "no", ""
	case "yes", "relative":
		return "yes", ""
	case "absolute":
		return "absolute", ""
	}
	return "", "argument(s) must be one of the following: no, yes, relative, absolute"
}

// parseOOMScoreAdjValues parses oom-score-adj-values: three integers from -2000 to 2000, the
// scores of a primary, a replica and a background child.
func parseOOMScoreAdjValues(v, _ string) (string, string) {
	f := strings.Fields(v)
	if len(f) != 3 {
		return "", "wrong number of arguments"
	}
	for i, s := range f {
		n, ok := parseStrictInt(s)
		if !ok || n < -2000 || n > 2000 {
			return "", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
		}
		f[i] = itoa(n)
	}
	return strings.Join(f, " "), ""
}

// OOMScoreAdj is oom-score-adj ("no", "yes" or "absolute") and oom-score-adj-values.
func (l *Live) OOMScoreAdj() (mode string, values [3]int) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.oomScoreAdjLocked()
}

func (l *Live) oomScoreAdjLocked() (mode string, values [3]int) {
	i, _ := lookupParam("oom-score-adj")
	j, _ := lookupParam("oom-score-adj-values")
	for k, s := range strings.Fields(l.vals[j]) {
		if k < 3 {
			values[k], _ = strconv.Atoi(s)
		}
	}
	return l.vals[i], values
}

// SetOOMScoreHook installs what writes the process's OOM score (the server's, once it runs):
// CONFIG SET of oom-score-adj or oom-score-adj-values calls it with the new settings, and
// refuses the change, keeping the old settings, when it fails.
func (l *Live) SetOOMScoreHook(hook func(mode string, values [3]int) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.oomHook = hook
}

// parsePercentiles checks latency-tracking-info-percentiles: numbers in
// [0, 100] separated by spaces, possibly none, as Redis accepts. The
// canonical form writes each in its shortest form ("50.0" is "50"), as
// Redis's CONFIG GET does.
func parsePercentiles(v, _ string) (string, string) {
	f := strings.Fields(v)
	for i, s := range f {
		p, err := strconv.ParseFloat(s, 64)
		if err != nil || p < 0 || p > 100 || p != p {
			return "", "latency-tracking-info-percentiles should be a number between 0 and 100"
		}
		f[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	return strings.Join(f, " "), ""
}

// ParsePercentiles reads a canonical latency-tracking-info-percentiles
// value (as parsePercentiles returns it).
func ParsePercentiles(v string) []float64 {
	f := strings.Fields(v)
	out := make([]float64, 0, len(f))
	for _, s := range f {
		if p, err := strconv.ParseFloat(s, 64); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// SavePoint is one of Redis's save points: a snapshot is due once Seconds have passed since
// the last one and at least Changes writes were made since.
type SavePoint struct{ Seconds, Changes int64 }

// ParseSavePoints reads a canonical save value (as parseSave returns it).
func ParseSavePoints(v string) []SavePoint {
	f := strings.Fields(v)
	out := make([]SavePoint, 0, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		s, _ := strconv.ParseInt(f[i], 10, 64)
		c, _ := strconv.ParseInt(f[i+1], 10, 64)
		out = append(out, SavePoint{Seconds: s, Changes: c})
	}
	return out
}

// SavePoints is the save parameter's points; nil when there are none.
func (l *Live) SavePoints() []SavePoint {
	if p := l.savePoints.Load(); p != nil {
		return *p
	}
	return nil
}

// canonicalMemoryOrPercent is the canonical form of a maxmemory-clients value held in a
// Config ("0" when it is empty or does not parse: validation refuses the latter).
func canonicalMemoryOrPercent(v string) string {
	m, err := ParseMemoryOrPercent(v)
	if err != nil {
		return "0"
	}
	return m.String()
}

// parseMemoryOrPercent validates a value that is either a memory value, printed in bytes, or
// a percentage of maxmemory ("10%"), as maxmemory-clients takes.
func parseMemoryOrPercent(v, _ string) (string, string) {
	m, err := ParseMemoryOrPercent(v)
	if err != nil {
		return "", err.Error()
	}
	return m.String(), ""
}

// Keyspace-event classes: the letters "A" stands for, in the order Redis prints them.
const notifyAll = "g$lshzxetd"

// parseNotify validates a notify-keyspace-events value and returns it in Redis's canonical
// form ("A" for all classes, then K, E, m, n).
func parseNotify(v, _ string) (string, string) {
	set := make(map[byte]bool)
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == 'A':
			for j := 0; j < len(notifyAll); j++ {
				set[notifyAll[j]] = true
			}
		case strings.IndexByte(notifyAll+"KEmn", c) >= 0:
			set[c] = true
		default:
			return "", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
	}
	var b strings.Builder
	all := true
	for j := 0; j < len(notifyAll); j++ {
		all = all && set[notifyAll[j]]
	}
	if all {
		b.WriteByte('A')
	} else {
		for j := 0; j < len(notifyAll); j++ {
			if set[notifyAll[j]] {
				b.WriteByte(notifyAll[j])
			}
		}
	}
	for _, c := range []byte("KEmn") {
		if set[c] {
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// MaxClients is maxclients: the most client connections accepted at once.
func (l *Live) MaxClients() int { return int(l.maxClients.Load()) }

// Timeout is timeout: how long a client may stay idle; 0 means forever.
func (l *Live) Timeout() time.Duration { return time.Duration(l.timeout.Load()) }

// HashMaxListpack returns hash-max-listpack-entries and
// hash-max-listpack-value, the hash encoding thresholds.
func (l *Live) HashMaxListpack() (entries, value int64) {
	return l.hashMaxEntries.Load(), l.hashMaxValue.Load()
}

// ListMaxListpackSize returns list-max-listpack-size, the fill of a list's
// nodes (negative: a byte limit, positive: entries per node).
func (l *Live) ListMaxListpackSize() int64 { return l.listFill.Load() }

// ProtoMaxBulkLen is proto-max-bulk-len: the largest bulk string a request may carry.
func (l *Live) ProtoMaxBulkLen() int64 { return l.protoMaxBulk.Load() }

// HLLSparseMaxBytes is hll-sparse-max-bytes: the size past which a sparse HyperLogLog
// turns dense.
func (l *Live) HLLSparseMaxBytes() int64 { return l.hllSparseMax.Load() }

// ClientQueryBufferLimit is client-query-buffer-limit: the most unparsed input per client.
func (l *Live) ClientQueryBufferLimit() int64 { return l.queryBufLimit.Load() }

// ACLLogMaxLen is acllog-max-len: the most entries ACL LOG keeps.
func (l *Live) ACLLogMaxLen() int64 { return l.aclLogMaxLen.Load() }

// ACLPubsubAllChannels is acl-pubsub-default = allchannels: new users and "reset" start with
// every channel.
func (l *Live) ACLPubsubAllChannels() bool { return l.aclPubsubAll.Load() }

// RequirePass is requirepass: the default user's password, "" for none.
func (l *Live) RequirePass() string { return *l.requirePass.Load() }

// ProtectedMode is protected-mode.
func (l *Live) ProtectedMode() bool { return l.protectedMode.Load() }

// ActiveExpire is ruvio-active-expire: whether shards delete expired keys in the background.
func (l *Live) ActiveExpire() bool { return l.activeExpire.Load() }

// Hz is hz, clamped to 1..500 as Redis does.
func (l *Live) Hz() int { return int(l.hz.Load()) }

// ActiveExpireEffort is active-expire-effort, 1..10.
func (l *Live) ActiveExpireEffort() int { return int(l.effort.Load()) }

// SlowlogSlowerThan is slowlog-log-slower-than in microseconds: commands
// that take at least this long are logged; -1 logs none.
func (l *Live) SlowlogSlowerThan() int64 { return l.slowlogSlowerThan.Load() }

// LatencyTracking is latency-tracking: per-command latency histograms are
// kept (LATENCY HISTOGRAM, INFO latencystats, the metrics endpoint).
func (l *Live) LatencyTracking() bool { return l.latencyTracking.Load() }

// LatencyPercentiles is latency-tracking-info-percentiles, the percentiles
// INFO latencystats reports, each in [0, 100]. The slice is shared: do not
// modify it.
func (l *Live) LatencyPercentiles() []float64 {
	if p := l.latencyPercentiles.Load(); p != nil {
		return *p
	}
	return nil
}

// LatencyMonitorThreshold is latency-monitor-threshold in milliseconds:
// events that last at least this long are recorded (LATENCY); 0 is off.
func (l *Live) LatencyMonitorThreshold() int64 { return l.latencyThreshold.Load() }

// SlowlogMaxLen is slowlog-max-len, the most entries the slow log keeps.
func (l *Live) SlowlogMaxLen() int64 { return l.slowlogMaxLen.Load() }

// MaxMemoryClients is the client eviction limit in bytes that maxmemory-clients gives (a
// percentage of maxmemory is taken of its current value); 0 means no client eviction. As in
// Redis, a limit under 128 KiB is raised to 128 KiB, so that a bad setting cannot leave the
// server unreachable.
func (l *Live) MaxMemoryClients() int64 {
	p := l.maxMemClients.Load()
	if p == nil {
		return 0
	}
	n := p.Of(l.maxMemory.Load())
	if n <= 0 {
		return 0
	}
	return max(n, MinMaxMemoryClients)
}

// MinMaxMemoryClients is the smallest client eviction limit in force: a lower non-zero
// maxmemory-clients counts as this.
const MinMaxMemoryClients = 128 * 1024

// MaxMemory is maxmemory in bytes for the whole process; 0 means no limit.
func (l *Live) MaxMemory() int64 { return l.maxMemory.Load() }

// MaxMemoryPolicy is maxmemory-policy, one of [MaxMemoryPolicies].
func (l *Live) MaxMemoryPolicy() string { return *l.maxMemoryPolicy.Load() }

// LFU reports whether maxmemory-policy is one of the LFU policies, under which keys count
// their accesses.
func (l *Live) LFU() bool { return l.lfu.Load() }

// MaxMemorySamples is maxmemory-samples, 1..64.
func (l *Live) MaxMemorySamples() int { return int(l.maxMemorySamples.Load()) }

// LFULogFactor is lfu-log-factor.
func (l *Live) LFULogFactor() int { return int(l.lfuLogFactor.Load()) }

// LFUDecayTime is lfu-decay-time in minutes.
func (l *Live) LFUDecayTime() int { return int(l.lfuDecayTime.Load()) }

// SetMaxIntsetEntries is set-max-intset-entries.
func (l *Live) SetMaxIntsetEntries() int64 { return l.setMaxIntset.Load() }

// ZSetMaxListpackEntries is zset-max-listpack-entries.
func (l *Live) ZSetMaxListpackEntries() int64 { return l.zsetMaxEntries.Load() }

// StreamNodeMax returns stream-node-max-bytes and stream-node-max-entries.
func (l *Live) StreamNodeMax() (bytes, entries int64) {
	return l.streamNodeBytes.Load(), l.streamNodeEntries.Load()
}

// ZSetMaxListpackValue is zset-max-listpack-value.
func (l *Live) ZSetMaxListpackValue() int64 { return l.zsetMaxValue.Load() }

// Databases is databases (immutable).
func (l *Live) Databases() int { return l.databases }

// CommitDelayMax is ruvio-commit-delay-max-us: the longest a WAL group under fsync
// "always" may wait for writers about to arrive (0: never).
func (l *Live) CommitDelayMax() time.Duration { return time.Duration(l.commitDelay.Load()) }

// MinReplicasToWrite is min-replicas-to-write: writes are refused while
// fewer replicas than this acknowledged within MinReplicasMaxLag seconds.
func (l *Live) MinReplicasToWrite() int64 { return l.minReplicas.Load() }

// MinReplicasMaxLag is min-replicas-max-lag in seconds.
func (l *Live) MinReplicasMaxLag() int64 { return l.minReplicasLag.Load() }

// SyncReplicas is sync-replicas: the replicas that must acknowledge the
// records a primary's reply depends on before it goes out; 0: none.
func (l *Live) SyncReplicas() int { return int(l.syncReplicas.Load()) }

// ReplicaPriority is replica-priority: Sentinel promotes the replica with
// the lowest non-zero value and never one with 0.
func (l *Live) ReplicaPriority() int64 { return l.replicaPriority.Load() }

// ReplicaAnnounced is replica-announced: "no" hides this replica from
// Sentinel's list of its primary's replicas.
func (l *Live) ReplicaAnnounced() bool { return l.replicaAnnounced.Load() }

// ReplicaAnnounce is replica-announce-ip and replica-announce-port: the
// address a replica gives its primary at the handshake ("" and 0: the
// connection's own host and the listening port).
func (l *Live) ReplicaAnnounce() (ip string, port int) {
	if p := l.announceIP.Load(); p != nil {
		ip = *p
	}
	return ip, int(l.announcePort.Load())
}

// BindSourceAddr is bind-source-addr: the local address outgoing replication
// connections are made from ("" lets the kernel choose).
func (l *Live) BindSourceAddr() string {
	if p := l.bindSourceAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// PrimaryCredentials is masteruser and masterauth: the user ("" for the
// default one) and password ("" for none) a replica authenticates with.
func (l *Live) PrimaryCredentials() (user, pass string) {
	if p := l.primaryUser.Load(); p != nil {
		user = *p
	}
	if p := l.primaryAuth.Load(); p != nil {
		pass = *p
	}
	return user, pass
}

// ReplicaServeStaleData is replica-serve-stale-data.
func (l *Live) ReplicaServeStaleData() bool { return l.serveStale.Load() }

// ReplicaReadOnly is replica-read-only: whether a replica refuses its
// clients' writes.
func (l *Live) ReplicaReadOnly() bool { return !l.replicaWritable.Load() }

// Fsync is appendfsync: "always", "everysec" or "no".
func (l *Live) Fsync() string { return *l.fsync.Load() }

// Dir is the persistence directory as configured (immutable). CONFIG GET dir reports its
// absolute form.
func (l *Live) Dir() string { return l.dir }

// EnableDebugCommand is enable-debug-command (immutable): "no", "yes" or "local".
func (l *Live) EnableDebugCommand() string { return l.debugCmd }

// ConfigFile is the absolute path of the configuration file read at start, "" when the server
// runs on built-in defaults (INFO config_file).
func (l *Live) ConfigFile() string { return l.configFile }

// ConfigFileFormat is [FormatRedis] when the configuration file is a Redis one, "" for a
// TOML file or none (CONFIG REWRITE rewrites only the former).
func (l *Live) ConfigFileFormat() string { return l.fileFormat }

// NotifyKeyspaceEvents is notify-keyspace-events in Redis's canonical form, "" when off.
func (l *Live) NotifyKeyspaceEvents() string { return *l.notify.Load() }

// NotifyFlags is notify-keyspace-events as a bit set of [NotifyMask]: zero when no event
// is published, so that the write path pays one load.
func (l *Live) NotifyFlags() uint32 { return l.notifyMask.Load() }

// Keyspace-event bits of [NotifyMask], one per flag letter.
const (
	NotifyKeyspace uint32 = 1 << iota // K
	NotifyKeyevent                    // E
	NotifyGeneric                     // g
	NotifyString                      // $
	NotifyList                        // l
	NotifySet                         // s
	NotifyHash                        // h
	NotifyZset                        // z
	NotifyExpired                     // x
	NotifyEvicted                     // e
	NotifyStream                      // t
	NotifyKeyMiss                     // m
	NotifyModule                      // d
	NotifyNew                         // n
)

// NotifyMask turns a notify-keyspace-events value into its bit set. Without K or E
// nothing is published, and the mask is zero.
func NotifyMask(v string) uint32 {
	const letters = "KEg$lshzxetmdn"
	var m uint32
	for i := 0; i < len(v); i++ {
		if v[i] == 'A' {
			for _, c := range []byte(notifyAll) {
				m |= 1 << strings.IndexByte(letters, c)
			}
			continue
		}
		if j := strings.IndexByte(letters, v[i]); j >= 0 {
			m |= 1 << j
		}
	}
	if m&(NotifyKeyspace|NotifyKeyevent) == 0 || m&^(NotifyKeyspace|NotifyKeyevent) == 0 {
		return 0
	}
	return m
}

// LogLevel is the level that loglevel controls; pass it to [NewLoggerAt].
func (l *Live) LogLevel() zap.AtomicLevel { return l.level }
