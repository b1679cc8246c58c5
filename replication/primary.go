package replication

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/persistence"
)

// Stream is a replica's connection as the sender writes to it.
type Stream interface {
	// Write queues b, which is not modified afterwards; false once the
	// connection is gone.
	Write(b []byte) bool
	// Pending is the bytes queued and not yet in the socket.
	Pending() int64
	// Close closes the connection.
	Close()
}

// Sender tuning.
const (
	// maxFrameRecords is about how many record bytes one 'R' frame holds.
	maxFrameRecords = 256 << 10
	// snapshotChunk is the size of a 'D' frame.
	snapshotChunk = 256 << 10
	// maxPending is how many bytes a sender lets wait for the replica's
	// socket before it waits itself (well under the replica class's
	// output limits).
	maxPending = 8 << 20
	// pingEvery is how often an idle stream carries a ping.
	pingEvery = time.Second
)

// Primary streams the shards of a primary to their replicas.
type Primary struct {
	fs      persistence.FS
	dir     string
	log     *zap.Logger
	durable func(shard int) uint64
	replID  func(shard int) string
	feeds   []*feed
}

// feed wakes the senders of one shard when its durable sequence advances.
type feed struct {
	// full, partialOK and partialErr count the shard's synchronisations: full
	// ones, resumes, and resumes asked for that became full ones.
	full, partialOK, partialErr atomic.Int64

	mu sync.Mutex
	ch chan struct{}
	// taken is set once wait handed ch out: a notify with no sender
	// waiting (no replica, the usual case) has nothing to close, and
	// makes no new channel on the commit path.
	taken bool
}

func newFeed() *feed { return &feed{ch: make(chan struct{})} }

// wait returns a channel closed at the next notify.
func (f *feed) wait() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.taken = true
	return f.ch
}

func (f *feed) notify() {
	f.mu.Lock()
	if f.taken {
		close(f.ch)
		f.ch = make(chan struct{})
		f.taken = false
	}
	f.mu.Unlock()
}

// NewPrimary returns the sending side for shards shards whose logs and
// snapshots are in dir; durable reports a shard's durable sequence and
// replID its history id.
func NewPrimary(fs persistence.FS, dir string, shards int, durable func(int) uint64, replID func(int) string, log *zap.Logger) *Primary {
	p := &Primary{fs: fs, dir: dir, log: log, durable: durable, replID: replID}
	for i := 0; i < shards; i++ {
		p.feeds = append(p.feeds, newFeed())
	}
	if p.log == nil {
		p.log = zap.NewNop()
	}
	return p
}

// SyncCounts returns shard's counts of full synchronisations, of resumes,
// and of resumes asked for that had to be full synchronisations (Redis's
// sync_full, sync_partial_ok and sync_partial_err).
func (p *Primary) SyncCounts(shard int) (full, partialOK, partialErr int64) {
	if shard < 0 || shard >= len(p.feeds) {
		return 0, 0, 0
	}
	f := p.feeds[shard]
	return f.full.Load(), f.partialOK.Load(), f.partialErr.Load()
}

// Durable is the WAL hook: shard's durable sequence advanced.
func (p *Primary) Durable(shard int, _ uint64) {
	if shard < len(p.feeds) {
		p.feeds[shard].notify()
	}
}

// Serve streams shard's records after `after` to out on a goroutine of
// its own until out fails; then it closes out.
func (p *Primary) Serve(shard int, after uint64, out Stream) {
	go func() {
		err := p.send(shard, after, out)
		log := p.log.With(zap.Int("shard", shard))
		if err != nil && !errors.Is(err, errGone) {
			log.Warn("replication: stream to a replica ended", zap.Error(err))
		} else {
			log.Info("replication: replica disconnected")
		}
		out.Close()
	}()
}

// errGone ends a sender whose replica connection went away.
var errGone = errors.New("replication: replica connection closed")

func (p *Primary) write(out Stream, b []byte) error {
	for out.Pending() > maxPending {
		time.Sleep(2 * time.Millisecond)
		if !out.Write(nil) {
			return errGone
		}
	}
	if !out.Write(b) {
		return errGone
	}
	return nil
}

func u64s(vs ...uint64) []byte {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func (p *Primary) send(shard int, after uint64, out Stream) error {
	log := p.log.With(zap.Int("shard", shard))
	durable := p.durable(shard)
	var rd *persistence.WALReader
	if after <= durable {
		r, err := persistence.OpenWALReader(p.fs, p.dir, shard, after)
		if err != nil && !errors.Is(err, persistence.ErrUnavailable) {
			return err
		}
		rd = r
	}
	if rd != nil {
		p.feeds[shard].partialOK.Add(1)
		log.Info("replication: partial resync", zap.Uint64("after", after), zap.Uint64("durable", durable))
		if err := p.write(out, AppendFrame(nil, FrameContinue, u64s(after))); err != nil {
			rd.Close()
			return err
		}
	} else {
		p.feeds[shard].full.Add(1)
		if after > 0 {
			// The replica asked to resume from a point this log no longer holds.
			p.feeds[shard].partialErr.Add(1)
		}
		seq, err := p.sendSnapshot(shard, out)
		if err != nil {
			return err
		}
		log.Info("replication: full resync", zap.Uint64("replica_after", after), zap.Uint64("snapshot_seq", seq))
		after = seq
		if rd, err = persistence.OpenWALReader(p.fs, p.dir, shard, after); err != nil {
			return fmt.Errorf("records after the snapshot at %d: %w", seq, err)
		}
	}
	defer rd.Close()
	sent := after
	lastWrite := time.Now()
	for {
		wake := p.feeds[shard].wait()
		d := p.durable(shard)
		buf, start := beginFrame(nil, FrameRecords)
		buf, last, err := rd.Next(buf, d, maxFrameRecords)
		progressed := last > sent
		if progressed {
			if err := p.write(out, endFrame(buf, start)); err != nil {
				return err
			}
			sent = last
			lastWrite = time.Now()
		}
		if err != nil {
			return err
		}
		if last < d && progressed {
			continue // more than one frame's worth is ready
		}
		if time.Since(lastWrite) >= pingEvery {
			if err := p.write(out, AppendFrame(nil, FramePing, u64s(d))); err != nil {
				return err
			}
			lastWrite = time.Now()
		}
		select {
		case <-wake:
		case <-time.After(pingEvery):
		}
	}
}

// sendSnapshot streams the newest snapshot of shard (or an empty state at
// sequence 0 when there is none and the log starts at 1) and returns its
// sequence.
func (p *Primary) sendSnapshot(shard int, out Stream) (uint64, error) {
	path, seq, ok, err := persistence.LatestSnapshot(p.fs, p.dir, shard)
	if err != nil {
		return 0, err
	}
	if !ok {
		// No snapshot: the log must hold everything from sequence 1.
		if err := p.write(out, AppendFrame(nil, FrameFull, append(u64s(0, 0), p.replID(shard)...))); err != nil {
			return 0, err
		}
		return 0, nil
	}
	f, err := p.fs.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open snapshot %s: %w", path, err)
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return 0, fmt.Errorf("size of snapshot %s: %w", path, err)
	}
	if err := p.write(out, AppendFrame(nil, FrameFull, append(u64s(seq, uint64(size)), p.replID(shard)...))); err != nil {
		return 0, err
	}
	var off int64
	for off < size {
		n := min(int64(snapshotChunk), size-off)
		buf, start := beginFrame(make([]byte, 0, frameHeaderSize+n), FrameData)
		buf = buf[:len(buf)+int(n)]
		if got, err := f.ReadAt(buf[frameHeaderSize:], off); int64(got) < n {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return 0, fmt.Errorf("read snapshot %s at %d: %w", path, off, err)
		}
		if err := p.write(out, endFrame(buf, start)); err != nil {
			return 0, err
		}
		off += n
	}
	return seq, nil
}
