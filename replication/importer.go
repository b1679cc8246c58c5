package replication

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/persistence"
)

// An import is the receiving side of a slot migration: it copies a slot
// range from the shard that sends it, then follows that shard's log until
// it has caught up, has the sender freeze the range's writes, and returns
// once every record up to the freeze is applied. On the sender's port:
//
//	SLOTMOVE SYNC <id>    the stream of a full resync (frames as above)
//	SLOTMOVE SEQ <id>     the last sequence of the sender's log
//	SLOTMOVE FREEZE <id>  holds the range's writes; the last sequence
//
// The range is filtered on the receiving side: the sink skips what is not
// in it.

// ImportSink is what an import hands the keyspace.
type ImportSink interface {
	// Entry receives one key of the sender's snapshot.
	Entry(db uint16, kind uint8, key, value []byte, deadlineMs int64) error
	// EndEntries is called once the snapshot is read: buffered entries
	// go to the keyspace.
	EndEntries() error
	// Records applies records of the sender's log and returns the
	// sequence of the last one.
	Records(recs []byte) (uint64, error)
}

// ImportOptions configure an import.
type ImportOptions struct {
	// Addr is the sending shard's client address, host:port.
	Addr string
	User string
	Pass string
	// ID is the migration's id.
	ID uint64
	// FS and Dir hold the sender's snapshot while it is read (a
	// directory of its own, removed afterwards).
	FS  persistence.FS
	Dir string
	// Shard is the sending shard's index (its snapshot's name).
	Shard int
	Log   *zap.Logger
	// MaxLag is how many records behind the sender's log the import may
	// be when it asks for the freeze (the writes of the range wait while
	// those arrive).
	MaxLag uint64
	// FreezeWait bounds the wait for the records up to the freeze.
	FreezeWait time.Duration
	// Timeout bounds each request and read on the connections.
	Timeout time.Duration
}

// ImportResult describes a finished import.
type ImportResult struct {
	SnapshotSeq uint64
	FreezeSeq   uint64
	// FrozenAt is when the sender answered the freeze.
	FrozenAt time.Time
	// CaughtUpAt is when the last record up to the freeze was applied.
	CaughtUpAt time.Time
}

// Import runs an import until every record up to the freeze is applied,
// or fails; ctx ends it early.
func Import(ctx context.Context, o ImportOptions, sink ImportSink) (ImportResult, error) {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.FreezeWait <= 0 {
		o.FreezeWait = 5 * time.Second
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	var res ImportResult
	conn, br, err := startSync(ctx, o)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	fr := NewFrameReader(br)
	typ, payload, err := fr.Next(0)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	if typ != FrameFull || len(payload) < 16 {
		return res, fmt.Errorf("%w: an import starts with a full-resync frame, got %q", ErrCorruptStream, typ)
	}
	seq := binary.LittleEndian.Uint64(payload)
	size := int64(binary.LittleEndian.Uint64(payload[8:]))
	res.SnapshotSeq = seq
	if err := receiveImportSnapshot(conn, fr, o, seq, size, sink); err != nil {
		return res, err
	}
	o.Log.Info("import: copy loaded", zap.Uint64("id", o.ID), zap.Uint64("snapshot_seq", seq), zap.Int64("bytes", size))

	// The records: applied here; the probe and the freeze on a second
	// connection.
	var applied atomic.Uint64
	applied.Store(seq)
	progress := make(chan struct{}, 1)
	readErr := make(chan error, 1)
	go func() {
		for {
			_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			typ, payload, err := fr.Next(applied.Load())
			if err != nil {
				readErr <- err
				return
			}
			if typ == FrameRecords && len(payload) > 0 {
				last, err := sink.Records(payload)
				if err != nil {
					readErr <- err
					return
				}
				applied.Store(last)
				select {
				case progress <- struct{}{}:
				default:
				}
			} else if typ != FramePing {
				readErr <- fmt.Errorf("%w after sequence %d: unexpected frame %q", ErrCorruptStream, applied.Load(), typ)
				return
			}
		}
	}()
	ctl, cbr, err := dialSender(o)
	if err != nil {
		return res, err
	}
	defer ctl.Close()
	stopCtl := context.AfterFunc(ctx, func() { _ = ctl.Close() })
	defer stopCtl()
	probe := time.NewTicker(20 * time.Millisecond)
	defer probe.Stop()
	for {
		senderSeq, err := request(ctl, cbr, o.Timeout, "SLOTMOVE", "SEQ", strconv.FormatUint(o.ID, 10))
		if err != nil {
			return res, err
		}
		if senderSeq <= applied.Load()+o.MaxLag {
			break
		}
		select {
		case err := <-readErr:
			return res, fmt.Errorf("import: the stream from the sender: %w", err)
		case <-ctx.Done():
			return res, ctx.Err()
		case <-probe.C:
		}
	}
	freeze, err := request(ctl, cbr, o.Timeout, "SLOTMOVE", "FREEZE", strconv.FormatUint(o.ID, 10))
	if err != nil {
		return res, err
	}
	res.FreezeSeq, res.FrozenAt = freeze, time.Now()
	deadline := time.NewTimer(o.FreezeWait)
	defer deadline.Stop()
	for applied.Load() < freeze {
		select {
		case <-progress:
		case err := <-readErr:
			return res, fmt.Errorf("import: the stream from the sender: %w", err)
		case <-deadline.C:
			return res, fmt.Errorf("import: the records up to the freeze (%d) did not arrive within %v (at %d)", freeze, o.FreezeWait, applied.Load())
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
	res.CaughtUpAt = time.Now()
	return res, nil
}

// startSync connects to the sender and starts the stream. The sender may
// not have applied the migration yet when the receiver starts: a refusal
// is retried for o.Timeout.
func startSync(ctx context.Context, o ImportOptions) (net.Conn, *bufio.Reader, error) {
	deadline := time.Now().Add(o.Timeout)
	for {
		conn, br, err := dialSender(o)
		if err != nil {
			return nil, nil, err
		}
		if _, err := conn.Write(command("SLOTMOVE", "SYNC", strconv.FormatUint(o.ID, 10))); err != nil {
			_ = conn.Close()
			return nil, nil, fmt.Errorf("import: SLOTMOVE SYNC: %w", err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(o.Timeout))
		first, err := br.Peek(1)
		if err != nil {
			_ = conn.Close()
			return nil, nil, fmt.Errorf("import: SLOTMOVE SYNC: %w", err)
		}
		if first[0] != '-' {
			return conn, br, nil
		}
		line, _ := br.ReadString('\n')
		_ = conn.Close()
		err = fmt.Errorf("import: the sender refused SLOTMOVE SYNC: %s", strings.TrimSpace(strings.TrimPrefix(line, "-")))
		if time.Now().After(deadline) {
			return nil, nil, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dialSender connects to the sender's port and authenticates.
func dialSender(o ImportOptions) (net.Conn, *bufio.Reader, error) {
	conn, err := net.DialTimeout("tcp", o.Addr, o.Timeout)
	if err != nil {
		return nil, nil, fmt.Errorf("import: connecting to the sender %s: %w", o.Addr, err)
	}
	br := bufio.NewReaderSize(conn, 1<<20)
	if o.Pass != "" {
		args := []string{"AUTH", o.Pass}
		if o.User != "" {
			args = []string{"AUTH", o.User, o.Pass}
		}
		_ = conn.SetDeadline(time.Now().Add(o.Timeout))
		if _, err := conn.Write(command(args...)); err != nil {
			_ = conn.Close()
			return nil, nil, fmt.Errorf("import: AUTH: %w", err)
		}
		line, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "+OK") {
			_ = conn.Close()
			return nil, nil, fmt.Errorf("import: AUTH refused by the sender: %q %v", strings.TrimSpace(line), err)
		}
		_ = conn.SetDeadline(time.Time{})
	}
	return conn, br, nil
}

// request sends a command that answers an integer.
func request(conn net.Conn, br *bufio.Reader, timeout time.Duration, args ...string) (uint64, error) {
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write(command(args...)); err != nil {
		return 0, fmt.Errorf("import: %s %s: %w", args[0], args[1], err)
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("import: %s %s: %w", args[0], args[1], err)
	}
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, ":") {
		return 0, fmt.Errorf("import: the sender answered %s %s with %q", args[0], args[1], line)
	}
	return strconv.ParseUint(line[1:], 10, 64)
}

// receiveImportSnapshot writes the sender's snapshot to a directory of
// its own and hands its entries to the sink.
func receiveImportSnapshot(conn net.Conn, fr *FrameReader, o ImportOptions, seq uint64, size int64, sink ImportSink) error {
	if size == 0 {
		return sink.EndEntries()
	}
	if err := o.FS.MkdirAll(o.Dir); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer func() { _ = persistence.RemoveShardFiles(o.FS, o.Dir, o.Shard); _ = o.FS.Remove(o.Dir) }()
	path := filepath.Join(o.Dir, persistence.SnapshotName(o.Shard, seq))
	f, err := o.FS.Create(path)
	if err != nil {
		return fmt.Errorf("import: create %s: %w", path, err)
	}
	deadline := func() { _ = conn.SetReadDeadline(time.Now().Add(o.Timeout + 25*time.Second)) }
	deadline()
	if err := copySnapshotFrames(fr, f, path, seq, size, deadline); err != nil {
		_ = f.Close()
		return fmt.Errorf("import: the sender's snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("import: close %s: %w", path, err)
	}
	if _, _, err := persistence.LoadSnapshot(o.FS, o.Dir, o.Shard, o.Log, sink.Entry); err != nil {
		return fmt.Errorf("import: reading the sender's snapshot: %w", err)
	}
	return sink.EndEntries()
}
