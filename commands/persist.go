package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"strconv"
	"time"

	"github.com/ruvio/ruvio/persistence"
)

// persistenceInfo returns the lines of INFO persistence for sh: the Redis
// fields clients and tools read, then the WAL and snapshot state.
func persistenceInfo(sh *keyspace.Shard) []infoField {
	st := sh.SnapStatus
	lastSave := st.LastTime
	if lastSave == 0 {
		lastSave = sh.Srv.Started.Unix()
	}
	inProgress := sh.Snap != nil || sh.SnapFinishing
	status := st.LastStatus
	if status == "" {
		status = "ok"
	}
	lastDur := int64(-1)
	if st.LastDuration > 0 {
		lastDur = int64(st.LastDuration / time.Second)
	}
	cur := int64(-1)
	if sh.Snap != nil {
		cur = int64(sh.Srv.Now().Sub(sh.Snap.Started) / time.Second)
	}
	j, ok := sh.Journal.(*keyspace.WALJournal)
	var ws persistence.WALStats
	changes := uint64(0)
	if ok {
		ws = j.WAL.Stats()
		changes = ws.LastSequence - st.LastSeq
	}
	writeStatus := "ok"
	if ok && j.WAL.Err() != nil {
		writeStatus = "err"
	}
	f := []infoField{
		{"loading", "0"},
		{"async_loading", "0"},
		{"rdb_changes_since_last_save", u64(changes)},
		{"rdb_bgsave_in_progress", boolDigit(inProgress)},
		{"rdb_last_save_time", i64(lastSave)},
		{"rdb_last_bgsave_status", status},
		{"rdb_last_bgsave_time_sec", i64(lastDur)},
		{"rdb_current_bgsave_time_sec", i64(cur)},
		{"aof_enabled", boolDigit(ok)},
		// The WAL's rewrite is a snapshot (BGREWRITEAOF).
		{"aof_rewrite_in_progress", boolDigit(inProgress)},
		{"aof_rewrite_scheduled", boolDigit(ok && j.RewriteScheduled)},
		{"aof_last_write_status", writeStatus},
	}
	if !ok {
		return append(f, infoField{"wal_enabled", "0"})
	}
	cmdsPerFsync := "0.00"
	if ws.Fsyncs > 0 {
		cmdsPerFsync = strconv.FormatFloat(float64(j.GroupedCommands.Load())/float64(ws.Fsyncs), 'f', 2, 64)
	}
	walErr := ""
	if err := j.WAL.Err(); err != nil {
		walErr = err.Error()
	}
	return append(f,
		infoField{"wal_enabled", "1"},
		infoField{"wal_fsync_policy", j.Opts.Policy.String()},
		infoField{"wal_last_sequence", u64(ws.LastSequence)},
		infoField{"wal_durable_sequence", u64(ws.DurableSequence)},
		infoField{"wal_segments", i64(int64(ws.Segments))},
		infoField{"wal_bytes", u64(ws.Bytes)},
		infoField{"wal_records", u64(ws.Records)},
		infoField{"wal_fsyncs", u64(ws.Fsyncs)},
		infoField{"wal_last_fsync_latency_us", i64(ws.LastFsyncLatency.Microseconds())},
		infoField{"wal_avg_fsync_latency_us", i64(ws.AvgFsyncLatency.Microseconds())},
		infoField{"wal_commands_per_fsync", cmdsPerFsync},
		infoField{"wal_commit_delay_max_us", i64(commitDelayMax(sh).Microseconds())},
		infoField{"wal_commit_delays", u64(ws.CommitDelays)},
		infoField{"wal_commit_delays_early", u64(ws.CommitDelaysEarly)},
		infoField{"wal_inline_syncs", u64(ws.InlineSyncs)},
		infoField{"wal_commit_delay_total_us", i64(ws.CommitDelayTotal.Microseconds())},
		infoField{"wal_commit_delay_avg_us", i64(avgDelay(ws).Microseconds())},
		infoField{"wal_records_per_fsync", strconv.FormatFloat(ws.AvgRecordsPerFsync, 'f', 2, 64)},
		infoField{"wal_error", walErr},
		infoField{"snapshot_in_progress", boolDigit(inProgress)},
		infoField{"snapshot_last_time", i64(st.LastTime)},
		infoField{"snapshot_last_duration_ms", i64(st.LastDuration.Milliseconds())},
		infoField{"snapshot_last_size", i64(st.LastSize)},
		infoField{"snapshot_last_sequence", u64(st.LastSeq)},
		infoField{"snapshot_last_status", status},
		infoField{"recovery_time_ms", i64(j.Recovery.Milliseconds())},
		infoField{"recovery_wal_records", i64(j.RecoveredRecords)},
	)
}

// commitDelayMax is the configured commit-delay bound (0 without settings).
func commitDelayMax(sh *keyspace.Shard) time.Duration {
	if live := sh.Srv.Opts.Live; live != nil {
		return live.CommitDelayMax()
	}
	return 0
}

// avgDelay is the mean time a delayed group was held back.
func avgDelay(ws persistence.WALStats) time.Duration {
	if ws.CommitDelays == 0 {
		return 0
	}
	return ws.CommitDelayTotal / time.Duration(ws.CommitDelays)
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

func i64(v int64) string { return strconv.FormatInt(v, 10) }

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
