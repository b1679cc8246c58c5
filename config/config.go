package config

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Byte-size units, for defaults and limits.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// Values of server.enable_debug_command (and CONFIG GET enable-debug-command).
const (
	DebugNo    = "no"
	DebugYes   = "yes"
	DebugLocal = "local"
)

// Fsync policies accepted by persistence.fsync and CONFIG SET appendfsync.
const (
	FsyncAlways   = "always"
	FsyncEverysec = "everysec"
	FsyncNo       = "no"
)

// Config is the whole start-up configuration. The zero value is not useful; start from
// [Default] or [Load].
type Config struct {
	// File is the absolute path of the file the configuration was read from, "" when it is
	// the built-in defaults. It is not a key of the file: the loader sets it (INFO config_file).
	File string `toml:"-"`
	// FileFormat is [FormatRedis] when File is a Redis configuration file, "" for TOML or none.
	FileFormat string `toml:"-"`
	// Runtime are start values of runtime parameters the TOML file has no key for, given by
	// a Redis configuration file; [NewLive] applies them.
	Runtime []RuntimeSetting `toml:"-"`

	Server      ServerConfig      `toml:"server"`      // [server]
	Limits      LimitsConfig      `toml:"limits"`      // [limits]
	Log         LogConfig         `toml:"log"`         // [log]
	Persistence PersistenceConfig `toml:"persistence"` // [persistence]
	Keyspace    KeyspaceConfig    `toml:"keyspace"`    // [keyspace]
	Memory      MemoryConfig      `toml:"-"`           // [memory], decoded through fileMemory
	Cluster     ClusterConfig     `toml:"cluster"`     // [cluster]
	ACL         ACLConfig         `toml:"acl"`         // [acl] and [[acl.user]]
	Replication ReplicationConfig `toml:"replication"` // [replication]
	Metrics     MetricsConfig     `toml:"metrics"`     // [metrics]
	TLS         TLSConfig         `toml:"tls"`         // [tls]
}

// MetricsConfig is the [metrics] section: the Prometheus endpoint.
type MetricsConfig struct {
	// Listen is the "host:port" the HTTP endpoint serving GET /metrics (the Prometheus
	// text format) listens on; "" (the default) serves none.
	Listen string `toml:"listen"`
}

// ReplicationConfig is the [replication] section: the primary a replica follows.
type ReplicationConfig struct {
	// Primary is the "host:port" of the primary's shard 0 this process follows as a
	// replica, shard i following the primary's port+i; "" is a primary ("").
	Primary string `toml:"primary"`
	// PrimaryAuth is the password the replica authenticates with (Redis's masterauth).
	PrimaryAuth string `toml:"primaryauth"`
	// PrimaryUser is the user the replica authenticates as; "" is the default user.
	PrimaryUser string `toml:"primaryuser"`
	// SyncReplicas, 0..MaxSyncReplicas, makes a primary shard hold every reply until at
	// least this many replicas acknowledged, as durable, the shard's log up to the records
	// the reply depends on; 0 replicates asynchronously (0). CONFIG SET sync-replicas
	// changes it at run time.
	SyncReplicas int `toml:"sync_replicas"`
	// SyncTimeoutMs is how long, in milliseconds, a reply held for SyncReplicas waits for
	// the acknowledgements; past it the reply is dropped and its connection closed, since
	// the outcome is unknown (5000).
	SyncTimeoutMs int `toml:"sync_timeout_ms"`
}

// ServerConfig is the [server] section: listeners, shards and client admission.
type ServerConfig struct {
	// Bind is the addresses every shard listens on, in Redis's form: separated by spaces,
	// "*" for every IPv4 address, "::*" for every IPv6 one, a leading "-" for an address
	// skipped when the host lacks it; "" listens on no TCP address ("127.0.0.1"). CONFIG
	// SET bind changes it at run time.
	Bind string `toml:"bind"`
	// Port is shard 0's port; shard i listens on Port+i (6379). CONFIG SET port changes it
	// at run time.
	Port int `toml:"port"`
	// Shards is the number of shards, 1..64 (1). With one shard the server looks like a
	// standalone Redis; with more it looks like a Redis Cluster and exposes database 0 only.
	Shards int `toml:"shards"`
	// Reactors is the number of network event loops shared by every port when
	// ReactorPerShard is false; 0 means runtime.NumCPU() (0). A file that sets
	// it above 0 without setting reactor_per_shard asks for shared reactors.
	Reactors int `toml:"reactors"`
	// ReactorPerShard gives each shard's port a reactor of its own instead of
	// Reactors loops shared by every port (true). Commands that arrive on
	// different connections of one shard then run in the order the reactor
	// read them, as on a single-threaded server; Reactors must be 0. With
	// false only each connection's own commands are kept in order.
	ReactorPerShard bool `toml:"reactor_per_shard"`
	// InlineExecution lets a reactor run a lone command itself when the
	// connection's shard is idle and nothing waits in its ring, taking the
	// shard's ownership token for the duration, instead of handing it
	// through the ring (false). The shard's data is still touched by one
	// goroutine at a time. It spares the hand-offs and the reactor's
	// wake-up of an unpipelined request; pipelined batches, and writes to
	// a shard that keeps a log unless InlineWrites allows them, still go
	// through the ring. On by default: the reply then leaves
	// inside the reactor's turn, as a single-threaded server's, and the
	// reactors read connections edge-triggered, which keeps the order across
	// connections of a reactor per shard (docs/architecture.md).
	InlineExecution bool `toml:"inline_execution"`
	// InlineWrites lets inline execution take lone writes too on a shard
	// that keeps a log, when the log is not synced before each reply
	// (fsync is not "always") and the process runs on more than one CPU
	// (GOMAXPROCS > 1); the write then pays a log write of its own instead
	// of sharing the loop's, and spares waking the loop's thread (true).
	// Without a log, writes run inline with inline_execution alone.
	InlineWrites bool `toml:"inline_writes"`
	// DirectReplies has the goroutine that ran a batch write its replies
	// straight into the client's socket when nothing for that connection
	// waits at its reactor, instead of handing every reply to the reactor
	// (false), which costs a task and a wake-up of the reactor per
	// delivery. Each connection's order, back-pressure and output
	// accounting are kept either way; TLS connections always write from
	// their own loop. On by default: the reactors read connections
	// edge-triggered, so a reply that leaves before the reactor polls again
	// keeps the order across connections that a reactor per shard keeps
	// (docs/architecture.md, "Direct replies").
	DirectReplies bool `toml:"direct_replies"`
	// Databases is the number of logical databases per shard, 1..1024 (16). With more than
	// one shard it stays as configured but only database 0 is reachable.
	Databases int `toml:"databases"`
	// MaxClients is the maximum number of simultaneous client connections (10000).
	MaxClients int `toml:"max_clients"`
	// Timeout closes a client idle for this many seconds; 0 never does (0).
	Timeout int `toml:"timeout"`
	// ProtectedMode refuses non-loopback clients while no password is set (true).
	ProtectedMode bool `toml:"protected_mode"`
	// RequirePass is the default user's password; empty means no AUTH needed ("").
	RequirePass string `toml:"requirepass"`
	// EnableDebugCommand says who may run DEBUG: "no" nobody, "yes" every client, "local"
	// clients connected over loopback ("local"), as Redis 7's enable-debug-command.
	EnableDebugCommand string `toml:"enable_debug_command"`
	// ShutdownTimeout bounds a graceful shutdown, in seconds, 1..3600 (10). A shard still
	// busy when it expires (for example in DEBUG SLEEP) is left as a crash would leave it.
	ShutdownTimeout int `toml:"shutdown_timeout"`
	// PidFile, when set, is a file the process writes its pid into at start and removes at
	// exit, as Redis's pidfile; failing to write it is logged, not fatal, as in Redis ("").
	PidFile string `toml:"pidfile"`
	// UnixSocket, when set, is the path of a Unix domain socket the server also listens on,
	// as Redis's unixsocket; its clients are shard 0's (""). A path that exists and is not a
	// socket is refused at start.
	UnixSocket string `toml:"unixsocket"`
	// UnixSocketPerm is the socket's permission bits, as Redis's unixsocketperm; write it in
	// octal (0o700). 0 leaves them to the process's umask (0).
	UnixSocketPerm uint32 `toml:"unixsocketperm"`
}

// LimitsConfig is the [limits] section: per-client and protocol limits, in bytes.
type LimitsConfig struct {
	// ClientOutputBuffer are the output buffer limits per client class, Redis's
	// client-output-buffer-limit ([DefaultOutputBufferLimits]). The file's older key
	// client_output_buffer_limit is the normal class's hard limit.
	ClientOutputBuffer OutputBufferLimits `toml:"client_output_buffer"`
	// ClientQueryBufferLimit is the most unparsed input kept per client, ≥ 1 MiB (1 GiB).
	ClientQueryBufferLimit int64 `toml:"client_query_buffer_limit"`
	// ProtoMaxBulkLen is the largest bulk string a request may carry, ≥ 1 MiB (512 MiB).
	ProtoMaxBulkLen int64 `toml:"proto_max_bulk_len"`
	// MaxMultibulkLen is the most arguments one request may carry (1048576).
	MaxMultibulkLen int `toml:"max_multibulk_len"`
	// MaxReplySize bounds the replies one batch of commands may build for a client whose
	// output class has no hard limit (hard 0, as Redis's normal class): past it the
	// client is disconnected as at a hard limit. ≥ 1 MiB (1 GiB).
	MaxReplySize int64 `toml:"max_reply_size"`
	// MaxMemoryClients is Redis 7's maxmemory-clients: when the memory of all normal and
	// Pub/Sub clients together (query buffers, arguments not yet run, MULTI queues, watched
	// keys, subscriptions, tracking prefixes, output buffers) reaches it, the largest clients
	// are disconnected until it is below. A size ("64mb") or a percentage of
	// memory.maxmemory ("5%"); 0, the default, turns client eviction off.
	// Held in its canonical text ([MemoryOrPercent.String]); empty means 0.
	MaxMemoryClients string `toml:"maxmemory_clients"`
}

// LogConfig is the [log] section.
type LogConfig struct {
	// Level is one of debug, info, warn, error ("info").
	Level string `toml:"level"`
	// Format is "console" (human-readable), "json", or "redis" (redis-server's line format,
	// to stdout when File is empty, as redis-server writes; the default when the
	// configuration is a Redis file) ("console").
	Format string `toml:"format"`
	// File, when set, is a file the log is appended to instead of stderr, as Redis's
	// logfile ("").
	File string `toml:"file"`
}

// PersistenceConfig is the [persistence] section: write-ahead log and snapshots.
type PersistenceConfig struct {
	// Dir holds every shard's WAL segments, snapshots and the node-id file ("data").
	Dir string `toml:"dir"`
	// WAL turns the write-ahead log on (true).
	WAL bool `toml:"wal"`
	// Fsync is the WAL sync policy: always, everysec or no ("everysec").
	Fsync string `toml:"fsync"`
	// SegmentSize is the size at which a WAL segment is closed and a new one started (64 MiB).
	SegmentSize int64 `toml:"segment_size"`
	// CommitDelayMaxUs bounds, in microseconds, how long a WAL group under fsync = "always"
	// may be held back for writers about to arrive, so one fsync covers them all; the
	// server waits only when recently active writers are expected and never delays a lone
	// client. 0 turns the delay off (100; CONFIG SET ruvio-commit-delay-max-us).
	CommitDelayMaxUs int64 `toml:"commit_delay_max_us"`
	// SnapshotEvery takes a snapshot every this many seconds; 0 turns it off (3600).
	SnapshotEvery int `toml:"snapshot_every"`
	// SnapshotWALBytes is the floor of the size trigger: a snapshot is taken once the WAL
	// bytes written since the last one reach max(SnapshotWALBytes, SnapshotWALPercent% of the
	// last snapshot's size); 0 turns the size trigger off (256 MiB).
	SnapshotWALBytes int64 `toml:"snapshot_wal_bytes"`
	// SnapshotWALPercent makes the size trigger proportional to the data set, as Redis's
	// auto-aof-rewrite-percentage: the log must grow by this percentage of the last
	// snapshot's size before the next one; 0 makes SnapshotWALBytes a fixed interval (100).
	SnapshotWALPercent int `toml:"snapshot_wal_percent"`
	// Save holds Redis's save points, "seconds changes" pairs: a snapshot is also taken once
	// seconds have passed since the last one and at least changes writes were logged since
	// (any pair suffices); "" turns them off (""; CONFIG SET save).
	Save string `toml:"save"`
	// SnapshotOnShutdown takes a snapshot during a graceful shutdown (true).
	SnapshotOnShutdown bool `toml:"snapshot_on_shutdown"`
}

// KeyspaceConfig is the [keyspace] section.
type KeyspaceConfig struct {
	// ActiveExpire turns on the background deletion of expired keys (true).
	ActiveExpire bool `toml:"active_expire"`
	// ActiveExpireEffort is Redis's active-expire-effort, 1..10 (1).
	ActiveExpireEffort int `toml:"active_expire_effort"`
	// Hz is how many times a second each shard runs its background tasks, 1..500 (10).
	Hz int `toml:"hz"`
	// ChangesCapacity is the number of entries in each shard's CHANGES buffer (65536).
	ChangesCapacity int `toml:"changes_capacity"`
}

// MemoryConfig is the [memory] section: the memory limit and how keys are evicted to keep it.
type MemoryConfig struct {
	// MaxMemory is Redis's maxmemory for the whole process, split evenly across shards;
	// 0 means no limit (0).
	MaxMemory int64 `toml:"maxmemory"`
	// MaxMemoryPolicy is Redis's maxmemory-policy ("noeviction").
	MaxMemoryPolicy string `toml:"maxmemory_policy"`
	// MaxMemorySamples is Redis's maxmemory-samples, 1..64 (5).
	MaxMemorySamples int `toml:"maxmemory_samples"`
	// LFULogFactor is Redis's lfu-log-factor (10).
	LFULogFactor int `toml:"lfu_log_factor"`
	// LFUDecayTime is Redis's lfu-decay-time, in minutes (1).
	LFUDecayTime int `toml:"lfu_decay_time"`
}

// MaxMemoryPolicies are the values of memory.maxmemory_policy, as Redis names them.
var MaxMemoryPolicies = [...]string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}

// ClusterConfig is the [cluster] section.
type ClusterConfig struct {
	// Enabled makes the shards answer as the nodes of a Redis Cluster: the CLUSTER
	// commands, READONLY and READWRITE work and INFO says cluster_enabled:1. Off, they
	// answer "This instance has cluster support disabled", as a standalone Redis does.
	// [Auto] (the default) is on with more than one shard and off with one. Turning it off
	// with several shards is refused: each shard owns only part of the slots, and only
	// cluster clients can find the others.
	Enabled Switch `toml:"enabled"`

	// The keys below make the process a member of a cluster across hosts, whose
	// topology and failover a control plane inside the members decides; Name and one of
	// Members or Join turn it on ("" and empty lists: one host, as above).

	// Name is this member's name, unique in the cluster and kept across restarts.
	Name string `toml:"name"`
	// Announce is the host clients and the other members reach this process's ports at,
	// in MOVED replies and CLUSTER SLOTS, SHARDS and NODES ("": server.bind's first
	// address; on one host, when that is a wildcard such as 0.0.0.0, each client is told
	// the address its own connection reached). It applies on one host too; across hosts
	// it is required when server.bind is a wildcard.
	Announce string `toml:"announce"`
	// ControlPort is the control plane's port (consensus and the members' requests), on
	// server.bind; 0 is server.port + 10000, the cluster bus port Redis reports.
	ControlPort int `toml:"control_port"`
	// Members are the members the cluster is formed of, "name=host:control_port", the
	// same list on every one of them; the first three (five with five or more) vote on
	// the topology, the others follow it.
	Members []string `toml:"members"`
	// Join are control addresses ("host:control_port") of a running cluster that a
	// member not in Members joins through, as a replica.
	Join []string `toml:"join"`
	// Replicas is the number of replicas of each group when the cluster is formed (1).
	Replicas int `toml:"replicas"`
	// NodeTimeoutMs is how long a primary may be silent before its group fails over,
	// and the length of a primary's write lease, in milliseconds (2000).
	NodeTimeoutMs int `toml:"node_timeout_ms"`
}

// ClusterSeed is one entry of cluster.members.
type ClusterSeed struct {
	Name    string // the member's name
	Control string // its control address, "host:port"
}

// ParseClusterMember reads a cluster.members entry, "name=host:port".
func ParseClusterMember(s string) (ClusterSeed, error) {
	name, addr, ok := strings.Cut(s, "=")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return ClusterSeed{}, fmt.Errorf("%q is not name=host:port", s)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || port == "" {
		return ClusterSeed{}, fmt.Errorf("%q: %q is not host:port", s, addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return ClusterSeed{}, fmt.Errorf("%q: port %q is not 1..65535", s, port)
	}
	return ClusterSeed{Name: name, Control: addr}, nil
}

// ControlPortOrDefault is cluster.control_port, or server.port + 10000 when 0.
func (c *Config) ControlPortOrDefault() int {
	if c.Cluster.ControlPort != 0 {
		return c.Cluster.ControlPort
	}
	return c.Server.Port + 10000
}

// AnnounceHost is the host this process names its shards by in the cluster topology:
// cluster.announce, else server.bind's first address (ServerConfig.Host).
func (c *Config) AnnounceHost() string {
	if c.Cluster.Announce != "" {
		return c.Cluster.Announce
	}
	return c.Server.Host()
}

// AcrossHosts reports whether the process is a member of a cluster across hosts.
func (c *ClusterConfig) AcrossHosts() bool {
	return c.Name != "" && (len(c.Members) > 0 || len(c.Join) > 0)
}

// ACLConfig is the [acl] section: the users, declared here or kept in an ACL file.
type ACLConfig struct {
	// File is an ACL file in Redis's format ("user <name> <rules…>" lines), read at start and
	// by ACL LOAD, written by ACL SAVE; "" means none (ACL SAVE and ACL LOAD then fail, as in
	// Redis). A file that does not exist yet starts the server with the default user only.
	// Users cannot be declared both here and in the file.
	File string `toml:"file"`
	// Users are the [[acl.user]] tables, applied in order at start. A user named "default"
	// replaces the default user's rules; server.requirepass, when set, still sets its
	// password.
	Users []ACLUser `toml:"user"`
}

// ACLUser is one [[acl.user]] table. Rules are Redis's ACL SETUSER rules, checked when the
// server starts: an invalid one stops start-up with an error naming the user and the rule.
type ACLUser struct {
	// Name is the user name (no spaces).
	Name string `toml:"name"`
	// Passwords are "sha256:<64 hex>" (the hash ACL GETUSER shows) or "plain:<text>".
	Passwords []string `toml:"passwords"`
	// NoPass lets any password authenticate the user (false).
	NoPass bool `toml:"nopass"`
	// Commands are command rules, e.g. "+@all -@dangerous +idem" ("": no commands).
	Commands string `toml:"commands"`
	// Keys are key patterns: "~pattern", "%R~pattern", "%W~pattern", "%RW~pattern", "allkeys".
	Keys []string `toml:"keys"`
	// Channels are Pub/Sub channel patterns: "&pattern" or "allchannels".
	Channels []string `toml:"channels"`
	// Enabled lets the user authenticate ("on"); nil, when the key is absent, means true.
	Enabled *bool `toml:"enabled"`
}

// IsEnabled resolves Enabled: true unless set to false.
func (u ACLUser) IsEnabled() bool { return u.Enabled == nil || *u.Enabled }

// Switch is a setting that is on, off, or decided from other settings ([Auto]). In TOML
// it is true, false or "auto".
type Switch int8

// Switch values.
const (
	Auto Switch = iota
	On
	Off
)

// UnmarshalTOML accepts true, false or "auto".
func (s *Switch) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		*s = Off
		if v {
			*s = On
		}
		return nil
	case string:
		if v == "auto" {
			*s = Auto
			return nil
		}
	}
	return fmt.Errorf("%v is not true, false or \"auto\"", v)
}

// String is "auto", "true" or "false", as the TOML file spells it.
func (s Switch) String() string {
	switch s {
	case On:
		return "true"
	case Off:
		return "false"
	}
	return "auto"
}

// ClusterEnabled resolves cluster.enabled: on when set so, or with more than one shard
// when left to auto.
func (c *Config) ClusterEnabled() bool {
	if c.Cluster.AcrossHosts() {
		return true
	}
	switch c.Cluster.Enabled {
	case On:
		return true
	case Off:
		return false
	}
	return c.Server.Shards > 1
}

// Default returns the built-in configuration: one shard on 127.0.0.1:6379 with 16 databases,
// a WAL in "data" synced every second.
func Default() Config {
	return Config{
		Server: ServerConfig{
			Bind:            "127.0.0.1",
			Port:            6379,
			Shards:          1,
			Reactors:        0,
			ReactorPerShard: true,
			InlineExecution: true,
			InlineWrites:    true,
			DirectReplies:   true,
			Databases:       16,
			MaxClients:      10000,
			Timeout:         0,
			ProtectedMode:   true,
			RequirePass:     "",

			EnableDebugCommand: DebugLocal,
			ShutdownTimeout:    10,
		},
		Limits: LimitsConfig{
			ClientOutputBuffer:     DefaultOutputBufferLimits(),
			ClientQueryBufferLimit: 1 * GiB,
			ProtoMaxBulkLen:        512 * MiB,
			MaxMultibulkLen:        1024 * 1024,
			MaxReplySize:           1 * GiB,
			MaxMemoryClients:       "0",
		},
		Log: LogConfig{
			Level:  "info",
			Format: "console",
		},
		Persistence: PersistenceConfig{
			Dir:                "data",
			WAL:                true,
			Fsync:              FsyncEverysec,
			SegmentSize:        64 * MiB,
			CommitDelayMaxUs:   DefaultCommitDelayMaxUs,
			SnapshotEvery:      3600,
			SnapshotWALBytes:   256 * MiB,
			SnapshotWALPercent: 100,
			SnapshotOnShutdown: true,
		},
		Keyspace: KeyspaceConfig{
			ActiveExpire:       true,
			ActiveExpireEffort: 1,
			Hz:                 10,
			ChangesCapacity:    65536,
		},
		Memory: MemoryConfig{
			MaxMemory:        0,
			MaxMemoryPolicy:  "noeviction",
			MaxMemorySamples: 5,
			LFULogFactor:     10,
			LFUDecayTime:     1,
		},
		Cluster: ClusterConfig{
			Members:       []string{},
			Join:          []string{},
			Replicas:      1,
			NodeTimeoutMs: 2000,
		},
		Replication: ReplicationConfig{
			SyncTimeoutMs: DefaultSyncTimeoutMs,
		},
		TLS: DefaultTLS(),
	}
}

// fileLimits and filePersistence decode the sections that hold byte sizes: each field
// points at the matching field of the Config being filled, and the size fields go through
// Size so that "64mb" is accepted. The other sections decode straight into Config.
type fileLimits struct {
	ClientOutputBufferLimit *Size                `toml:"client_output_buffer_limit"` // older name of client_output_buffer.normal.hard
	ClientOutputBuffer      fileOutputBuffer     `toml:"client_output_buffer"`
	ClientQueryBufferLimit  *Size                `toml:"client_query_buffer_limit"`
	ProtoMaxBulkLen         *Size                `toml:"proto_max_bulk_len"`
	MaxMultibulkLen         *int                 `toml:"max_multibulk_len"`
	MaxReplySize            *Size                `toml:"max_reply_size"`
	MaxMemoryClients        *MemoryOrPercentText `toml:"maxmemory_clients"`
}

type filePersistence struct {
	Dir                *string `toml:"dir"`
	WAL                *bool   `toml:"wal"`
	Fsync              *string `toml:"fsync"`
	SegmentSize        *Size   `toml:"segment_size"`
	CommitDelayMaxUs   *int64  `toml:"commit_delay_max_us"`
	SnapshotEvery      *int    `toml:"snapshot_every"`
	SnapshotWALBytes   *Size   `toml:"snapshot_wal_bytes"`
	SnapshotWALPercent *int    `toml:"snapshot_wal_percent"`
	Save               *string `toml:"save"`
	SnapshotOnShutdown *bool   `toml:"snapshot_on_shutdown"`
}

type fileMemory struct {
	MaxMemory        *Size   `toml:"maxmemory"`
	MaxMemoryPolicy  *string `toml:"maxmemory_policy"`
	MaxMemorySamples *int    `toml:"maxmemory_samples"`
	LFULogFactor     *int    `toml:"lfu_log_factor"`
	LFUDecayTime     *int    `toml:"lfu_decay_time"`
}

type fileConfig struct {
	Memory      fileMemory         `toml:"memory"`
	Server      *ServerConfig      `toml:"server"`
	Limits      fileLimits         `toml:"limits"`
	Log         *LogConfig         `toml:"log"`
	Persistence filePersistence    `toml:"persistence"`
	Keyspace    *KeyspaceConfig    `toml:"keyspace"`
	Cluster     *ClusterConfig     `toml:"cluster"`
	ACL         *ACLConfig         `toml:"acl"`
	Replication *ReplicationConfig `toml:"replication"`
	Metrics     *MetricsConfig     `toml:"metrics"`
	TLS         *TLSConfig         `toml:"tls"`
}

func newFileConfig(c *Config) *fileConfig {
	return &fileConfig{
		Server: &c.Server,
		Limits: fileLimits{
			ClientOutputBufferLimit: (*Size)(&c.Limits.ClientOutputBuffer.Normal.Hard),
			ClientOutputBuffer:      newFileOutputBuffer(&c.Limits.ClientOutputBuffer),
			ClientQueryBufferLimit:  (*Size)(&c.Limits.ClientQueryBufferLimit),
			ProtoMaxBulkLen:         (*Size)(&c.Limits.ProtoMaxBulkLen),
			MaxMultibulkLen:         &c.Limits.MaxMultibulkLen,
			MaxReplySize:            (*Size)(&c.Limits.MaxReplySize),
			MaxMemoryClients:        (*MemoryOrPercentText)(&c.Limits.MaxMemoryClients),
		},
		Log: &c.Log,
		Persistence: filePersistence{
			Dir:                &c.Persistence.Dir,
			WAL:                &c.Persistence.WAL,
			Fsync:              &c.Persistence.Fsync,
			SegmentSize:        (*Size)(&c.Persistence.SegmentSize),
			CommitDelayMaxUs:   &c.Persistence.CommitDelayMaxUs,
			SnapshotEvery:      &c.Persistence.SnapshotEvery,
			SnapshotWALBytes:   (*Size)(&c.Persistence.SnapshotWALBytes),
			SnapshotWALPercent: &c.Persistence.SnapshotWALPercent,
			Save:               &c.Persistence.Save,
			SnapshotOnShutdown: &c.Persistence.SnapshotOnShutdown,
		},
		Keyspace: &c.Keyspace,
		Memory: fileMemory{
			MaxMemory:        (*Size)(&c.Memory.MaxMemory),
			MaxMemoryPolicy:  &c.Memory.MaxMemoryPolicy,
			MaxMemorySamples: &c.Memory.MaxMemorySamples,
			LFULogFactor:     &c.Memory.LFULogFactor,
			LFUDecayTime:     &c.Memory.LFUDecayTime,
		},
		Cluster:     &c.Cluster,
		ACL:         &c.ACL,
		Replication: &c.Replication,
		Metrics:     &c.Metrics,
		TLS:         &c.TLS,
	}
}

// Load reads the TOML file at path over [Default] and returns the result, with File set to
// path's absolute form. Keys the file
// does not set keep their defaults. A syntax error, a value of the wrong type or an unknown
// key is an error naming the file and the key. Load does not call [Config.Validate]: apply
// any overrides first, then validate.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := parse(path, string(data))
	if err != nil {
		return c, err
	}
	if c.File, err = filepath.Abs(path); err != nil {
		c.File = path
	}
	return c, nil
}

// Parse is [Load] for TOML text already in memory; name is used in error messages.
func Parse(name string, data []byte) (Config, error) {
	return parse(name, string(data))
}

// decodeErrRE picks line, key and message out of the toml package's decoding errors.
var decodeErrRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

func parse(name, data string) (Config, error) {
	c := Default()
	md, err := toml.Decode(data, newFileConfig(&c))
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			if pe.LastKey != "" {
				return Config{}, fmt.Errorf("config: %s: line %d: %s: %s", name, pe.Position.Line, pe.LastKey, pe.Message)
			}
			return Config{}, fmt.Errorf("config: %s: line %d: %s", name, pe.Position.Line, pe.Message)
		}
		// Type mismatches come as plain errors: `toml: line N (last key "k"): message`.
		if m := decodeErrRE.FindStringSubmatch(err.Error()); m != nil {
			return Config{}, fmt.Errorf("config: %s: line %s: %s: %s", name, m[1], m[2], m[3])
		}
		return Config{}, fmt.Errorf("config: %s: %s", name, strings.TrimPrefix(err.Error(), "toml: "))
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		word := "key"
		if len(keys) > 1 {
			word = "keys"
		}
		return Config{}, fmt.Errorf("config: %s: unknown %s %s", name, word, strings.Join(keys, ", "))
	}
	if msg := checkLegacyOutputBuffer(md.IsDefined); msg != "" {
		return Config{}, fmt.Errorf("config: %s: %s", name, msg)
	}
	if c.Server.Reactors > 0 && !md.IsDefined("server", "reactor_per_shard") {
		// A count of shared reactors is a choice of shared reactors: files
		// written before a reactor per shard became the default keep meaning
		// what they meant.
		c.Server.ReactorPerShard = false
	}
	return c, nil
}
