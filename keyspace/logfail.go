package keyspace

import (
	"errors"
	"math"
	"strconv"

	"go.uber.org/zap"
)

// What a shard promises once its log fails (a WAL write or fsync error):
//
//   - A reply never leaves that depends on a record the log did not make
//     durable. Under fsync = always replies wait for the fsync of their
//     group; when it fails, every batch of the failed groups is settled by
//     what its replies saw (replyDep): the replies that depend only on
//     durable records leave as they are, the first one that does not is
//     replaced by an error (a write's "not acknowledged", a read's IOERR,
//     never a write error for a read) and the connection is closed, since
//     the replies after it are dropped.
//   - The log cuts its file back to its durable records (persistence
//     dropUndurable), so a restart loads none of the refused writes.
//   - A shard whose memory holds mutations that were never made durable
//     (tainted) serves none of its data from then on: writes are refused
//     with MISCONF and every command that needs the data (all but those
//     flagged stale, which are allowed on a stale replica too) with IOERR,
//     SAVE and BGSAVE included, and a snapshot in progress is abandoned. An
//     operator restart reloads the durable state, as Redis exits on such a
//     failure. A shard whose memory holds only durable records (a failed
//     background fsync under fsync = everysec, with every write
//     acknowledged already) still serves reads.

// logFailure is what the shard goroutine learnt of its log's failure.
type logFailure struct {
	err error
	// tainted is set when memory held records the log never made durable
	// at the moment the shard saw the failure.
	tainted bool
}

// errSnapshotLogFailed abandons a snapshot of a tainted shard.
var errSnapshotLogFailed = errors.New("keyspace: the write-ahead log failed: the snapshot would hold writes that were never made durable")

// observeLogFailure returns the log's failure as the shard knows it, first
// noting it if the log has failed since; nil while the log is healthy.
// Shard goroutine (token holder) only.
func (sh *Shard) observeLogFailure() *logFailure {
	if sh.logFail != nil || sh.Journal == nil {
		return sh.logFail
	}
	err := sh.Journal.Err()
	if err == nil {
		return nil
	}
	last, durable := sh.Journal.Sequences()
	f := &logFailure{err: err, tainted: last > durable}
	sh.logFail = f
	if !f.tainted {
		sh.Logger().Error("write-ahead log failed: writes are refused until the server restarts", zap.Error(err))
		return f
	}
	sh.Logger().Error("write-ahead log failed with writes in memory it never made durable: the shard serves no data until the server restarts",
		zap.Uint64("last_sequence", last), zap.Uint64("durable_sequence", durable), zap.Error(err))
	sh.abandonSnapshot()
	return f
}

// lostWrites handles a command that appended records (from off in b's
// output) and found the log failed once it ran: its reply, and those after
// it, are never released, and the shard's memory holds what it did.
func (sh *Shard) lostWrites(b *Batch, off int) {
	b.deps = append(b.deps, replyDep{off: off, dep: math.MaxUint64, write: sh.ranWrite})
	if f := sh.observeLogFailure(); !f.tainted {
		// A dropped record leaves the last sequence where it was: the
		// failure looked as if memory held nothing undurable.
		f.tainted = true
		sh.abandonSnapshot()
	}
}

// abandonSnapshot stops a snapshot in progress of a tainted shard: it may
// hold the refused writes, and must never be published.
func (sh *Shard) abandonSnapshot() {
	if sh.Snap != nil {
		sh.Snap.err = errSnapshotLogFailed
		sh.endSnapshotScan()
	}
}

// tainted reports whether the shard has seen its log fail with mutations
// in memory that were never made durable.
func (sh *Shard) tainted() bool { return sh.logFail != nil && sh.logFail.tainted }

// unservedError is the refusal of a command that needs the data of a
// tainted shard.
func (sh *Shard) unservedError() string {
	return "IOERR the write-ahead log of shard " + strconv.Itoa(sh.Idx) + " failed: " + sh.logFail.err.Error() +
		". Its memory holds writes that were never made durable, so it serves no data until an operator restarts the server"
}

// servedWhileTainted reports whether a command may run on a tainted shard:
// one flagged stale (it does not read the data, or, EVAL and FCALL, its
// calls are checked one by one), and for EXEC only when every queued
// command is.
func servedWhileTainted(c *Client, cmd *Command, args [][]byte) bool {
	if cmd.Called(args).Flags&FlagStale == 0 {
		return false
	}
	if cmd.Name == "exec" && c.Tx.Multi {
		for _, q := range c.Tx.Queued {
			if q.Cmd.Called(q.Args).Flags&FlagStale == 0 {
				return false
			}
		}
	}
	return true
}

// replyDep says that the replies of a batch from offset off in its output
// on depend on the log up to sequence dep; write says the reply at off is
// a write command's. Entries are appended in output order with dep
// non-decreasing, so the replies a failed log must not release are those
// from the first entry whose dep it did not make durable.
type replyDep struct {
	off   int
	dep   uint64
	write bool
}

// noteDep records that the replies of b from off on depend on every record
// appended so far.
func (sh *Shard) noteDep(b *Batch, off int, write bool) {
	last, _ := sh.Journal.Sequences()
	if n := len(b.deps); n > 0 && b.deps[n-1].dep == last && !write {
		return // nothing new to depend on
	}
	b.deps = append(b.deps, replyDep{off: off, dep: last, write: write})
}

// settleFailed prepares b, a batch of a group whose log write or fsync
// failed (durable is the log's final durable sequence), for delivery: the
// replies from the first one that depends on a record that is not durable
// are replaced by one error and the connection is closed after it.
// Batches that ran after the shard had seen the failure have no entries:
// their commands were checked against it.
func settleFailed(sh *Shard, b *Batch, durable uint64, err error) {
	for i, d := range b.deps {
		if d.dep <= durable {
			continue
		}
		if d.off >= len(b.Out.Buf) {
			return // no reply depends on it (the batch's last command parked, or was silenced)
		}
		// The reply cut is a write's when the entry, or the next one at
		// the same offset (the write that appended), says so.
		write := d.write || i+1 < len(b.deps) && b.deps[i+1].off == d.off && b.deps[i+1].write
		b.Out.Buf = b.Out.Buf[:d.off]
		if write {
			b.Out.Error("ERR write-ahead log failed, the write was not acknowledged: " + err.Error())
		} else {
			b.Out.Error("IOERR this read saw writes that the write-ahead log of shard " + strconv.Itoa(sh.Idx) +
				" failed to make durable: " + err.Error() + ". The shard serves no data until an operator restarts the server")
		}
		b.CloseAfter = true
		return
	}
}
