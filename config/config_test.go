package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultIsValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
}

// The shipped config.toml sets every key to its default, so it loads to exactly Default().
func TestShippedConfigEqualsDefault(t *testing.T) {
	c, err := Load(filepath.Join("..", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.File, _ = filepath.Abs(filepath.Join("..", "config.toml"))
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("config.toml loads to\n%+v\nwant Default()\n%+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// Every key of the schema appears in the shipped file, each with a comment above it.
func TestShippedConfigDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	found := map[string]bool{} // dotted keys: table.key
	table := ""
	for i, ln := range lines {
		if strings.HasPrefix(ln, "[") && !strings.HasPrefix(ln, "[[") {
			table = strings.Trim(ln, "[]")
			continue
		}
		k, _, ok := strings.Cut(ln, " = ")
		if !ok || strings.HasPrefix(ln, "#") {
			continue
		}
		found[table+"."+k] = true
		if i == 0 || !strings.HasPrefix(lines[i-1], "#") {
			t.Errorf("config.toml: key %s has no comment above it", k)
		}
	}
	// A struct-typed key is a table of its own, whose keys must all be there.
	var check func(table string, rt reflect.Type)
	check = func(table string, rt reflect.Type) {
		for i := 0; i < rt.NumField(); i++ {
			k := table + "." + rt.Field(i).Tag.Get("toml")
			if ft := rt.Field(i).Type; ft.Kind() == reflect.Struct {
				check(k, ft)
			} else if !found[k] {
				t.Errorf("config.toml lacks %s", k)
			}
		}
	}
	for table, sec := range map[string]any{"server": ServerConfig{}, "limits": LimitsConfig{}, "log": LogConfig{}, "persistence": PersistenceConfig{}, "keyspace": KeyspaceConfig{}, "memory": MemoryConfig{}, "replication": ReplicationConfig{}, "cluster": ClusterConfig{}} {
		check(table, reflect.TypeOf(sec))
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFullFile(t *testing.T) {
	p := writeFile(t, `
[server]
bind = "0.0.0.0"
port = 7000
shards = 3
reactors = 2
reactor_per_shard = false
inline_execution = false
inline_writes = false
direct_replies = true
databases = 4
max_clients = 50
timeout = 30
protected_mode = false
requirepass = "s3cret"
enable_debug_command = "no"
shutdown_timeout = 3

[limits]
client_output_buffer_limit = 0
client_query_buffer_limit = "2MB"
proto_max_bulk_len = 1048576
max_multibulk_len = 1000
max_reply_size = "64mb"

[log]
level = "debug"
format = "json"

[persistence]
dir = "/var/lib/ruvio"
wal = false
fsync = "always"
segment_size = "1m"
commit_delay_max_us = 250
snapshot_every = 0
snapshot_wal_bytes = "1Gb"
snapshot_wal_percent = 50
snapshot_on_shutdown = false

[keyspace]
active_expire = false
active_expire_effort = 10
hz = 100
changes_capacity = 128

[memory]
maxmemory = "4gb"
maxmemory_policy = "allkeys-lfu"
maxmemory_samples = 10
lfu_log_factor = 5
lfu_decay_time = 2

[replication]
sync_replicas = 2
sync_timeout_ms = 750
`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	// The older key client_output_buffer_limit is the normal class's hard limit.
	legacyObuf := DefaultOutputBufferLimits()
	legacyObuf.Normal.Hard = 0
	want := Config{
		File:        p,
		Server:      ServerConfig{Bind: "0.0.0.0", Port: 7000, Shards: 3, Reactors: 2, Databases: 4, MaxClients: 50, Timeout: 30, ProtectedMode: false, RequirePass: "s3cret", EnableDebugCommand: "no", ShutdownTimeout: 3, DirectReplies: true},
		Limits:      LimitsConfig{ClientOutputBuffer: legacyObuf, ClientQueryBufferLimit: 2 * MiB, ProtoMaxBulkLen: MiB, MaxMultibulkLen: 1000, MaxReplySize: 64 * MiB, MaxMemoryClients: "0"},
		Log:         LogConfig{Level: "debug", Format: "json"},
		Persistence: PersistenceConfig{Dir: "/var/lib/ruvio", WAL: false, Fsync: "always", SegmentSize: 1000 * 1000, CommitDelayMaxUs: 250, SnapshotEvery: 0, SnapshotWALBytes: GiB, SnapshotWALPercent: 50, SnapshotOnShutdown: false},
		Keyspace:    KeyspaceConfig{ActiveExpire: false, ActiveExpireEffort: 10, Hz: 100, ChangesCapacity: 128},
		Memory:      MemoryConfig{MaxMemory: 4 * GiB, MaxMemoryPolicy: "allkeys-lfu", MaxMemorySamples: 10, LFULogFactor: 5, LFUDecayTime: 2},
		Cluster:     ClusterConfig{Members: []string{}, Join: []string{}, Replicas: 1, NodeTimeoutMs: 2000},
		Replication: ReplicationConfig{SyncReplicas: 2, SyncTimeoutMs: 750},
		TLS:         DefaultTLS(),
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("Load =\n%+v\nwant\n%+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoadPartialKeepsDefaults(t *testing.T) {
	c, err := Parse("mem", []byte("[server]\nport = 7001\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Server.Port = 7001
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v, want %+v", c, want)
	}
	c, err = Parse("empty", nil)
	if err != nil || !reflect.DeepEqual(c, Default()) {
		t.Fatalf("empty file: %+v, %v", c, err)
	}
}

// TestReactorModeFromFile: a reactor per shard is the default; a file that
// asks for a number of reactors without naming the mode gets shared
// reactors, and one that asks for both is refused by Validate.
func TestReactorModeFromFile(t *testing.T) {
	if !Default().Server.ReactorPerShard {
		t.Fatal("default: reactor_per_shard is false")
	}
	for _, tc := range []struct {
		file     string
		reactors int
		perShard bool
		invalid  string
	}{
		{"[server]\nreactors = 0\n", 0, true, ""},
		{"[server]\nreactors = 3\n", 3, false, ""},
		{"[server]\nreactor_per_shard = false\n", 0, false, ""},
		{"[server]\nreactors = 3\nreactor_per_shard = false\n", 3, false, ""},
		{"[server]\nreactors = 3\nreactor_per_shard = true\n", 3, true,
			"config: server.reactors: must be 0 with server.reactor_per_shard = true (each shard's port has its own reactor), not 3; set server.reactor_per_shard = false for 3 shared reactors"},
	} {
		c, err := Parse("mem", []byte(tc.file))
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		if c.Server.Reactors != tc.reactors || c.Server.ReactorPerShard != tc.perShard {
			t.Fatalf("%q: reactors %d, reactor_per_shard %v; want %d, %v", tc.file, c.Server.Reactors, c.Server.ReactorPerShard, tc.reactors, tc.perShard)
		}
		err = c.Validate()
		if tc.invalid == "" && err != nil || tc.invalid != "" && (err == nil || err.Error() != tc.invalid) {
			t.Fatalf("%q: Validate = %v, want %q", tc.file, err, tc.invalid)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown key", "[server]\nprot = 1\n", "config: f.toml: unknown key server.prot"},
		{"unknown keys", "top = 1\n[server]\nprot = 1\n[log]\nlevel = \"info\"\ncolour = true\n",
			"config: f.toml: unknown keys log.colour, server.prot, top"},
		{"unknown section", "[srv]\nport = 1\n", "config: f.toml: unknown keys srv, srv.port"},
		{"bad size", "[limits]\nproto_max_bulk_len = \"12xb\"\n",
			`config: f.toml: line 2: limits.proto_max_bulk_len: invalid size "12xb"`},
		{"negative size", "[persistence]\nsegment_size = -5\n",
			"config: f.toml: line 2: persistence.segment_size: size -5 is negative"},
		{"float size", "[limits]\nclient_query_buffer_limit = 1.5\n",
			"config: f.toml: line 2: limits.client_query_buffer_limit: size must be an integer"},
		{"wrong type", "[server]\nport = \"abc\"\n", "config: f.toml: line 2: server.port:"},
		{"syntax", "[server\n", "config: f.toml: line 2: expected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.toml", []byte(tc.text))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant prefix %q", err, tc.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml")); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"bind bad name", func(c *Config) { c.Server.Bind = "a b!" }, `config: server.bind: "a b!" is not a list of IP addresses or host names`},
		{"port high", func(c *Config) { c.Server.Port = 70000 }, "config: server.port: 70000 is out of range 1..65535"},
		{"port zero", func(c *Config) { c.Server.Port = 0 }, "config: server.port: 0 is out of range 1..65535"},
		{"port+shards", func(c *Config) { c.Server.Port, c.Server.Shards = 65530, 8 }, "config: server.port: 65530 with 8 shards needs ports 65530..65537, beyond 65535"},
		{"shards zero", func(c *Config) { c.Server.Shards = 0 }, "config: server.shards: 0 is out of range 1..64"},
		{"shards high", func(c *Config) { c.Server.Shards = 65 }, "config: server.shards: 65 is out of range 1..64"},
		{"reactors", func(c *Config) { c.Server.Reactors = -1 }, "config: server.reactors: -1 is out of range 0..1024"},
		{"databases zero", func(c *Config) { c.Server.Databases = 0 }, "config: server.databases: 0 is out of range 1..1024"},
		{"databases high", func(c *Config) { c.Server.Databases = 1025 }, "config: server.databases: 1025 is out of range 1..1024"},
		{"max clients", func(c *Config) { c.Server.MaxClients = 0 }, "config: server.max_clients: 0 is out of range 1..2147483647"},
		{"timeout", func(c *Config) { c.Server.Timeout = -1 }, "config: server.timeout: -1 is out of range 0..2147483647"},
		{"requirepass", func(c *Config) { c.Server.RequirePass = "a\nb" }, "config: server.requirepass: must not contain CR, LF or NUL"},
		{"debug command", func(c *Config) { c.Server.EnableDebugCommand = "maybe" }, `config: server.enable_debug_command: "maybe" is not one of no, yes, local`},
		{"shutdown timeout", func(c *Config) { c.Server.ShutdownTimeout = 0 }, "config: server.shutdown_timeout: 0 is out of range 1..3600"},
		{"obuf", func(c *Config) { c.Limits.ClientOutputBuffer.Normal.Hard = -1 }, "config: limits.client_output_buffer.normal.hard: -1 is out of range 0..9223372036854775807"},
		{"obuf soft", func(c *Config) { c.Limits.ClientOutputBuffer.PubSub.Soft = -1 }, "config: limits.client_output_buffer.pubsub.soft: -1 is out of range 0..9223372036854775807"},
		{"obuf seconds", func(c *Config) { c.Limits.ClientOutputBuffer.Replica.SoftSeconds = 1 << 31 }, "config: limits.client_output_buffer.replica.soft_seconds: 2147483648 is out of range 0..2147483647"},
		{"querybuf", func(c *Config) { c.Limits.ClientQueryBufferLimit = 1000 }, "config: limits.client_query_buffer_limit: 1000 is out of range 1048576..9223372036854775807"},
		{"bulk", func(c *Config) { c.Limits.ProtoMaxBulkLen = 1 }, "config: limits.proto_max_bulk_len: 1 is out of range 1048576..9223372036854775807"},
		{"multibulk", func(c *Config) { c.Limits.MaxMultibulkLen = 0 }, "config: limits.max_multibulk_len: 0 is out of range 1..2147483647"},
		{"max reply", func(c *Config) { c.Limits.MaxReplySize = 1000 }, "config: limits.max_reply_size: 1000 is out of range 1048576..9223372036854775807"},
		{"log level", func(c *Config) { c.Log.Level = "verbose" }, `config: log.level: "verbose" is not one of debug, info, warn, error`},
		{"log format", func(c *Config) { c.Log.Format = "text" }, `config: log.format: "text" is not one of console, json, redis`},
		{"dir", func(c *Config) { c.Persistence.Dir = "" }, "config: persistence.dir: must not be empty"},
		{"fsync", func(c *Config) { c.Persistence.Fsync = "sometimes" }, `config: persistence.fsync: "sometimes" is not one of always, everysec, no`},
		{"segment small", func(c *Config) { c.Persistence.SegmentSize = 100 }, "config: persistence.segment_size: 100 is out of range 4096..4294967296"},
		{"snapshot every", func(c *Config) { c.Persistence.SnapshotEvery = -1 }, "config: persistence.snapshot_every: -1 is out of range 0..2147483647"},
		{"snapshot wal", func(c *Config) { c.Persistence.SnapshotWALBytes = -1 }, "config: persistence.snapshot_wal_bytes: -1 is out of range 0..9223372036854775807"},
		{"snapshot wal percent", func(c *Config) { c.Persistence.SnapshotWALPercent = -1 }, "config: persistence.snapshot_wal_percent: -1 is out of range 0..10000"},
		{"effort", func(c *Config) { c.Keyspace.ActiveExpireEffort = 11 }, "config: keyspace.active_expire_effort: 11 is out of range 1..10"},
		{"hz", func(c *Config) { c.Keyspace.Hz = 0 }, "config: keyspace.hz: 0 is out of range 1..500"},
		{"changes", func(c *Config) { c.Keyspace.ChangesCapacity = 0 }, "config: keyspace.changes_capacity: 0 is out of range 1..16777216"},
		{"sync replicas high", func(c *Config) { c.Replication.SyncReplicas = 17 }, "config: replication.sync_replicas: 17 is out of range 0..16"},
		{"sync replicas negative", func(c *Config) { c.Replication.SyncReplicas = -1 }, "config: replication.sync_replicas: -1 is out of range 0..16"},
		{"sync timeout", func(c *Config) { c.Replication.SyncTimeoutMs = 0 }, "config: replication.sync_timeout_ms: 0 is out of range 1..2147483647"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Validate() = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestValidateReportsEveryError(t *testing.T) {
	c := Default()
	c.Server.Port = 0
	c.Log.Level = "loud"
	c.Keyspace.Hz = 501
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.Split(err.Error(), "\n")
	want := []string{
		"config: server.port: 0 is out of range 1..65535",
		`config: log.level: "loud" is not one of debug, info, warn, error`,
		"config: keyspace.hz: 501 is out of range 1..500",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, edit := range []func(c *Config){
		func(c *Config) { c.Server.Bind = "localhost" },
		func(c *Config) { c.Server.Bind = "::1" },
		func(c *Config) { c.Server.Port, c.Server.Shards = 65472, 64 },
		func(c *Config) { c.Server.Shards, c.Server.Databases = 4, 16 },
		func(c *Config) { c.Persistence.Fsync = "no" },
		func(c *Config) { c.Limits.ClientOutputBuffer = OutputBufferLimits{} },
	} {
		c := Default()
		edit(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1": 1, "123": 123, "1b": 1, "1B": 1,
		"1k": 1000, "1kb": 1024, "1KB": 1024, "2K": 2000,
		"1m": 1000000, "64mb": 64 << 20, "64MB": 64 << 20, "1Mb": 1 << 20,
		"1g": 1000000000, "1gb": 1 << 30, "1GB": 1 << 30, "4Gb": 4 << 30,
		"9223372036854775807": 1<<63 - 1,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "mb", "-1", "+1", "1.5mb", " 1", "1 mb", "1tb", "1kib", "0x10", "9223372036854775808", "9000000000gb"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, n)
		} else if !strings.Contains(err.Error(), "invalid size") {
			t.Errorf("ParseSize(%q) error %q does not say invalid size", in, err)
		}
	}
}

func TestNewLogger(t *testing.T) {
	for _, lc := range []LogConfig{{Level: "debug", Format: "console"}, {Level: "info", Format: "json"}, {Level: "warn", Format: "console"}, {Level: "error", Format: "json"}} {
		lg, err := NewLogger(lc)
		if err != nil {
			t.Fatalf("%+v: %v", lc, err)
		}
		want, _ := ParseLogLevel(lc.Level)
		if !lg.Core().Enabled(want) || (want > -1 && lg.Core().Enabled(want-1)) {
			t.Errorf("%+v: wrong level", lc)
		}
	}
	if _, err := NewLogger(LogConfig{Level: "loud", Format: "console"}); err == nil || !strings.Contains(err.Error(), "log.level") {
		t.Errorf("bad level: %v", err)
	}
	if _, err := NewLogger(LogConfig{Level: "info", Format: "xml"}); err == nil || !strings.Contains(err.Error(), "log.format") {
		t.Errorf("bad format: %v", err)
	}
}

// The container's configuration loads, validates, and differs from the shipped defaults only
// where its header says: all interfaces, protected mode off, data on /data.
func TestDockerConfig(t *testing.T) {
	c, err := Load(filepath.Join("..", "docker", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.File = c.File
	want.Server.Bind, want.Server.ProtectedMode, want.Persistence.Dir = "0.0.0.0", false, "/data"
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("docker/config.toml loads to\n%+v\nwant\n%+v", c, want)
	}
}
