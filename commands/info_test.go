package commands

import (
	"slices"
	"strings"
	"testing"
)

// redisInfoFields are the fields of each INFO section of redis-server
// 7.0.15 (standalone, no replicas, no modules), in its order.
var redisInfoFields = map[string][]string{
	"server":      {"redis_version", "redis_git_sha1", "redis_git_dirty", "redis_build_id", "redis_mode", "os", "arch_bits", "monotonic_clock", "multiplexing_api", "atomicvar_api", "gcc_version", "process_id", "process_supervised", "run_id", "tcp_port", "server_time_usec", "uptime_in_seconds", "uptime_in_days", "hz", "configured_hz", "lru_clock", "executable", "config_file", "io_threads_active"},
	"clients":     {"connected_clients", "cluster_connections", "maxclients", "client_recent_max_input_buffer", "client_recent_max_output_buffer", "blocked_clients", "tracking_clients", "clients_in_timeout_table"},
	"memory":      {"used_memory", "used_memory_human", "used_memory_rss", "used_memory_rss_human", "used_memory_peak", "used_memory_peak_human", "used_memory_peak_perc", "used_memory_overhead", "used_memory_startup", "used_memory_dataset", "used_memory_dataset_perc", "allocator_allocated", "allocator_active", "allocator_resident", "total_system_memory", "total_system_memory_human", "used_memory_lua", "used_memory_vm_eval", "used_memory_lua_human", "used_memory_scripts_eval", "number_of_cached_scripts", "number_of_functions", "number_of_libraries", "used_memory_vm_functions", "used_memory_vm_total", "used_memory_vm_total_human", "used_memory_functions", "used_memory_scripts", "used_memory_scripts_human", "maxmemory", "maxmemory_human", "maxmemory_policy", "allocator_frag_ratio", "allocator_frag_bytes", "allocator_rss_ratio", "allocator_rss_bytes", "rss_overhead_ratio", "rss_overhead_bytes", "mem_fragmentation_ratio", "mem_fragmentation_bytes", "mem_not_counted_for_evict", "mem_replication_backlog", "mem_total_replication_buffers", "mem_clients_slaves", "mem_clients_normal", "mem_cluster_links", "mem_aof_buffer", "mem_allocator", "active_defrag_running", "lazyfree_pending_objects", "lazyfreed_objects"},
	"persistence": {"loading", "async_loading", "current_cow_peak", "current_cow_size", "current_cow_size_age", "current_fork_perc", "current_save_keys_processed", "current_save_keys_total", "rdb_changes_since_last_save", "rdb_bgsave_in_progress", "rdb_last_save_time", "rdb_last_bgsave_status", "rdb_last_bgsave_time_sec", "rdb_current_bgsave_time_sec", "rdb_saves", "rdb_last_cow_size", "rdb_last_load_keys_expired", "rdb_last_load_keys_loaded", "aof_enabled", "aof_rewrite_in_progress", "aof_rewrite_scheduled", "aof_last_rewrite_time_sec", "aof_current_rewrite_time_sec", "aof_last_bgrewrite_status", "aof_rewrites", "aof_rewrites_consecutive_failures", "aof_last_write_status", "aof_last_cow_size", "module_fork_in_progress", "module_fork_last_cow_size"},
	"stats":       {"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec", "total_net_input_bytes", "total_net_output_bytes", "total_net_repl_input_bytes", "total_net_repl_output_bytes", "instantaneous_input_kbps", "instantaneous_output_kbps", "instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps", "rejected_connections", "sync_full", "sync_partial_ok", "sync_partial_err", "expired_keys", "expired_stale_perc", "expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds", "evicted_keys", "evicted_clients", "total_eviction_exceeded_time", "current_eviction_exceeded_time", "keyspace_hits", "keyspace_misses", "pubsub_channels", "pubsub_patterns", "pubsubshard_channels", "latest_fork_usec", "total_forks", "migrate_cached_sockets", "slave_expires_tracked_keys", "active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits", "active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time", "tracking_total_keys", "tracking_total_items", "tracking_total_prefixes", "unexpected_error_replies", "total_error_replies", "dump_payload_sanitizations", "total_reads_processed", "total_writes_processed", "io_threaded_reads_processed", "io_threaded_writes_processed", "reply_buffer_shrinks", "reply_buffer_expands"},
	"replication": {"role", "connected_slaves", "master_failover_state", "master_replid", "master_replid2", "master_repl_offset", "second_repl_offset", "repl_backlog_active", "repl_backlog_size", "repl_backlog_first_byte_offset", "repl_backlog_histlen"},
	"cpu":         {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children", "used_cpu_sys_main_thread", "used_cpu_user_main_thread"},
	"cluster":     {"cluster_enabled"},
}

// infoNotMeasured are Redis fields INFO leaves out because the server does
// not measure the figure yet; a made-up value would mislead.
var infoNotMeasured = map[string]string{
	"current_cow_peak":               "snapshot copy-on-write is not measured",
	"current_cow_size":               "snapshot copy-on-write is not measured",
	"current_cow_size_age":           "snapshot copy-on-write is not measured",
	"current_fork_perc":              "snapshot progress is not measured",
	"current_save_keys_processed":    "snapshot progress is not measured",
	"current_save_keys_total":        "snapshot progress is not measured",
	"rdb_saves":                      "snapshots are not counted",
	"rdb_last_cow_size":              "snapshot copy-on-write is not measured",
	"rdb_last_load_keys_expired":     "recovery does not count keys",
	"rdb_last_load_keys_loaded":      "recovery does not count keys",
	"expired_stale_perc":             "the expiry cycle keeps no estimate",
	"expired_time_cap_reached_count": "the expiry cycle keeps no counters",
	"expire_cycle_cpu_milliseconds":  "the expiry cycle keeps no counters",
	"total_reads_processed":          "the network layer does not count reads",
	"total_writes_processed":         "the network layer does not count writes",
	"reply_buffer_shrinks":           "no resizable reply buffer of Redis's kind",
	"reply_buffer_expands":           "no resizable reply buffer of Redis's kind",
	"used_cpu_sys_main_thread":       "no main thread: shards are goroutines",
	"used_cpu_user_main_thread":      "no main thread: shards are goroutines",
}

// parseInfo splits an INFO text into the field names of each section.
func parseInfo(text string) map[string][]string {
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(text, "\r\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			cur = strings.ToLower(line[2:])
			out[cur] = []string{}
		case cur != "" && strings.Contains(line, ":"):
			name, _, _ := strings.Cut(line, ":")
			out[cur] = append(out[cur], name)
		}
	}
	return out
}

// TestInfoFieldsMatchRedis checks that every section of INFO has every
// field redis-server 7.0.15 prints, in Redis's relative order, except the
// figures listed in infoNotMeasured.
func TestInfoFieldsMatchRedis(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	reply := srvRun(sh, 2, "INFO", "everything")
	got := parseInfo(reply)
	for sec, want := range redisInfoFields {
		have, ok := got[sec]
		if !ok {
			t.Errorf("INFO lacks section %s", sec)
			continue
		}
		prev := -1
		for _, f := range want {
			i := slices.Index(have, f)
			if i < 0 {
				if infoNotMeasured[f] == "" {
					t.Errorf("INFO %s lacks %s", sec, f)
				}
				continue
			}
			if infoNotMeasured[f] != "" {
				t.Errorf("INFO %s has %s, listed as not measured", sec, f)
			}
			if i < prev {
				t.Errorf("INFO %s: %s out of Redis's order", sec, f)
			}
			prev = i
		}
	}
	for _, want := range []string{"\r\nmigrate_cached_sockets:0\r\n", "\r\nnumber_of_libraries:0\r\n", "\r\naof_rewrites:0\r\n", "\r\ngcc_version:0.0.0\r\n"} {
		if !strings.Contains(reply, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
}

// TestInfoTotalErrorReplies checks that total_error_replies counts the
// shard's error replies, as errorstats does.
func TestInfoTotalErrorReplies(t *testing.T) {
	sh, _ := srvTestShard(t, 1, 0, nil)
	srvRun(sh, 2, "INCR")
	srvRun(sh, 2, "NOSUCHCOMMAND")
	reply := srvRun(sh, 2, "INFO", "stats")
	if !strings.Contains(reply, "\r\ntotal_error_replies:2\r\n") {
		t.Errorf("INFO stats after two errors: %q", reply)
	}
}
