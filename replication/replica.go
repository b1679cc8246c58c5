package replication

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/persistence"
)

// Target is the replica process's keyspace as a follower drives it.
type Target interface {
	// ReplicationShards is the process's shard count.
	ReplicationShards() int
	// LastSequence is the last sequence shard's log holds.
	LastSequence(shard int) uint64
	// DurableSequence is the last sequence shard's log made durable in
	// its fsync policy's sense (under everysec and no: written).
	DurableSequence(shard int) uint64
	// SyncedSequence is the last sequence shard's log has fsynced, with
	// every record before it: what the replica acknowledges.
	SyncedSequence(shard int) uint64
	// SyncForAck fsyncs shard's log if its policy never does (fsync no).
	SyncForAck(shard int) error
	// ApplyReplicated applies and logs encoded records on shard.
	ApplyReplicated(shard int, epoch uint64, recs []byte) error
	// InstallReplicaSnapshot replaces shard's state and log with the
	// snapshot file at path at seq (path "" and seq 0: empty), and then
	// takes replID as the shard's history id.
	InstallReplicaSnapshot(shard int, epoch uint64, path string, seq uint64, replID string) error
	// ReplID is the history id of shard's log.
	ReplID(shard int) string
}

// FollowerOptions configure a Follower.
type FollowerOptions struct {
	Host string
	Port int // the primary's shard 0; shard i is Port+i
	User string
	Pass string
	// Credentials, when set, gives the user and password at each connection
	// instead of User and Pass, so that a change (CONFIG SET masterauth)
	// applies when the link next connects.
	Credentials func() (user, pass string)
	// SourceAddr, when set, gives the local IP address to dial from at each
	// connection ("" for the kernel's choice), as Redis's bind-source-addr.
	SourceAddr func() string
	// Epoch tags the follower's calls of the Target.
	Epoch uint64
	FS    persistence.FS
	Dir   string
	Log   *zap.Logger
	// Retry is the pause before a dropped link reconnects (250ms).
	Retry time.Duration
	// ListenPort is the replica's own shard 0 port, announced with
	// REPLCONF listening-port (shard i announces ListenPort+i); 0: none.
	ListenPort int
	// Announce, when set, is read at every handshake: a non-empty ip is
	// announced with REPLCONF ip-address, a non-zero port replaces
	// ListenPort (shard i announces port+i), as replica-announce-ip and
	// replica-announce-port.
	Announce func() (ip string, port int)
	// NodeIDs are the replica's node ids by shard, announced with
	// REPLCONF ruvio-node-id so the primary's CLUSTER SHARDS lists them.
	NodeIDs []string
	// RunID is the replica process's run id, announced with REPLCONF
	// ruvio-run-id: a primary that is this process, or that replicates
	// from it, is a loop and refused ("" announces none).
	RunID string
	// Dial, when set, opens the connection to a primary's shard with d
	// (its timeout and source address), over TLS with tls-replication;
	// nil dials plain TCP with d.
	Dial func(d *net.Dialer, addr string) (net.Conn, error)
}

// Follower keeps every shard of a replica following its primary.
type Follower struct {
	opts   FollowerOptions
	target Target
	links  []*link
	stop   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
}

// link is one shard's connection to its primary shard.
type link struct {
	f     *Follower
	shard int
	log   *zap.Logger

	up         atomic.Bool
	syncing    atomic.Bool
	lastIO     atomic.Int64 // unix nanoseconds
	primarySeq atomic.Uint64
	downSince  atomic.Int64
	// durable is signalled when the shard's durable sequence advances.
	durable chan struct{}

	mu   sync.Mutex
	conn net.Conn // mu guards
	// chain is the run ids of the primary and of those it replicates
	// from, as its answer to REPLCONF ruvio-run-id listed them; mu guards.
	chain []string
}

// DropLink closes shard's connection to its primary, if it has one; the
// link reconnects (and resumes) as after any drop. It reports whether a
// connection was closed.
func (f *Follower) DropLink(shard int) bool {
	if shard < 0 || shard >= len(f.links) {
		return false
	}
	l := f.links[shard]
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return false
	}
	_ = l.conn.Close()
	return true
}

// LinkStatus is a shard's link as INFO and ROLE report it.
type LinkStatus struct {
	Up, Syncing     bool
	LastIO          time.Time
	PrimarySequence uint64
	DownSince       time.Time
	// PrimaryChain is the run ids of the primary and of the primaries it
	// replicates from, learned at the last handshake (nil: not known).
	PrimaryChain []string
}

// ErrLoop refuses a primary that is the replica itself or replicates from
// it: following it would make a replication loop.
var ErrLoop = errors.New("replication loop")

// NewFollower returns a follower of the primary in opts for target.
func NewFollower(opts FollowerOptions, target Target) *Follower {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.Retry <= 0 {
		opts.Retry = 250 * time.Millisecond
	}
	f := &Follower{opts: opts, target: target, stop: make(chan struct{})}
	now := time.Now().UnixNano()
	for i := 0; i < target.ReplicationShards(); i++ {
		l := &link{f: f, shard: i, durable: make(chan struct{}, 1), log: opts.Log.With(zap.Int("shard", i))}
		l.downSince.Store(now)
		f.links = append(f.links, l)
	}
	return f
}

// Start connects every shard's link.
func (f *Follower) Start() {
	for _, l := range f.links {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			l.run()
		}()
	}
}

// Stop ends the links without waiting for them (a link busy applying
// finishes that first; the keyspace refuses a stale epoch).
func (f *Follower) Stop() {
	f.once.Do(func() {
		close(f.stop)
		for _, l := range f.links {
			l.mu.Lock()
			if l.conn != nil {
				_ = l.conn.Close()
			}
			l.mu.Unlock()
		}
	})
}

// Wait waits for the links to end after Stop.
func (f *Follower) Wait() { f.wg.Wait() }

// Durable is the WAL hook: shard's durable sequence advanced.
func (f *Follower) Durable(shard int) {
	if shard < len(f.links) {
		select {
		case f.links[shard].durable <- struct{}{}:
		default:
		}
	}
}

// Status is shard's link status.
func (f *Follower) Status(shard int) LinkStatus {
	if shard >= len(f.links) {
		return LinkStatus{}
	}
	l := f.links[shard]
	st := LinkStatus{Up: l.up.Load(), Syncing: l.syncing.Load(), PrimarySequence: l.primarySeq.Load()}
	if t := l.lastIO.Load(); t != 0 {
		st.LastIO = time.Unix(0, t)
	}
	if t := l.downSince.Load(); t != 0 && !st.Up {
		st.DownSince = time.Unix(0, t)
	}
	l.mu.Lock()
	st.PrimaryChain = l.chain
	l.mu.Unlock()
	return st
}

func (f *Follower) stopped() bool {
	select {
	case <-f.stop:
		return true
	default:
		return false
	}
}

func (l *link) run() {
	addr := net.JoinHostPort(l.f.opts.Host, strconv.Itoa(l.f.opts.Port+l.shard))
	var lastErr string
	var lastLogged time.Time
	for !l.f.stopped() {
		err := l.session(addr)
		if wasUp := l.up.Swap(false); wasUp || l.downSince.Load() == 0 {
			l.downSince.Store(time.Now().UnixNano())
			lastErr = "" // a link that was up logs its drop
		}
		l.syncing.Store(false)
		if l.f.stopped() {
			return
		}
		// A link retried every Retry logs the same failure (a loop, a
		// primary not up yet) once, then again every 30 seconds.
		if msg := err.Error(); msg != lastErr || time.Since(lastLogged) >= 30*time.Second {
			l.log.Warn("replication: link to the primary down", zap.String("primary", addr), zap.Error(err))
			lastErr, lastLogged = msg, time.Now()
		}
		select {
		case <-l.f.stop:
			return
		case <-time.After(l.f.opts.Retry):
		}
	}
}

// errAuthRefused is the primary's refusal of the replica's AUTH, in Redis's
// wording, which tools watching a replica's log look for.
//
//lint:ignore ST1005 Redis's own wording, capitals included
var errAuthRefused = errors.New("Unable to AUTH to MASTER")

// session runs one connection: handshake, then frames until an error.
func (l *link) session(addr string) error {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if l.f.opts.SourceAddr != nil {
		if ip := l.f.opts.SourceAddr(); ip != "" {
			src := net.ParseIP(ip)
			if src == nil {
				return fmt.Errorf("bind-source-addr %q is not an IP address", ip)
			}
			d.LocalAddr = &net.TCPAddr{IP: src}
		}
	}
	var conn net.Conn
	var err error
	if l.f.opts.Dial != nil {
		conn, err = l.f.opts.Dial(d, addr)
	} else {
		conn, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return err
	}
	l.mu.Lock()
	if l.f.stopped() {
		l.mu.Unlock()
		_ = conn.Close()
		return errors.New("replication: stopped")
	}
	l.conn = conn
	l.mu.Unlock()
	defer conn.Close()
	br := bufio.NewReaderSize(conn, 1<<20)
	o := l.f.opts
	user, pass := o.User, o.Pass
	if o.Credentials != nil {
		user, pass = o.Credentials()
	}
	if pass != "" {
		args := []string{"AUTH", pass}
		if user != "" {
			args = []string{"AUTH", user, pass}
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write(command(args...)); err != nil {
			return err
		}
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
		if !strings.HasPrefix(line, "+OK") {
			return fmt.Errorf("%w: %s", errAuthRefused, strings.TrimSpace(line))
		}
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	listenPort, announceIP := o.ListenPort, ""
	if o.Announce != nil {
		ip, port := o.Announce()
		announceIP = ip
		if port > 0 {
			listenPort = port
		}
	}
	if listenPort > 0 {
		args := []string{"REPLCONF", "listening-port", strconv.Itoa(listenPort + l.shard)}
		if announceIP != "" {
			args = append(args, "ip-address", announceIP)
		}
		if l.shard < len(o.NodeIDs) {
			args = append(args, "ruvio-node-id", o.NodeIDs[l.shard])
		}
		if _, err := conn.Write(command(args...)); err != nil {
			return err
		}
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("REPLCONF: %w", err)
		}
		if !strings.HasPrefix(line, "+OK") {
			return fmt.Errorf("REPLCONF refused by the primary: %s", strings.TrimSpace(line))
		}
	}
	if o.RunID != "" {
		if err := l.checkLoop(conn, br, addr); err != nil {
			return err
		}
	}
	after := l.f.target.LastSequence(l.shard)
	if _, err := conn.Write(command("REPLSYNC", strconv.Itoa(l.f.target.ReplicationShards()), strconv.Itoa(l.shard),
		strconv.FormatUint(after, 10), l.f.target.ReplID(l.shard))); err != nil {
		return err
	}
	first, err := br.Peek(1)
	if err != nil {
		return fmt.Errorf("REPLSYNC: %w", err)
	}
	if first[0] == '-' {
		line, _ := br.ReadString('\n')
		return fmt.Errorf("REPLSYNC refused by the primary: %s", strings.TrimSpace(strings.TrimPrefix(line, "-")))
	}
	_ = conn.SetDeadline(time.Time{})

	// Acknowledgements go out on their own goroutine as the log syncs.
	done := make(chan struct{})
	defer close(done)
	var wmu sync.Mutex
	go l.acker(conn, &wmu, done)

	fr := NewFrameReader(br)
	applied := after
	for {
		// The primary pings every second: silence for long means it is gone.
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		typ, payload, err := fr.Next(applied)
		if err != nil {
			return err
		}
		l.lastIO.Store(time.Now().UnixNano())
		switch typ {
		case FrameContinue:
			if len(payload) != 8 || binary.LittleEndian.Uint64(payload) != after {
				return fmt.Errorf("%w after sequence %d: continue frame does not match", ErrCorruptStream, applied)
			}
			l.up.Store(true)
			l.log.Info("replication: partial resync", zap.Uint64("after", after))
		case FrameFull:
			if len(payload) < 16 {
				return fmt.Errorf("%w after sequence %d: bad full-resync frame", ErrCorruptStream, applied)
			}
			seq := binary.LittleEndian.Uint64(payload)
			size := binary.LittleEndian.Uint64(payload[8:])
			id := string(payload[16:])
			if err := l.receiveSnapshot(fr, seq, int64(size), id); err != nil {
				return err
			}
			applied = seq
			l.up.Store(true)
			select { // a new state to acknowledge
			case l.durable <- struct{}{}:
			default:
			}
		case FrameRecords:
			if len(payload) == 0 {
				continue
			}
			if err := l.f.target.ApplyReplicated(l.shard, l.f.opts.Epoch, payload); err != nil {
				return err
			}
			applied = l.f.target.LastSequence(l.shard)
		case FramePing:
			if len(payload) == 8 {
				l.primarySeq.Store(binary.LittleEndian.Uint64(payload))
			}
		default:
			return fmt.Errorf("%w after sequence %d: unexpected frame %q", ErrCorruptStream, applied, typ)
		}
		if applied > l.primarySeq.Load() {
			l.primarySeq.Store(applied)
		}
	}
}

// checkLoop announces the replica's run id and refuses a primary whose
// answer (its own run id, then those of the primaries it replicates from)
// holds it: the replica would follow itself. A primary that does not know
// the option answers an error; the chain is then unknown and the
// handshake goes on.
func (l *link) checkLoop(conn net.Conn, br *bufio.Reader, addr string) error {
	if _, err := conn.Write(command("REPLCONF", "ruvio-run-id", l.f.opts.RunID)); err != nil {
		return err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return fmt.Errorf("REPLCONF ruvio-run-id: %w", err)
	}
	line = strings.TrimSpace(line)
	var chain []string
	if strings.HasPrefix(line, "+") {
		chain = strings.Fields(line[1:])
	}
	l.mu.Lock()
	l.chain = chain
	l.mu.Unlock()
	for i, id := range chain {
		if id != l.f.opts.RunID {
			continue
		}
		if i == 0 {
			return fmt.Errorf("%w: the primary at %s is this server itself (REPLICAOF of its own address)", ErrLoop, addr)
		}
		return fmt.Errorf("%w: the primary at %s replicates from this server", ErrLoop, addr)
	}
	return nil
}

// receiveSnapshot writes the snapshot's 'D' frames to a file in the data
// directory, syncs it and has the keyspace install it.
func (l *link) receiveSnapshot(fr *FrameReader, seq uint64, size int64, id string) error {
	l.syncing.Store(true)
	defer l.syncing.Store(false)
	o := l.f.opts
	l.log.Info("replication: full resync", zap.Uint64("snapshot_seq", seq), zap.Int64("bytes", size))
	if size == 0 {
		return l.f.target.InstallReplicaSnapshot(l.shard, o.Epoch, "", seq, id)
	}
	path := filepath.Join(o.Dir, persistence.SnapshotName(l.shard, seq)+".repl")
	f, err := o.FS.Create(path)
	if err != nil {
		return fmt.Errorf("replication: create %s: %w", path, err)
	}
	if err := copySnapshotFrames(fr, f, path, seq, size, func() { l.lastIO.Store(time.Now().UnixNano()) }); err != nil {
		_ = f.Close()
		_ = o.FS.Remove(path)
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = o.FS.Remove(path)
		return fmt.Errorf("replication: sync %s: %w", path, err)
	}
	if err := l.f.target.InstallReplicaSnapshot(l.shard, o.Epoch, path, seq, id); err != nil {
		_ = o.FS.Remove(path)
		return err
	}
	return nil
}

// copySnapshotFrames writes the size bytes of a snapshot at seq, sent as
// 'D' frames, to w (the file at path), calling each after every frame.
func copySnapshotFrames(fr *FrameReader, w io.Writer, path string, seq uint64, size int64, each func()) error {
	var got int64
	for got < size {
		typ, payload, err := fr.Next(seq)
		if err != nil {
			return err
		}
		if typ != FrameData || got+int64(len(payload)) > size {
			return fmt.Errorf("%w in the snapshot at sequence %d: unexpected frame %q at byte %d", ErrCorruptStream, seq, typ, got)
		}
		if _, err := w.Write(payload); err != nil {
			return fmt.Errorf("replication: write %s: %w", path, err)
		}
		got += int64(len(payload))
		each()
	}
	return nil
}

// acker sends REPLCONF ACK <synced sequence> whenever the shard's log has
// fsynced more, and every second regardless (the primary's lag). Only
// synced records are acknowledged, whatever the replica's fsync policy:
// under everysec they follow its periodic fsync; under no, whose log never
// syncs by itself, the acker asks for a sync once a second while written
// records are unsynced, so WAIT on the primary still means the replica's
// disk (at most about a second later).
func (l *link) acker(conn net.Conn, wmu *sync.Mutex, done <-chan struct{}) {
	var acked uint64
	var lastSent time.Time
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		tick := false
		select {
		case <-done:
			return
		case <-l.durable:
		case <-t.C:
			tick = true
		}
		if tick && l.f.target.DurableSequence(l.shard) > l.f.target.SyncedSequence(l.shard) {
			if err := l.f.target.SyncForAck(l.shard); err != nil {
				l.log.Warn("replication: sync for the acknowledgement failed", zap.Error(err))
			}
		}
		d := l.f.target.SyncedSequence(l.shard)
		if d == acked && time.Since(lastSent) < time.Second {
			continue
		}
		wmu.Lock()
		_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err := conn.Write(command("REPLCONF", "ACK", strconv.FormatUint(d, 10)))
		wmu.Unlock()
		if err != nil {
			return
		}
		acked, lastSent = d, time.Now()
	}
}

// command encodes a RESP multibulk request.
func command(args ...string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}
