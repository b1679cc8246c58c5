// Package metrics serves a Ruvio process's figures in the Prometheus text
// format: GET /metrics on the address of [metrics] listen.
//
// A [Collector] reads a [keyspace.Server] without stalling it: the figures
// kept as atomics (clients, memory, the shards' command and expiry
// counters, the WAL's) are loaded directly, and the shard-local ones (the
// per-command counters and latency histograms, keys, blocked clients,
// Pub/Sub channels, snapshots, replicas) are read from a copy each shard
// makes between two drains of its ring when a scrape asks for one
// ([keyspace.Shard.ReadMetrics]). A shard that does not answer within the
// scrape's budget (one long command) is reported from its previous copy,
// and ruvio_shard_metrics_stale says so. Counting costs the command path
// nothing beyond the plain counters INFO already keeps.
//
// Names follow redis_exporter's where it has the figure
// (redis_commands_total, redis_connected_clients, redis_memory_used_bytes,
// redis_db_keys, redis_commands_latencies_usec, ...), summed over the
// shards as one Redis server reports them, so that its Grafana dashboards
// work; the per-shard breakdowns and what redis_exporter does not have are
// ruvio_* names with a shard label. The list is in docs/operations.md
// ("Metrics and latency").
//
// [Handler] answers GET and HEAD on /metrics only: other paths get 404,
// other methods 405.
package metrics
