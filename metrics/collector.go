package metrics

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
)

// DefaultShardWait is how long a scrape waits, in all, for the shards'
// copies of their figures before it reports the previous ones.
const DefaultShardWait = time.Second

// Collector is a prometheus.Collector reading one keyspace server. It is
// safe for concurrent scrapes: they take turns.
type Collector struct {
	srv  *keyspace.Server
	wait time.Duration

	mu      sync.Mutex              // one Collect at a time; guards scratch
	scratch []keyspace.ShardMetrics // per shard, reused by every scrape
}

// NewCollector returns a collector of srv's figures; wait bounds how long
// a scrape waits for the shards (DefaultShardWait when wait <= 0).
func NewCollector(srv *keyspace.Server, wait time.Duration) *Collector {
	if wait <= 0 {
		wait = DefaultShardWait
	}
	return &Collector{srv: srv, wait: wait}
}

// Descriptions of every metric, built once.
var (
	descUp              = desc("redis_up", "1 when the server answers.")
	descUptime          = desc("redis_uptime_in_seconds", "Seconds since the server started.")
	descStartTime       = desc("redis_start_time_seconds", "Unix time the server started.")
	descConnected       = desc("redis_connected_clients", "Client connections.")
	descBlocked         = desc("redis_blocked_clients", "Clients parked in a blocking command.")
	descMemUsed         = desc("redis_memory_used_bytes", "Memory used by the data and its overhead (used_memory), every shard's.")
	descMaxMemory       = desc("redis_memory_max_bytes", "maxmemory, 0 for no limit.")
	descCommandsProc    = desc("redis_commands_processed_total", "Commands run (total_commands_processed).")
	descConnsReceived   = desc("redis_connections_received_total", "Connections accepted.")
	descRejectedConns   = desc("redis_rejected_connections_total", "Connections refused (maxclients).")
	descExpired         = desc("redis_expired_keys_total", "Keys deleted on expiry.")
	descEvicted         = desc("redis_evicted_keys_total", "Keys evicted under maxmemory.")
	descHits            = desc("redis_keyspace_hits_total", "Key lookups that found the key.")
	descMisses          = desc("redis_keyspace_misses_total", "Key lookups that did not.")
	descNetIn           = desc("redis_net_input_bytes_total", "Bytes read from clients.")
	descNetOut          = desc("redis_net_output_bytes_total", "Bytes written to clients.")
	descDBKeys          = desc("redis_db_keys", "Keys per database.", "db")
	descDBExpiring      = desc("redis_db_keys_expiring", "Keys with a time to live, per database.", "db")
	descPubsubChannels  = desc("redis_pubsub_channels", "Pub/Sub channels with subscribers.")
	descPubsubPatterns  = desc("redis_pubsub_patterns", "Pub/Sub patterns with subscribers.")
	descCmdCalls        = desc("redis_commands_total", "Calls per command (cmdstat calls).", "cmd")
	descCmdFailed       = desc("redis_commands_failed_calls_total", "Calls that replied with an error, per command.", "cmd")
	descCmdRejected     = desc("redis_commands_rejected_calls_total", "Calls refused before running, per command.", "cmd")
	descCmdDuration     = desc("redis_commands_duration_seconds_total", "Time spent in each command (cmdstat usec).", "cmd")
	descCmdLatency      = desc("redis_commands_latencies_usec", "Latency of each command in microseconds (LATENCY HISTOGRAM; needs latency-tracking).", "cmd")
	descErrors          = desc("redis_errors_total", "Error replies per error code (errorstats).", "err")
	descErrorReplies    = desc("redis_total_error_replies", "Error replies (total_error_replies).")
	descConnectedSlaves = desc("redis_connected_slaves", "Replicas streaming from this server (the most streaming from one shard).")
	descLatencySpike    = desc("redis_latency_spike_duration_seconds", "Highest latency recorded by the latency monitor per event (LATENCY LATEST).", "event_name")

	descShardStale       = desc("ruvio_shard_metrics_stale", "1 when the shard did not answer this scrape in time and its figures are its previous copy's.", "shard")
	descShardCommands    = desc("ruvio_shard_commands_total", "Commands run by the shard.", "shard")
	descShardKeys        = desc("ruvio_shard_keys", "Keys held by the shard, every database.", "shard")
	descShardExpiring    = desc("ruvio_shard_expiring_keys", "Keys with a time to live held by the shard.", "shard")
	descShardMem         = desc("ruvio_shard_memory_used_bytes", "The shard's used_memory.", "shard")
	descShardEvicted     = desc("ruvio_shard_evicted_keys_total", "Keys the shard evicted.", "shard")
	descShardExpired     = desc("ruvio_shard_expired_keys_total", "Keys the shard deleted on expiry.", "shard")
	descShardBlocked     = desc("ruvio_shard_blocked_clients", "Clients parked on the shard.", "shard")
	descShardChannels    = desc("ruvio_shard_pubsub_channels", "Pub/Sub channels (and shard channels) with subscribers on the shard.", "shard", "kind")
	descShardRingFull    = desc("ruvio_shard_ring_full_total", "Batches refused by a full shard ring (the sender waited).", "shard")
	descShardInline      = desc("ruvio_shard_inline_batches_total", "Batches a reactor ran itself on the idle shard instead of handing them through the ring.", "shard")
	descWALBytes         = desc("ruvio_wal_bytes_total", "Bytes written to the shard's WAL.", "shard")
	descWALRecords       = desc("ruvio_wal_records_total", "Records written to the shard's WAL.", "shard")
	descWALFsync         = desc("ruvio_wal_fsync_duration_seconds", "Duration of the WAL's fsyncs.", "shard")
	descWALCmdsPerFsync  = desc("ruvio_wal_commands_per_fsync", "Commands released per WAL fsync, on average since start.", "shard")
	descWALSegments      = desc("ruvio_wal_segments", "Live WAL segment files.", "shard")
	descSnapInProgress   = desc("ruvio_snapshot_in_progress", "1 while a snapshot of the shard is being written.", "shard")
	descSnapLastDuration = desc("ruvio_snapshot_last_duration_seconds", "Duration of the shard's last successful snapshot.", "shard")
	descSnapLastSuccess  = desc("ruvio_snapshot_last_success_timestamp_seconds", "Unix time of the shard's last successful snapshot (0: none); its age is time() minus this.", "shard")
	descSnapLastOK       = desc("ruvio_snapshot_last_status_ok", "1 when the shard's last snapshot succeeded.", "shard")
	descReplLagRecords   = desc("ruvio_replica_lag_records", "WAL records a replica has not acknowledged.", "shard", "replica")
	descReplLagSeconds   = desc("ruvio_replica_lag_seconds", "Seconds since a replica's last acknowledgement.", "shard", "replica")
)

var allDescs = []*prometheus.Desc{
	descUp, descUptime, descStartTime, descConnected, descBlocked, descMemUsed, descMaxMemory,
	descCommandsProc, descConnsReceived, descRejectedConns, descExpired, descEvicted, descHits,
	descMisses, descNetIn, descNetOut, descDBKeys, descDBExpiring, descPubsubChannels,
	descPubsubPatterns, descCmdCalls, descCmdFailed, descCmdRejected, descCmdDuration,
	descCmdLatency, descErrors, descErrorReplies, descConnectedSlaves, descLatencySpike,
	descShardStale, descShardCommands, descShardKeys, descShardExpiring, descShardMem,
	descShardEvicted, descShardExpired, descShardBlocked, descShardChannels, descShardRingFull, descShardInline,
	descWALBytes, descWALRecords, descWALFsync, descWALCmdsPerFsync, descWALSegments,
	descSnapInProgress, descSnapLastDuration, descSnapLastSuccess, descSnapLastOK,
	descReplLagRecords, descReplLagSeconds,
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect reads the server and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	srv := c.srv
	n := srv.Shards()
	if len(c.scratch) != n {
		c.scratch = make([]keyspace.ShardMetrics, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.wait)
	defer cancel()
	for i := range n {
		// A late shard is reported from its previous copy, marked stale
		// (Fresh false): the error says no more than that.
		_ = srv.Shard(i).ReadMetrics(ctx, &c.scratch[i])
	}
	now := srv.Now()
	gauge(ch, descUp, 1)
	gauge(ch, descUptime, now.Sub(srv.Started).Seconds())
	gauge(ch, descStartTime, float64(srv.Started.Unix()))
	gauge(ch, descConnected, float64(srv.ClientCount()))
	gauge(ch, descMaxMemory, float64(srv.Live().MaxMemory()))
	st := &srv.Stats
	counter(ch, descConnsReceived, float64(st.Connections.Load()))
	counter(ch, descRejectedConns, float64(st.RejectedConns.Load()))
	counter(ch, descExpired, float64(st.ExpiredKeys.Load()))
	counter(ch, descHits, float64(st.KeyspaceHits.Load()))
	counter(ch, descMisses, float64(st.KeyspaceMisses.Load()))
	counter(ch, descNetIn, float64(st.NetInputBytes.Load()))
	counter(ch, descNetOut, float64(st.NetOutputBytes.Load()))

	var mem, processed, evicted, blocked, channels, patterns, replicas, errReplies int64
	var keys, expiring []int64
	errs := map[string]int64{}
	spikes := map[string]int64{}
	for i := range n {
		sh := srv.Shard(i)
		m := &c.scratch[i]
		label := strconv.Itoa(i)
		stale := 0.0
		if !m.Fresh {
			stale = 1
		}
		gauge(ch, descShardStale, stale, label)
		shardMem := sh.MemPublished.Load()
		mem += shardMem
		cmds := sh.Stats.Commands.Load()
		processed += cmds
		ev := sh.Stats.EvictedKeys.Load()
		evicted += ev
		counter(ch, descShardCommands, float64(cmds), label)
		counter(ch, descShardEvicted, float64(ev), label)
		counter(ch, descShardExpired, float64(sh.Stats.ExpiredKeys.Load()), label)
		counter(ch, descShardRingFull, float64(sh.Stats.RingFull.Load()), label)
		counter(ch, descShardInline, float64(sh.Stats.InlineBatches.Load()), label)
		gauge(ch, descShardMem, float64(shardMem), label)
		var shKeys, shExp int64
		for db := range m.Keys {
			if len(keys) <= db {
				keys = append(keys, 0)
				expiring = append(expiring, 0)
			}
			keys[db] += m.Keys[db]
			expiring[db] += m.Expires[db]
			shKeys += m.Keys[db]
			shExp += m.Expires[db]
		}
		gauge(ch, descShardKeys, float64(shKeys), label)
		gauge(ch, descShardExpiring, float64(shExp), label)
		gauge(ch, descShardBlocked, float64(m.Blocked), label)
		gauge(ch, descShardChannels, float64(m.Channels), label, "channel")
		gauge(ch, descShardChannels, float64(m.Patterns), label, "pattern")
		gauge(ch, descShardChannels, float64(m.ShardChannels), label, "shard_channel")
		blocked += int64(m.Blocked)
		channels += int64(m.Channels)
		patterns += int64(m.Patterns)
		errReplies += m.ErrorReplies
		for code, v := range m.Errors {
			errs[code] += v
		}
		for ev, ms := range m.LatencyEvents {
			spikes[ev] = max(spikes[ev], ms)
		}
		if m.WALOn {
			collectWAL(ch, m, label)
		}
		gauge(ch, descSnapInProgress, b2f(m.SnapshotInProgress), label)
		gauge(ch, descSnapLastDuration, m.SnapshotLastDuration.Seconds(), label)
		gauge(ch, descSnapLastSuccess, float64(m.SnapshotLastUnix), label)
		gauge(ch, descSnapLastOK, b2f(m.SnapshotLastOK), label)
		// A replica process follows every shard: count it once.
		replicas = max(replicas, int64(len(m.Replicas)))
		for _, r := range m.Replicas {
			gauge(ch, descReplLagRecords, float64(r.Records), label, r.Addr)
			gauge(ch, descReplLagSeconds, r.SinceAck.Seconds(), label, r.Addr)
		}
	}
	gauge(ch, descMemUsed, float64(mem))
	counter(ch, descCommandsProc, float64(processed))
	counter(ch, descEvicted, float64(evicted))
	gauge(ch, descBlocked, float64(blocked))
	gauge(ch, descPubsubChannels, float64(channels))
	gauge(ch, descPubsubPatterns, float64(patterns))
	gauge(ch, descConnectedSlaves, float64(replicas))
	counter(ch, descErrorReplies, float64(errReplies))
	for code, v := range errs {
		counter(ch, descErrors, float64(v), code)
	}
	for ev, ms := range spikes {
		gauge(ch, descLatencySpike, float64(ms)/1000, ev)
	}
	for db := range keys {
		if keys[db] == 0 {
			continue
		}
		name := "db" + strconv.Itoa(db)
		gauge(ch, descDBKeys, float64(keys[db]), name)
		gauge(ch, descDBExpiring, float64(expiring[db]), name)
	}
	c.collectCommands(ch)
}

// collectCommands sends the per-command figures, summed over the shards.
func (c *Collector) collectCommands(ch chan<- prometheus.Metric) {
	var cmds []*keyspace.Command
	for _, cmd := range c.srv.Cmds {
		cmds = append(cmds, cmd)
		cmds = append(cmds, cmd.Subcommands...)
	}
	for _, cmd := range cmds {
		var t keyspace.CmdStat
		for i := range c.scratch {
			if s := c.scratch[i].Commands; cmd.ID < len(s) {
				addStat(&t, &s[cmd.ID])
			}
		}
		if t.Calls == 0 && t.Failed == 0 && t.Rejected == 0 {
			continue
		}
		name := cmd.FullName()
		counter(ch, descCmdCalls, float64(t.Calls), name)
		counter(ch, descCmdFailed, float64(t.Failed), name)
		counter(ch, descCmdRejected, float64(t.Rejected), name)
		counter(ch, descCmdDuration, t.Elapsed.Seconds(), name)
		total := t.Hist.Count()
		if total == 0 {
			continue
		}
		// The histogram keeps the map until the registry writes it.
		buckets := make(map[float64]uint64, keyspace.LatencyBuckets-1)
		var cum uint64
		for b := 0; b < keyspace.LatencyBuckets-1; b++ {
			cum += uint64(t.Hist[b])
			buckets[float64(keyspace.LatencyBucketUpperUs(b))] = cum
		}
		ch <- prometheus.MustNewConstHistogram(descCmdLatency, uint64(total),
			float64(t.Elapsed.Microseconds()), buckets, name)
	}
}

// addStat adds s to t.
func addStat(t, s *keyspace.CmdStat) {
	t.Calls += s.Calls
	t.Failed += s.Failed
	t.Rejected += s.Rejected
	t.Elapsed += s.Elapsed
	for i := range s.Hist {
		t.Hist[i] += s.Hist[i]
	}
}

// collectWAL sends a shard's WAL figures.
func collectWAL(ch chan<- prometheus.Metric, m *keyspace.ShardMetrics, label string) {
	w := &m.WAL
	counter(ch, descWALBytes, float64(w.Bytes), label)
	counter(ch, descWALRecords, float64(w.Records), label)
	gauge(ch, descWALSegments, float64(w.Segments), label)
	perFsync := 0.0
	if w.Fsyncs > 0 {
		perFsync = float64(m.GroupedCommands) / float64(w.Fsyncs)
	}
	gauge(ch, descWALCmdsPerFsync, perFsync, label)
	buckets := make(map[float64]uint64, persistence.FsyncBuckets-1)
	var cum, total uint64
	for b := range persistence.FsyncBuckets {
		total += w.FsyncHist[b]
		if b < persistence.FsyncBuckets-1 {
			cum += w.FsyncHist[b]
			buckets[float64(int64(1)<<b)/1e6] = cum
		}
	}
	ch <- prometheus.MustNewConstHistogram(descWALFsync, total, w.TotalFsyncLatency.Seconds(), buckets, label)
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
