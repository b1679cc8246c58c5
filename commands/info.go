package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// infoSection is one section INFO can report.
type infoSection struct {
	name  string // the argument that selects it
	title string // its header
	// dflt: part of INFO and INFO default; every section is part of all
	// and everything.
	dflt  bool
	write func(x *keyspace.Ctx, ib *infoBuilder)
}

// infoSections lists the sections in the order Redis 7.0 prints them.
var infoSections = [...]infoSection{
	{"server", "Server", true, infoServer},
	{"clients", "Clients", true, infoClients},
	{"memory", "Memory", true, infoMemory},
	{"persistence", "Persistence", true, infoPersistence},
	{"stats", "Stats", true, infoStats},
	{"replication", "Replication", true, infoReplication},
	{"cpu", "CPU", true, infoCPU},
	{"modules", "Modules", true, nil},
	{"commandstats", "Commandstats", false, infoCommandstats},
	{"errorstats", "Errorstats", true, infoErrorstats},
	{"latencystats", "Latencystats", false, infoLatencystats},
	{"cluster", "Cluster", true, infoCluster},
	{"keyspace", "Keyspace", true, infoKeyspace},
}

// infoBuilder accumulates the text of an INFO reply.
type infoBuilder struct {
	b        []byte
	sections int
}

// section starts a section titled title.
func (ib *infoBuilder) section(title string) {
	if ib.sections > 0 {
		ib.b = append(ib.b, "\r\n"...)
	}
	ib.sections++
	ib.b = append(ib.b, "# "...)
	ib.b = append(ib.b, title...)
	ib.b = append(ib.b, "\r\n"...)
}

// str adds the line "name:value".
func (ib *infoBuilder) str(name, value string) {
	ib.b = append(ib.b, name...)
	ib.b = append(ib.b, ':')
	ib.b = append(ib.b, value...)
	ib.b = append(ib.b, "\r\n"...)
}

// int adds the line "name:value" for an integer value.
func (ib *infoBuilder) int(name string, value int64) {
	ib.b = append(ib.b, name...)
	ib.b = append(ib.b, ':')
	ib.b = strconv.AppendInt(ib.b, value, 10)
	ib.b = append(ib.b, "\r\n"...)
}

// INFO [section ...]
func infoCommand(x *keyspace.Ctx) {
	var want [len(infoSections)]bool
	if len(x.Args) == 1 {
		for i := range infoSections {
			want[i] = infoSections[i].dflt
		}
	}
	for _, a := range x.Args[1:] {
		name := strings.ToLower(string(a))
		for i := range infoSections {
			switch name {
			case "all", "everything":
				want[i] = true
			case "default":
				want[i] = want[i] || infoSections[i].dflt
			case infoSections[i].name:
				want[i] = true
			case "module_list":
				want[i] = want[i] || infoSections[i].name == "modules"
			}
		}
	}
	ib := infoBuilder{b: make([]byte, 0, 4096)}
	for i := range infoSections {
		if !want[i] {
			continue
		}
		ib.section(infoSections[i].title)
		if w := infoSections[i].write; w != nil {
			w(x, &ib)
		}
	}
	x.W.Verbatim("txt", string(ib.b))
}

// processInfo is what INFO server reports about the process; it does not
// change while the process runs.
var processInfo = sync.OnceValue(func() (p struct {
	pid        int
	executable string
}) {
	p.pid = os.Getpid()
	p.executable, _ = os.Executable()
	return p
})

func infoServer(x *keyspace.Ctx, ib *infoBuilder) {
	srv := x.S.Srv
	now := srv.Now()
	mode := "standalone"
	if serverClusterEnabled(srv) {
		mode = "cluster"
	}
	uptime := int64(now.Sub(srv.Started).Seconds())
	hz := int64(srv.Opts.Live.Hz())
	ib.str("redis_version", keyspace.RedisVersion)
	ib.str("redis_git_sha1", "00000000")
	ib.str("redis_git_dirty", "0")
	ib.str("redis_build_id", "0")
	ib.str("redis_mode", mode)
	ib.str("ruvio_version", keyspace.Version)
	ib.int("ruvio_shard", int64(x.S.Idx))
	ib.int("ruvio_shards", int64(srv.Shards()))
	ib.str("os", runtime.GOOS+" "+runtime.GOARCH)
	ib.int("arch_bits", strconv.IntSize)
	ib.str("monotonic_clock", "POSIX clock_gettime") // the Go runtime's monotonic clock
	ib.str("multiplexing_api", multiplexingAPI())
	ib.str("atomicvar_api", "sync/atomic")
	ib.str("gcc_version", "0.0.0") // as Redis reports when not built by GCC
	ib.str("go_version", runtime.Version())
	ib.int("process_id", int64(processInfo().pid))
	ib.str("process_supervised", "no")
	ib.str("run_id", srv.RunID())
	ib.int("tcp_port", int64(srv.Topology().Nodes[x.S.Idx].Port))
	ib.int("server_time_usec", now.UnixMicro())
	ib.int("uptime_in_seconds", uptime)
	ib.int("uptime_in_days", uptime/86400)
	ib.int("hz", hz)
	ib.int("configured_hz", hz)
	// Unix seconds modulo 2^24: the clock OBJECT IDLETIME counts in, as
	// Redis's LRU clock.
	ib.int("lru_clock", now.Unix()&(1<<24-1))
	ib.str("executable", processInfo().executable)
	ib.str("config_file", srv.Opts.Live.ConfigFile())
	ib.int("io_threads_active", 0)
}

// multiplexingAPI names the poller the network layer uses.
func multiplexingAPI() string {
	switch runtime.GOOS {
	case "linux":
		return "epoll"
	case "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		return "kqueue"
	}
	return "unknown"
}

func infoClients(x *keyspace.Ctx, ib *infoBuilder) {
	srv := x.S.Srv
	ib.int("connected_clients", int64(srv.ClientRegistry.ShardLen(x.S.Idx)))
	ib.int("ruvio_process_connected_clients", int64(srv.ClientCount()))
	ib.int("cluster_connections", 0)
	ib.int("maxclients", int64(srv.Opts.Live.MaxClients()))
	ib.int("client_recent_max_input_buffer", 0)
	ib.int("client_recent_max_output_buffer", srv.RecentMaxOutputBuffer())
	// Clients held by CLIENT PAUSE are parked like blocked ones and
	// counted with them, as Redis counts its postponed clients.
	blocked, timed := srv.BlockedClients()
	ib.int("blocked_clients", blocked)
	ib.int("tracking_clients", x.S.TrackingInfo().Clients)
	ib.int("clients_in_timeout_table", timed)
}

func infoMemory(x *keyspace.Ctx, ib *infoBuilder) {
	for _, f := range memoryInfo(x.S) {
		ib.str(f.name, f.value)
	}
}

// allocatorStats are the Go runtime's heap figures INFO memory reports in
// the allocator_* fields.
type allocatorStats struct {
	allocated, active, resident uint64
}

// allocatorMetrics are the runtime/metrics samples readAllocatorStats
// reads; reading them does not stop the world, unlike ReadMemStats.
var allocatorMetrics = [...]string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

// readAllocatorStats samples the runtime's heap classes.
func readAllocatorStats() allocatorStats {
	var samples [len(allocatorMetrics)]metrics.Sample
	for i, name := range allocatorMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples[:])
	var v [len(allocatorMetrics)]uint64
	for i := range samples {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			v[i] = samples[i].Value.Uint64()
		}
	}
	return allocatorStats{
		allocated: v[0],
		active:    v[0] + v[1],
		resident:  v[2] - min(v[3], v[2]),
	}
}

// ratio formats a/b with two decimals, as Redis prints its memory ratios;
// 0 when b is 0.
func ratio(a, b uint64) string {
	if b == 0 {
		return "0.00"
	}
	return strconv.FormatFloat(float64(a)/float64(b), 'f', 2, 64)
}

// bytesToHuman formats n the way Redis's bytesToHuman does: "512B",
// "1.50K", "3.00M" and so on up to petabytes; beyond, bytes again.
func bytesToHuman(n uint64) string {
	const units = "KMGTP"
	limit := uint64(1024)
	for i := range len(units) {
		if n < limit*1024 && n >= limit {
			return strconv.FormatFloat(float64(n)/float64(limit), 'f', 2, 64) + units[i:i+1]
		}
		limit *= 1024
	}
	return strconv.FormatUint(n, 10) + "B"
}

// infoField is one "name:value" line of an INFO section.
type infoField struct {
	name, value string
}

// persistenceExtras are INFO persistence fields of Redis's that have a
// fixed value here, each placed after the field it follows in Redis: the
// WAL is never rewritten (no AOF rewrite) and there are no modules.
var persistenceExtras = [...]struct {
	after string
	f     infoField
}{
	{"aof_rewrite_scheduled", infoField{"aof_last_rewrite_time_sec", "-1"}},
	{"aof_last_rewrite_time_sec", infoField{"aof_current_rewrite_time_sec", "-1"}},
	{"aof_current_rewrite_time_sec", infoField{"aof_last_bgrewrite_status", "ok"}},
	{"aof_last_bgrewrite_status", infoField{"aof_rewrites", "0"}},
	{"aof_rewrites", infoField{"aof_rewrites_consecutive_failures", "0"}},
	{"aof_last_write_status", infoField{"aof_last_cow_size", "0"}},
	{"aof_last_cow_size", infoField{"module_fork_in_progress", "0"}},
	{"module_fork_in_progress", infoField{"module_fork_last_cow_size", "0"}},
}

func infoPersistence(x *keyspace.Ctx, ib *infoBuilder) {
	fields := persistenceInfo(x.S)
	for _, e := range persistenceExtras {
		for i, f := range fields {
			if f.name == e.after {
				fields = append(fields[:i+1], append([]infoField{e.f}, fields[i+1:]...)...)
				break
			}
		}
	}
	for _, f := range fields {
		ib.str(f.name, f.value)
	}
}

func infoStats(x *keyspace.Ctx, ib *infoBuilder) {
	srv := x.S.Srv
	st := &srv.Stats
	ib.int("total_connections_received", st.Connections.Load())
	ib.int("total_commands_processed", serverCommandsProcessed(srv))
	ib.int("instantaneous_ops_per_sec", serverOpsPerSec(srv))
	ib.int("total_net_input_bytes", st.NetInputBytes.Load())
	ib.int("total_net_output_bytes", st.NetOutputBytes.Load())
	ib.int("total_net_repl_input_bytes", 0) // no replication yet
	ib.int("total_net_repl_output_bytes", 0)
	ib.str("instantaneous_input_kbps", "0.00")
	ib.str("instantaneous_output_kbps", "0.00")
	ib.str("instantaneous_input_repl_kbps", "0.00")
	ib.str("instantaneous_output_repl_kbps", "0.00")
	ib.int("rejected_connections", st.RejectedConns.Load())
	full, partialOK, partialErr := x.S.Srv.SyncCounts(x.S.Idx)
	ib.int("sync_full", full)
	ib.int("sync_partial_ok", partialOK)
	ib.int("sync_partial_err", partialErr)
	ib.int("expired_subkeys", st.ExpiredFields.Load())
	ib.int("expired_keys", st.ExpiredKeys.Load())
	ib.int("evicted_keys", x.S.EvictedKeys())
	ib.int("evicted_clients", st.EvictedClients.Load())
	ib.int("total_eviction_exceeded_time", 0) // not measured
	ib.int("current_eviction_exceeded_time", 0)
	ib.int("keyspace_hits", st.KeyspaceHits.Load())
	ib.int("keyspace_misses", st.KeyspaceMisses.Load())
	ch, pat, shch := x.S.PubsubCounts()
	ib.int("pubsub_channels", ch)
	ib.int("pubsub_patterns", pat)
	ib.int("pubsubshard_channels", shch)
	ib.int("latest_fork_usec", 0)
	ib.int("total_forks", 0)
	ib.int("migrate_cached_sockets", migrateCachedSockets(srv))
	ib.int("slave_expires_tracked_keys", 0)
	ib.int("active_defrag_hits", 0) // no active defragmentation
	ib.int("active_defrag_misses", 0)
	ib.int("active_defrag_key_hits", 0)
	ib.int("active_defrag_key_misses", 0)
	ib.int("total_active_defrag_time", 0)
	ib.int("current_active_defrag_time", 0)
	ti := x.S.TrackingInfo()
	ib.int("tracking_total_keys", ti.Keys)
	ib.int("tracking_total_items", ti.Items)
	ib.int("tracking_total_prefixes", ti.Prefixes)
	ib.int("unexpected_error_replies", 0)
	// Error replies of this shard, as errorstats counts them.
	ib.int("total_error_replies", x.S.CmdStats.ErrorReplies)
	ib.int("dump_payload_sanitizations", 0) // no RESTORE
	ib.int("io_threaded_reads_processed", 0)
	ib.int("io_threaded_writes_processed", 0)
	ib.int("client_output_buffer_limit_disconnections", st.OutputBufKilled.Load())
	ib.int("ruvio_client_read_pauses", st.ReadPauses.Load())
	ib.int("ruvio_shard_batches", x.S.Stats.Batches.Load())
	ib.int("ruvio_shard_inline_batches", x.S.Stats.InlineBatches.Load())
	ib.int("ruvio_shard_ring_full", x.S.Stats.RingFull.Load())
}

func infoCPU(_ *keyspace.Ctx, ib *infoBuilder) {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	ib.str("used_cpu_sys", formatTimeval(self.Stime))
	ib.str("used_cpu_user", formatTimeval(self.Utime))
	ib.str("used_cpu_sys_children", formatTimeval(children.Stime))
	ib.str("used_cpu_user_children", formatTimeval(children.Utime))
}

// formatTimeval prints tv as seconds with six decimals, as Redis does.
func formatTimeval(tv syscall.Timeval) string {
	us := int64(tv.Sec)*1_000_000 + int64(tv.Usec)
	frac := strconv.FormatInt(us%1_000_000, 10)
	return strconv.FormatInt(us/1_000_000, 10) + "." + strings.Repeat("0", 6-len(frac)) + frac
}

func infoCluster(x *keyspace.Ctx, ib *infoBuilder) {
	enabled := int64(0)
	if serverClusterEnabled(x.S.Srv) {
		enabled = 1
	}
	ib.int("cluster_enabled", enabled)
}

func infoKeyspace(x *keyspace.Ctx, ib *infoBuilder) {
	for i, db := range x.S.DBs {
		if db.Len() == 0 {
			continue
		}
		b := append(ib.b, "db"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ":keys="...)
		b = strconv.AppendInt(b, int64(db.Len()), 10)
		b = append(b, ",expires="...)
		b = strconv.AppendInt(b, int64(db.Expires()), 10)
		b = append(b, ",avg_ttl=0"...)
		// Redis 7.4's count of hashes with field deadlines, shown when
		// there are some (Redis 7.0's line has no such field).
		if n := db.HashesWithFieldTTLs(); n > 0 {
			b = append(b, ",subexpiry="...)
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, "\r\n"...)
		ib.b = b
	}
}
