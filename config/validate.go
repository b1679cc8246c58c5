package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
)

// Bounds enforced by Validate.
const (
	MaxShards      = 64
	MaxDatabases   = 1024
	MaxReactors    = 1024
	MinSegmentSize = 4 * KiB
	MaxSegmentSize = 4 * GiB
	// DefaultCommitDelayMaxUs is persistence.commit_delay_max_us: well under one fsync of
	// a local SSD (0.2-0.3 ms measured), so a delay never costs a whole sync.
	DefaultCommitDelayMaxUs = 100
	// MaxCommitDelayMaxUs caps persistence.commit_delay_max_us at 100 ms.
	MaxCommitDelayMaxUs = 100_000
	MaxChanges          = 1 << 24
	MinHz               = 1
	MaxHz               = 500
	// MinProtoMaxBulkLen is also the minimum of client_query_buffer_limit, as in Redis.
	MinProtoMaxBulkLen = 1 * MiB
	// MaxSyncReplicas caps replication.sync_replicas (and CONFIG SET sync-replicas).
	MaxSyncReplicas = 16
	// DefaultSyncTimeoutMs is replication.sync_timeout_ms.
	DefaultSyncTimeoutMs = 5000
)

// logLevels are the accepted values of log.level, in increasing severity.
var logLevels = [...]string{"debug", "info", "warn", "error"}

// logFormats are the accepted values of log.format.
var logFormats = [...]string{"console", "json", "redis"}

// debugSettings are the accepted values of server.enable_debug_command.
var debugSettings = [...]string{DebugNo, DebugYes, DebugLocal}

// fsyncPolicies are the accepted values of persistence.fsync.
var fsyncPolicies = [...]string{FsyncAlways, FsyncEverysec, FsyncNo}

// Validate checks every value and returns nil or one error per bad value (joined with
// errors.Join), each of the form "config: <section.key>: <problem>".
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config: %s: %s", key, fmt.Sprintf(format, args...)))
	}
	inRange := func(key string, v, lo, hi int64) bool {
		if v < lo || v > hi {
			bad(key, "%d is out of range %d..%d", v, lo, hi)
			return false
		}
		return true
	}
	oneOf := func(key, v string, allowed []string) {
		for _, a := range allowed {
			if v == a {
				return
			}
		}
		bad(key, "%q is not one of %s", v, strings.Join(allowed, ", "))
	}

	s := &c.Server
	if !validBind(s.Bind) {
		bad("server.bind", "%q is not a list of IP addresses or host names", s.Bind)
	}
	portMin := int64(1)
	if c.TLS.Port > 0 {
		portMin = 0 // TLS only
	}
	portOK := inRange("server.port", int64(s.Port), portMin, 65535)
	c.TLS.validate(bad, s.Shards)
	if s.Port > 0 && c.TLS.Port > 0 && s.Port < c.TLS.Port+s.Shards && c.TLS.Port < s.Port+s.Shards {
		bad("tls.port", "ports %d..%d overlap server.port's %d..%d", c.TLS.Port, c.TLS.Port+s.Shards-1, s.Port, s.Port+s.Shards-1)
	}
	shardsOK := inRange("server.shards", int64(s.Shards), 1, MaxShards)
	if portOK && shardsOK && s.Port+s.Shards-1 > 65535 {
		bad("server.port", "%d with %d shards needs ports %d..%d, beyond 65535",
			s.Port, s.Shards, s.Port, s.Port+s.Shards-1)
	}
	if inRange("server.reactors", int64(s.Reactors), 0, MaxReactors) && s.ReactorPerShard && s.Reactors != 0 {
		bad("server.reactors", "must be 0 with server.reactor_per_shard = true (each shard's port has its own reactor), not %d; set server.reactor_per_shard = false for %d shared reactors", s.Reactors, s.Reactors)
	}
	inRange("server.databases", int64(s.Databases), 1, MaxDatabases)
	inRange("server.max_clients", int64(s.MaxClients), 1, math.MaxInt32)
	inRange("server.timeout", int64(s.Timeout), 0, math.MaxInt32)
	if strings.ContainsAny(s.RequirePass, "\r\n\x00") {
		bad("server.requirepass", "must not contain CR, LF or NUL")
	}
	oneOf("server.enable_debug_command", s.EnableDebugCommand, debugSettings[:])
	if c.ACL.File != "" && len(c.ACL.Users) > 0 {
		bad("acl.file", "users are declared both in [[acl.user]] and in the ACL file %q; keep them in one place", c.ACL.File)
	}
	for i, u := range c.ACL.Users {
		if u.Name == "" {
			bad(fmt.Sprintf("acl.user[%d].name", i), "is empty")
		}
	}
	inRange("server.shutdown_timeout", int64(s.ShutdownTimeout), 1, 3600)
	inRange("server.unixsocketperm", int64(s.UnixSocketPerm), 0, 0o777)

	l := &c.Limits
	l.ClientOutputBuffer.validate(inRange)
	inRange("limits.client_query_buffer_limit", l.ClientQueryBufferLimit, MinProtoMaxBulkLen, math.MaxInt64)
	inRange("limits.proto_max_bulk_len", l.ProtoMaxBulkLen, MinProtoMaxBulkLen, math.MaxInt64)
	inRange("limits.max_reply_size", l.MaxReplySize, MinProtoMaxBulkLen, math.MaxInt64)
	inRange("limits.max_multibulk_len", int64(l.MaxMultibulkLen), 1, math.MaxInt32)
	if l.MaxMemoryClients != "" {
		if _, err := ParseMemoryOrPercent(l.MaxMemoryClients); err != nil {
			bad("limits.maxmemory_clients", "%s", err)
		}
	}

	oneOf("log.level", c.Log.Level, logLevels[:])
	oneOf("log.format", c.Log.Format, logFormats[:])

	p := &c.Persistence
	if p.Dir == "" {
		bad("persistence.dir", "must not be empty")
	} else if strings.ContainsRune(p.Dir, 0) {
		bad("persistence.dir", "%q contains NUL", p.Dir)
	}
	oneOf("persistence.fsync", p.Fsync, fsyncPolicies[:])
	inRange("persistence.segment_size", p.SegmentSize, MinSegmentSize, MaxSegmentSize)
	inRange("persistence.commit_delay_max_us", p.CommitDelayMaxUs, 0, MaxCommitDelayMaxUs)
	inRange("persistence.snapshot_every", int64(p.SnapshotEvery), 0, math.MaxInt32)
	inRange("persistence.snapshot_wal_bytes", p.SnapshotWALBytes, 0, math.MaxInt64)
	inRange("persistence.snapshot_wal_percent", int64(p.SnapshotWALPercent), 0, 10000)
	if _, reason := parseSave(p.Save, ""); reason != "" {
		bad("persistence.save", "%q: %s (pairs of seconds ≥ 1 and changes ≥ 0, or \"\")", p.Save, reason)
	}

	k := &c.Keyspace
	inRange("keyspace.active_expire_effort", int64(k.ActiveExpireEffort), 1, 10)
	inRange("keyspace.hz", int64(k.Hz), MinHz, MaxHz)
	inRange("keyspace.changes_capacity", int64(k.ChangesCapacity), 1, MaxChanges)

	m := &c.Memory
	inRange("memory.maxmemory", m.MaxMemory, 0, math.MaxInt64)
	oneOf("memory.maxmemory_policy", m.MaxMemoryPolicy, MaxMemoryPolicies[:])
	inRange("memory.maxmemory_samples", int64(m.MaxMemorySamples), 1, 64)
	inRange("memory.lfu_log_factor", int64(m.LFULogFactor), 0, math.MaxInt32)
	inRange("memory.lfu_decay_time", int64(m.LFUDecayTime), 0, math.MaxInt32)
	if c.Cluster.Enabled == Off && c.Server.Shards > 1 {
		bad("cluster.enabled", "false needs server.shards = 1: with %d shards each owns part of the slots and only cluster clients find the others", c.Server.Shards)
	}

	if cl := &c.Cluster; cl.AcrossHosts() {
		if cl.Enabled == Off {
			bad("cluster.enabled", "false cannot be a member of a cluster across hosts (cluster.name and cluster.members or cluster.join are set)")
		}
		if !c.Persistence.WAL {
			bad("cluster.name", "a member of a cluster across hosts needs the write-ahead log (persistence.wal = true): its replicas follow it")
		}
		if c.Replication.Primary != "" {
			bad("replication.primary", "is decided by the control plane in a cluster across hosts; leave it empty")
		}
		if ip := net.ParseIP(c.AnnounceHost()); ip != nil && ip.IsUnspecified() {
			bad("cluster.announce", "is needed when server.bind is a wildcard address (%s): the other members and their clients must be told where this member is", ip)
		}
		inRange("cluster.replicas", int64(cl.Replicas), 0, 15)
		inRange("cluster.node_timeout_ms", int64(cl.NodeTimeoutMs), 200, 600000)
		if p := c.ControlPortOrDefault(); p < 1 || p > 65535 {
			bad("cluster.control_port", "%d is not 1..65535 (0 means server.port + 10000)", p)
		}
		seen := map[string]bool{}
		for _, m := range cl.Members {
			sd, err := ParseClusterMember(m)
			if err != nil {
				bad("cluster.members", "%v", err)
				continue
			}
			if seen[sd.Name] {
				bad("cluster.members", "%s is named twice", sd.Name)
			}
			seen[sd.Name] = true
		}
		if len(cl.Members) > 0 && !seen[cl.Name] && len(cl.Join) == 0 {
			bad("cluster.members", "does not name this member (%s); a member that is not one of them joins through cluster.join", cl.Name)
		}
		for _, j := range cl.Join {
			if _, _, err := net.SplitHostPort(j); err != nil {
				bad("cluster.join", "%q is not host:port", j)
			}
		}
	} else if cl.Name != "" || len(cl.Members) > 0 || len(cl.Join) > 0 {
		bad("cluster.name", "a member of a cluster across hosts needs cluster.name and one of cluster.members or cluster.join")
	}

	// sync_replicas: the replicas each reply of a primary waits for (0: none).
	inRange("replication.sync_replicas", int64(c.Replication.SyncReplicas), 0, MaxSyncReplicas)
	inRange("replication.sync_timeout_ms", int64(c.Replication.SyncTimeoutMs), 1, math.MaxInt32)
	if p := c.Replication.Primary; p != "" {
		if _, port, err := net.SplitHostPort(p); err != nil || port == "" {
			bad("replication.primary", "%q is not host:port", p)
		} else if !c.Persistence.WAL {
			bad("replication.primary", "a replica needs the write-ahead log (persistence.wal = true)")
		}
	}
	if l := c.Metrics.Listen; l != "" {
		if _, port, err := net.SplitHostPort(l); err != nil || port == "" {
			bad("metrics.listen", "%q is not host:port", l)
		}
	}
	return errors.Join(errs...)
}

// validHost reports whether s is an IP literal or a syntactically valid host name.
func validHost(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	if net.ParseIP(s) != nil {
		return true
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
