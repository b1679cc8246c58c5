package eventloop

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
)

// TLS connections are served beside the gnet reactors, which have no TLS:
// a listener per shard's TLS port (TLSPort+i) accepts with the standard
// library, and each connection, once its handshake is done, is a tlsLink
// that behaves as the gnet connection the rest of this package knows
// (link): the same parsing into batches, the same rings, replies, output
// accounting, back-pressure and limits. A link runs three goroutines:
//
//   - its loop (run), which plays the part of the connection's reactor:
//     every call the package makes on a connection's loop (OnTraffic's
//     work, the outbox's deliveries, written) is made by the holder of
//     the loop role (loopMu), one at a time;
//   - its reader, which decrypts into the inbound buffer and then takes
//     the loop role itself to parse it when the role is free (else it
//     wakes the loop); it stops reading once readAheadPause bytes wait
//     there, and goes on below readAheadResume, as readGate does for
//     gnet;
//   - its writer, which encrypts and sends what the loop wrote into the
//     outbound buffer, so that the loop never blocks on a slow client:
//     the unsent bytes count as gnet's outbound buffer does
//     (OutboundBuffered), towards the client's output buffer limits.
//     While it is not sending, the turns asked for (a shard's delivery, a
//     wake-up) are its, so a reply is written and sent by one goroutine;
//     while it sends, the loop goroutine takes them.

// tlsState is the TLS configuration new connections are served with;
// replaced whole (ApplyTLS), never changed.
type tlsState struct {
	conf      *tls.Config
	handshake time.Duration
	userCN    bool
}

// closeFlushTimeout bounds how long a link closed by its loop (QUIT, a
// protocol error) tries to send what is still queued before it closes.
const closeFlushTimeout = 2 * time.Second

// ApplyTLS builds the TLS settings t (reading its files) and, if they
// build, serves new TLS connections with them; open connections keep
// theirs. A failure is logged with its reason and returned.
func (s *Server) ApplyTLS(t config.TLSConfig) error {
	conf, err := t.ServerConfig()
	if err != nil {
		s.log.Warn("TLS configuration refused", zap.Error(err))
		return fmt.Errorf("eventloop: %w", err)
	}
	s.tls.Store(&tlsState{
		conf:      conf,
		handshake: time.Duration(t.HandshakeTimeoutMs) * time.Millisecond,
		userCN:    strings.EqualFold(t.AuthClientsUser, config.TLSUserCN),
	})
	if s.tlsListening.Load() {
		s.log.Info("TLS configuration loaded: new connections use it", zap.String("cert", t.CertFile))
	}
	return nil
}

// serveTLS runs one TLS connection: its handshake, bounded by the
// handshake timeout, then its link.
func (s *Server) serveTLS(nc net.Conn, shard int) {
	defer s.tlsWG.Done()
	st := s.tls.Load()
	remote, _ := nc.RemoteAddr().(*net.TCPAddr)
	local, _ := nc.LocalAddr().(*net.TCPAddr)
	if remote == nil || local == nil {
		_ = nc.Close()
		return
	}
	if !s.addHandshake(nc) {
		_ = nc.Close()
		return
	}
	tc := tls.Server(nc, st.conf)
	_ = nc.SetDeadline(time.Now().Add(st.handshake))
	err := tc.Handshake()
	s.forgetHandshake(nc)
	if err != nil {
		s.logHandshakeFailure(remote, err, st.handshake)
		_ = nc.Close()
		return
	}
	_ = nc.SetDeadline(time.Time{})
	user := ""
	if st.userCN {
		if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 {
			user = certs[0].Subject.CommonName
		}
	}
	l := &tlsLink{
		srv:  s,
		nc:   nc,
		tc:   tc,
		sig:  make(chan struct{}, 1),
		wsig: make(chan struct{}, 1),
		rsig: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	cn, refusal := s.open(l, shard, remote.String(), local.String(), remote.IP, &outbox{loop: l}, true, user)
	if cn == nil {
		if refusal != nil {
			_ = nc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
			_, _ = tc.Write(refusal)
		}
		_ = tc.Close()
		return
	}
	l.cn = cn
	if !s.addLink(l) {
		// Stop came first.
		_ = l.Close()
	}
	go l.readLoop()
	go l.writeLoop()
	l.run()
}

// logHandshakeFailure logs why a TLS handshake failed, at most
// protoErrLogBurst lines a second.
func (s *Server) logHandshakeFailure(remote *net.TCPAddr, err error, timeout time.Duration) {
	ok, suppressed := s.protoLog.allow(time.Now())
	if !ok {
		return
	}
	fields := []zap.Field{zap.String("remote", remote.String())}
	var rhe tls.RecordHeaderError
	var ne net.Error
	msg := "TLS handshake failed, closing the connection"
	switch {
	case errors.As(err, &rhe):
		msg = "TLS handshake failed: the client does not speak TLS (plaintext on the TLS port?), closing the connection"
		fields = append(fields, zap.ByteString("first_bytes", rhe.RecordHeader[:]))
	case errors.As(err, &ne) && ne.Timeout():
		msg = "TLS handshake timed out, closing the connection"
		fields = append(fields, zap.Duration("timeout", timeout))
	case errors.Is(err, io.EOF):
		msg = "TLS handshake failed: the client closed the connection"
	}
	fields = append(fields, zap.Error(err))
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	s.log.Info(msg, fields...)
}

// addLink registers an open link, so that Stop closes it; false once
// stopping.
func (s *Server) addLink(l *tlsLink) bool {
	s.tlsMu.Lock()
	defer s.tlsMu.Unlock()
	if s.tlsStopped {
		return false
	}
	if s.tlsLinks == nil {
		s.tlsLinks = make(map[*tlsLink]struct{})
	}
	s.tlsLinks[l] = struct{}{}
	return true
}

// addHandshake registers a connection in its handshake, so that Stop
// closes it; false once stopping.
func (s *Server) addHandshake(nc net.Conn) bool {
	s.tlsMu.Lock()
	defer s.tlsMu.Unlock()
	if s.tlsStopped {
		return false
	}
	if s.tlsHandshakes == nil {
		s.tlsHandshakes = make(map[net.Conn]struct{})
	}
	s.tlsHandshakes[nc] = struct{}{}
	return true
}

func (s *Server) forgetHandshake(nc net.Conn) {
	s.tlsMu.Lock()
	delete(s.tlsHandshakes, nc)
	s.tlsMu.Unlock()
}

func (s *Server) forgetLink(l *tlsLink) {
	s.tlsMu.Lock()
	delete(s.tlsLinks, l)
	s.tlsMu.Unlock()
}

// stopTLS closes the TLS listeners and connections and waits, until ctx
// ends, for their goroutines.
func (s *Server) stopTLS(ctx context.Context) error {
	s.tlsMu.Lock()
	s.tlsStopped = true
	links := make([]*tlsLink, 0, len(s.tlsLinks))
	for l := range s.tlsLinks {
		links = append(links, l)
	}
	for nc := range s.tlsHandshakes {
		_ = nc.Close() // its handshake fails at once
	}
	s.tlsMu.Unlock()
	for _, l := range links {
		_ = l.Close()
	}
	done := make(chan struct{})
	go func() {
		s.tlsWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("eventloop: TLS connections still closing: %w", ctx.Err())
	}
}

// tlsLink is a TLS connection as the package's connection logic sees it
// (link, executor); see the comment at the top of this file.
type tlsLink struct {
	srv *Server
	nc  net.Conn
	tc  *tls.Conn
	cn  *conn

	sig  chan struct{} // the loop goroutine has work (a turn while the writer sends, the end)
	wsig chan struct{} // the writer has work (output to send, a turn)
	rsig chan struct{} // the reader may read again
	done chan struct{} // closed by Close

	closeOnce sync.Once

	// loopMu is the connection's loop role: whoever holds it (the reader
	// right after a read, the writer before it sends, or the loop
	// goroutine while the writer sends) may run the connection's logic
	// (turn). spareTasks and finished are its.
	loopMu     sync.Mutex
	spareTasks []gnet.Runnable
	finished   bool
	// lingerTimer ends a link kept after its input ended (lingering).
	lingerTimer *time.Timer

	mu sync.Mutex
	// in[r:] is the input read and not yet discarded. The reader only
	// appends (into a new array when it must grow), the loop only reads
	// what Peek gave it and moves r, so the bytes a Peek returned stay
	// as they are until the loop discards them.
	in []byte
	r  int
	// out is what the loop wrote and the writer has not taken; writing
	// is the size of what the writer is sending now.
	out     []byte
	spare   []byte
	writing int
	tasks   []gnet.Runnable
	woken   bool
	readErr error
	// shut is set when the loop closes the link: the writer sends what
	// is queued, then closes.
	shut bool
	// exited is set once the loop has ended: Execute fails.
	exited bool
	// wantTurn is set by signal until a turn starts; inWrite while the
	// writer is sending (signal then wakes the loop goroutine instead).
	wantTurn bool
	inWrite  bool
}

// signal asks for a turn of the loop role: the writer takes it when it is
// not sending (so that the replies a turn writes go out without another
// hand-off), the loop goroutine while it is.
func (l *tlsLink) signal() {
	l.mu.Lock()
	l.wantTurn = true
	busy := l.inWrite
	l.mu.Unlock()
	ch := l.wsig
	if busy {
		ch = l.sig
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// kickLoop wakes the loop goroutine: for a turn while the writer sends,
// and to end the link.
func (l *tlsLink) kickLoop() {
	select {
	case l.sig <- struct{}{}:
	default:
	}
}

// Peek returns the first n bytes of the input (fewer if fewer wait).
func (l *tlsLink) Peek(n int) ([]byte, error) {
	l.mu.Lock()
	b := l.in[l.r:]
	l.mu.Unlock()
	if n > len(b) {
		n = len(b)
	}
	return b[:n:n], nil
}

// Discard drops the first n bytes of the input.
func (l *tlsLink) Discard(n int) (int, error) {
	l.mu.Lock()
	l.r += n
	switch left := len(l.in) - l.r; {
	case left <= 0:
		l.in, l.r = l.in[:0], 0
	case l.r >= maxBatchInput && l.r >= left:
		copy(l.in, l.in[l.r:])
		l.in, l.r = l.in[:left], 0
	}
	resume := len(l.in)-l.r < readAheadResume
	l.mu.Unlock()
	if resume {
		select {
		case l.rsig <- struct{}{}:
		default:
		}
	}
	return n, nil
}

// InboundBuffered is the input read and not yet discarded.
func (l *tlsLink) InboundBuffered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.in) - l.r
}

// OutboundBuffered is the output written and not yet sent.
func (l *tlsLink) OutboundBuffered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.out) + l.writing
}

// Write queues b for the writer; b is copied.
func (l *tlsLink) Write(b []byte) (int, error) {
	l.mu.Lock()
	if l.shut || l.exited {
		l.mu.Unlock()
		return 0, net.ErrClosed
	}
	l.out = append(l.out, b...)
	l.mu.Unlock()
	select {
	case l.wsig <- struct{}{}:
	default:
	}
	return len(b), nil
}

// Wake has the loop look at the connection again; any goroutine.
func (l *tlsLink) Wake(gnet.AsyncCallback) error {
	l.mu.Lock()
	l.woken = true
	l.mu.Unlock()
	l.signal()
	return nil
}

// Execute runs r on the link's loop; it fails once the loop has ended.
func (l *tlsLink) Execute(_ context.Context, r gnet.Runnable) error {
	l.mu.Lock()
	if l.exited {
		l.mu.Unlock()
		return net.ErrClosed
	}
	l.tasks = append(l.tasks, r)
	l.mu.Unlock()
	l.signal()
	return nil
}

// Close closes the connection at once, from any goroutine.
func (l *tlsLink) Close() error {
	l.closeOnce.Do(func() {
		close(l.done)
		_ = l.nc.Close()
	})
	return nil
}

// CloseWithCallback closes the connection once what is queued is sent
// (for at most closeFlushTimeout); at once when the client was cut off.
// Loop only.
func (l *tlsLink) CloseWithCallback(gnet.AsyncCallback) error {
	if l.cn != nil && l.cn.client.Killed() {
		return l.Close()
	}
	l.mu.Lock()
	l.shut = true
	l.mu.Unlock()
	_ = l.nc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
	select {
	case l.wsig <- struct{}{}:
	default:
	}
	return nil
}

// run is the link's loop goroutine: it takes the loop role (loopMu) for
// the turns asked for while the writer sends, and ends the link once the
// connection is closed or its input ends.
func (l *tlsLink) run() {
	for {
		select {
		case <-l.sig:
		case <-l.done:
		}
		l.loopMu.Lock()
		end := l.turn()
		if end {
			l.finish()
		}
		l.loopMu.Unlock()
		if end {
			return
		}
	}
}

// turn runs what waits for the connection's loop: the queued tasks, then
// its input when woken. It reports that the link is to end (closed, or
// its input ended); the loop goroutine then finishes it. With loopMu held.
func (l *tlsLink) turn() (end bool) {
	if l.finished {
		return true
	}
	s, cn := l.srv, l.cn
	l.mu.Lock()
	l.wantTurn = false
	tasks := l.tasks
	l.tasks = l.spareTasks[:0]
	l.spareTasks = nil
	woken := l.woken
	l.woken = false
	readErr := l.readErr
	l.mu.Unlock()
	for _, t := range tasks {
		_ = t.Run(context.Background())
	}
	clear(tasks)
	l.spareTasks = tasks[:0]
	select {
	case <-l.done:
		return true
	default:
	}
	if woken && !cn.closing && !cn.client.Killed() {
		if _, act := s.onTraffic(cn, l); act != gnet.None {
			cn.closing = true
			_ = l.CloseWithCallback(nil)
		}
	}
	return readErr != nil && !l.lingering(readErr)
}

// lingering keeps a link whose client ended its input (close_notify, or
// the end of the TCP stream) until its replies are sent, as linger.go
// keeps a gnet connection: a client may send its requests and shut down
// its sending side at once. With batches in flight the client is
// detached from the keyspace now (a blocking command then ends unanswered,
// as in Redis) and the link stays, for at most lingerMax; once none is in
// flight, what is queued is sent and the link closes, as after QUIT. It
// reports whether the link stays; with loopMu held.
func (l *tlsLink) lingering(readErr error) bool {
	cn := l.cn
	if !errors.Is(readErr, io.EOF) || cn.client.Killed() {
		return false
	}
	if cn.closing {
		// Closing already (QUIT, a protocol error, or below): the writer
		// sends what is queued and ends the link.
		return true
	}
	if cn.inflight.Load() > 0 {
		if l.lingerTimer == nil {
			l.srv.ks.Disconnected(cn.client)
			l.lingerTimer = time.AfterFunc(lingerMax, func() { _ = l.Close() })
		}
		return true
	}
	cn.closing = true
	_ = l.CloseWithCallback(nil)
	return true
}

// finish ends the loop: the connection is closed and forgotten, and the
// tasks still queued run (their deliveries are dropped).
func (l *tlsLink) finish() {
	l.finished = true
	if l.lingerTimer != nil {
		l.lingerTimer.Stop()
	}
	_ = l.Close()
	l.srv.closed(l.cn)
	l.mu.Lock()
	l.exited = true
	tasks := l.tasks
	l.tasks = nil
	l.mu.Unlock()
	for _, t := range tasks {
		_ = t.Run(context.Background())
	}
	l.srv.forgetLink(l)
}

// tlsReadSize is the most bytes one read takes: a TLS record's payload.
const tlsReadSize = 16 << 10

// readLoop decrypts the input into the inbound buffer until the
// connection ends; it pauses while readAheadPause bytes wait there.
func (l *tlsLink) readLoop() {
	buf := make([]byte, tlsReadSize)
	for {
		l.mu.Lock()
		for len(l.in)-l.r >= readAheadPause {
			l.mu.Unlock()
			l.srv.ks.CountReadPause()
			select {
			case <-l.rsig:
			case <-l.done:
				return
			}
			l.mu.Lock()
		}
		l.mu.Unlock()
		n, err := l.tc.Read(buf)
		if n > 0 {
			l.mu.Lock()
			if cap(l.in)-len(l.in) < n && l.r > 0 {
				// Grow into a new array: the loop may be reading in[r:].
				left := len(l.in) - l.r
				nb := make([]byte, left, max(2*(left+n), 2*tlsReadSize))
				copy(nb, l.in[l.r:])
				l.in, l.r = nb, 0
			}
			l.in = append(l.in, buf[:n]...)
			l.woken = true
			l.mu.Unlock()
			// Parse the input here when the loop role is free, rather
			// than waking the loop goroutine for it; an end is left to
			// that goroutine.
			if l.loopMu.TryLock() {
				end := l.turn()
				l.loopMu.Unlock()
				if end {
					l.kickLoop()
				}
			} else {
				l.signal()
			}
		}
		if err != nil {
			l.mu.Lock()
			l.readErr = err
			l.mu.Unlock()
			l.kickLoop()
			return
		}
	}
}

// keepOutbound is the largest outbound buffer kept for reuse.
const keepOutbound = 1 << 20

// writeLoop sends what the loop writes, in the order written, until the
// connection closes; after the loop closed it (shut) it sends what is
// queued, then closes the connection with a close_notify. Before each
// send it takes the loop role for a turn (signal asks it to): the
// replies a shard delivers are written and sent by this one goroutine.
func (l *tlsLink) writeLoop() {
	for {
		select {
		case <-l.wsig:
		case <-l.done:
			return
		}
		for {
			l.loopMu.Lock()
			end := l.turn()
			l.loopMu.Unlock()
			if end {
				l.kickLoop()
			}
			l.mu.Lock()
			if len(l.out) == 0 {
				shut := l.shut
				l.mu.Unlock()
				if shut {
					_ = l.tc.Close()
					_ = l.Close()
					return
				}
				break
			}
			buf := l.out
			l.out, l.spare = l.spare[:0], nil
			l.writing = len(buf)
			l.inWrite = true
			forward := l.wantTurn
			l.mu.Unlock()
			if forward {
				// A turn asked for before the send began: the loop
				// goroutine takes it, as the send may block.
				l.kickLoop()
			}
			_, err := l.tc.Write(buf)
			l.mu.Lock()
			l.writing = 0
			l.inWrite = false
			if cap(buf) <= keepOutbound {
				l.spare = buf[:0]
			}
			l.mu.Unlock()
			if err != nil {
				_ = l.Close()
				return
			}
			if len(buf) >= behindOutput {
				// A large write drained: a connection held for its
				// output looks again now rather than at the next poll.
				_ = l.Wake(nil)
			}
		}
	}
}
