package eventloop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/panjf2000/gnet/v2"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/codec"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/keyspace"
)

// Options configure the network edge.
type Options struct {
	// Keyspace runs the commands; required.
	Keyspace *keyspace.Server
	// Live holds the run-time settings (limits, timeouts); required.
	Live *config.Live
	// Bind is the addresses every shard listens on, in Redis's form
	// (config.ParseBind); shard i uses Port+i. SetListeners changes them.
	Bind string
	Port int
	// TLSPort, when not 0, is shard 0's TLS port: shard i serves TLS on
	// TLSPort+i (tls.go), with the settings ApplyTLS loaded. Port 0
	// serves TLS only.
	TLSPort int
	// UnixSocket, when not empty, is the path of a Unix domain socket whose
	// connections are shard 0's, as Redis's unixsocket; UnixSocketPerm, when
	// not 0, the permission bits it is given once bound.
	UnixSocket     string
	UnixSocketPerm os.FileMode
	// Reactors is the number of gnet event loops (0: one per CPU).
	Reactors int
	// ReactorPerShard serves each shard's port with an engine of one event
	// loop instead of Reactors loops shared by every port: the connections
	// of a shard are then read by one reactor, in the order their input
	// became readable, and their batches reach the shard's ring in that
	// order. Reactors is ignored.
	ReactorPerShard bool
	// Inline lets a reactor run a lone command that writes nothing itself
	// when its shard is idle (Shard.TryRun) and write the reply at once.
	Inline bool
	// DirectReplies lets the goroutine that ran a batch write its replies
	// into the socket itself when nothing waits at the reactor for that
	// connection (request.writeDirect).
	DirectReplies bool
	// MaxMultibulkLen bounds the arguments of one request.
	MaxMultibulkLen int
	// Logger receives logs; nil means no logging.
	Logger *zap.Logger
}

// Server is the gnet event handler: it accepts connections, parses
// requests into batches for the connection's shard and writes replies back.
type Server struct {
	gnet.BuiltinEventEngine

	opts   Options
	ks     *keyspace.Server
	live   *config.Live
	log    *zap.Logger
	booted chan struct{}
	// stopped is closed once Stop has closed everything; Serve returns then.
	stopped chan struct{}
	// loopback is set while every TCP and TLS listener is on a loopback
	// address (protected mode).
	loopback atomic.Bool
	// engines are the listener-less gnet engines (listeners.go): one per
	// shard with ReactorPerShard, else one. Written before Ready only.
	engines []*gnet.Client
	// lnMu guards the listeners, cur (the settings they follow), ready
	// (set once Serve is ready) and lnStopped (set by Stop: no listener
	// opens afterwards); acceptWG counts the accept goroutines.
	lnMu      sync.Mutex
	listeners []*listener
	cur       config.Listeners
	ready     bool
	lnStopped bool
	acceptWG  sync.WaitGroup

	// requests recycles batches between reactors and shards.
	requests sync.Pool

	stopOnce sync.Once
	stopIdle chan struct{}

	// clock is the unix nanosecond time, updated every throttlePoll: the
	// reactors' cheap notion of now for idle accounting.
	clock atomic.Int64
	// throttled are the connections paused for their output.
	throttleMu sync.Mutex
	throttled  map[*conn]struct{}
	// protoLog rate-limits the log lines of protocol errors.
	protoLog logLimiter
	// gate pauses reading held connections; gateOnce logs its failure.
	gate     readGate
	gateOnce sync.Once
	// edgeOff is set once a connection's input could not be made
	// edge-triggered: the others are not tried (armEdge).
	edgeOff atomic.Bool
	// outboxes carry replies and pushes to each reactor (outbox.go).
	outboxMu sync.Mutex
	outboxes map[gnet.EventLoop]*outbox

	// tls is what new TLS connections are served with (ApplyTLS).
	tls          atomic.Pointer[tlsState]
	tlsListening atomic.Bool
	// tlsMu guards the open links; tlsWG counts the goroutines of the
	// TLS connections.
	tlsMu    sync.Mutex
	tlsLinks map[*tlsLink]struct{}
	// tlsHandshakes are the connections still in their handshake.
	tlsHandshakes map[net.Conn]struct{}
	tlsStopped    bool
	tlsWG         sync.WaitGroup
}

// New prepares a server; Serve runs it.
func New(opts Options) (*Server, error) {
	if opts.Keyspace == nil || opts.Live == nil {
		return nil, errors.New("eventloop: keyspace and live config are required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	s := &Server{
		opts:      opts,
		ks:        opts.Keyspace,
		live:      opts.Live,
		log:       opts.Logger,
		booted:    make(chan struct{}),
		stopIdle:  make(chan struct{}),
		throttled: make(map[*conn]struct{}),
		outboxes:  make(map[gnet.EventLoop]*outbox),
		protoLog:  logLimiter{per: time.Second, burst: protoErrLogBurst},
	}
	s.clock.Store(time.Now().UnixNano())
	s.requests.New = newRequest
	s.stopped = make(chan struct{})
	if opts.UnixSocket != "" {
		if err := checkUnixSocket(opts.UnixSocket); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Serve starts the event loops, listens on every shard's port and blocks
// until Stop.
func (s *Server) Serve() error {
	go s.idleLoop()
	if err := s.startEngines(); err != nil {
		return err
	}
	s.lnMu.Lock()
	err := s.setListenersLocked(config.Listeners{Bind: s.opts.Bind, Port: s.opts.Port, TLSPort: s.opts.TLSPort})
	if err == nil && s.opts.UnixSocket != "" {
		err = s.listenUnix()
	}
	if err != nil || s.lnStopped {
		s.lnStopped = true
		s.closeListeners(append([]*listener(nil), s.listeners...))
		s.lnMu.Unlock()
		s.acceptWG.Wait()
		s.stopEngines()
		_ = s.stopTLS(context.Background())
		if err == nil {
			err = errors.New("eventloop: stopped during start-up")
		}
		return err
	}
	s.ready = true
	addrs := s.addressesLocked()
	s.lnMu.Unlock()
	s.log.Info("Ready to accept connections", zap.Strings("addresses", addrs), zap.Bool("reactor_per_shard", s.opts.ReactorPerShard))
	close(s.booted)
	<-s.stopped
	return nil
}

// checkUnixSocket refuses a unixsocket path that exists and is not a socket:
// binding replaces what is at the path, as Redis unlinks a stale socket, and
// that must never be a file or a directory.
func checkUnixSocket(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("eventloop: unixsocket %s: %w", path, err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("eventloop: unixsocket %s exists and is not a socket", path)
	}
	return nil
}

// Ready is closed once the listeners accept connections.
func (s *Server) Ready() <-chan struct{} { return s.booted }

// Stop closes the listeners and every connection.
func (s *Server) Stop(ctx context.Context) error {
	var err error
	s.stopOnce.Do(func() {
		close(s.stopIdle)
		s.lnMu.Lock()
		s.lnStopped = true
		ready := s.ready
		s.closeListeners(append([]*listener(nil), s.listeners...))
		s.lnMu.Unlock()
		if !ready {
			return // Serve, still starting, stops what it started
		}
		defer close(s.stopped)
		done := make(chan struct{})
		go func() {
			s.acceptWG.Wait()
			s.stopEngines()
			close(done)
		}()
		select {
		case <-done:
		case <-ctx.Done():
			err = fmt.Errorf("eventloop: event loops still stopping: %w", ctx.Err())
		}
		if terr := s.stopTLS(ctx); terr != nil && err == nil {
			err = terr
		}
	})
	return err
}

// protectedModeMessage is Redis's reply to a remote client of a server that
// listens beyond loopback without a password.
const protectedModeMessage = "-DENIED Ruvio is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. To accept clients from other hosts, do one of the following: 1) set a password for the default user (server.requirepass in the configuration file, or CONFIG SET requirepass from a loopback client); 2) disable protected mode (server.protected_mode = false, or CONFIG SET protected-mode no from a loopback client), but only if the server cannot be reached from the internet; 3) listen on the loopback interface only (server.bind = \"127.0.0.1\").\r\n"

// refusedByProtectedMode reports whether a client from remote must be
// refused: the server listens beyond loopback, protected mode is on, no
// password is set, and the client is not local.
func refusedByProtectedMode(boundToLoopback, protectedMode, hasPassword bool, remote net.IP) bool {
	return !boundToLoopback && protectedMode && !hasPassword && !remote.IsLoopback()
}

// OnOpen assigns the connection to the shard of the listener that
// accepted it (its context, openCtx).
func (s *Server) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	oc, ok := c.Context().(openCtx)
	if !ok {
		return nil, gnet.Close
	}
	var cn *conn
	var refusal []byte
	if oc.unix {
		// Redis names a Unix socket client by the socket's path and port 0; such a client is
		// local, so protected mode lets it in.
		path := s.opts.UnixSocket + ":0"
		cn, refusal = s.open(c, 0, path, path, nil, s.outboxOf(c.EventLoop()), false, "")
	} else {
		local, _ := c.LocalAddr().(*net.TCPAddr)
		remote, _ := c.RemoteAddr().(*net.TCPAddr)
		if local == nil || remote == nil {
			return nil, gnet.Close
		}
		cn, refusal = s.open(c, oc.shard, remote.String(), local.String(), remote.IP, s.outboxOf(c.EventLoop()), false, "")
	}
	if cn == nil {
		return refusal, gnet.Close
	}
	if s.opts.DirectReplies {
		cn.direct, cn.wfd = true, c.Fd()
	}
	c.SetContext(cn)
	s.armEdge(cn, c)
	return nil, gnet.None
}

// open admits a connection of any kind (gnet's over TCP or a Unix socket,
// or a TLS link, tls) to the shard of index shard: protected mode (for a
// TCP peer at remoteIP; nil is a local socket) and maxclients apply as to
// any client. user, when not empty, is the ACL user the connection starts
// authenticated as (a TLS client certificate's identity). A refused
// connection gets nil and the reply to send it before it is closed.
func (s *Server) open(c link, shard int, remote, local string, remoteIP net.IP, ob *outbox, tls bool, user string) (*conn, []byte) {
	if remoteIP != nil && refusedByProtectedMode(s.loopback.Load(), s.live.ProtectedMode(), s.live.RequirePass() != "", remoteIP) {
		s.log.Warn("refused a remote client: protected mode", zap.String("remote", remote))
		return nil, []byte(protectedModeMessage)
	}
	if shard < 0 || shard >= s.ks.Shards() {
		return nil, nil
	}
	cn := &conn{gc: c, srv: s, shard: s.ks.Shard(shard), outbox: ob, wfd: -1, lingerFD: -1}
	var client *keyspace.Client
	ok, as := false, false
	if tls {
		client, ok, as = s.ks.ConnectedTLS(shard, remote, local, cn, user)
	} else {
		client, ok = s.ks.Connected(shard, remote, local, cn)
	}
	if ok && user != "" {
		if as {
			s.log.Info("TLS client authenticated by its certificate", zap.String("remote", remote), zap.String("user", user))
		} else {
			s.log.Warn("TLS client certificate names no enabled ACL user; the connection starts as the default user",
				zap.String("remote", remote), zap.String("cn", user))
		}
	}
	if !ok {
		s.log.Warn("refused a client: maxclients reached", zap.String("remote", remote))
		return nil, []byte("-" + keyspace.MaxClientsError + "\r\n")
	}
	cn.client = client
	return cn, nil
}

// OnClose forgets the connection, keeping its socket for the replies in
// flight when the peer ended its input (linger).
func (s *Server) OnClose(c gnet.Conn, err error) gnet.Action {
	if cn, ok := c.Context().(*conn); ok && cn != nil {
		s.linger(cn, c, err)
		s.closed(cn)
		// Direct writes have ended (closed): what is still in flight comes
		// through the loop, and if nothing is, neither does a reply.
		if cn.lingerFD >= 0 && cn.inflight.Load() == 0 {
			cn.endLinger()
		}
	}
	return gnet.None
}

// closed forgets a connection once it is closed; on its loop.
func (s *Server) closed(cn *conn) {
	cn.closed = true
	cn.closeDirect()
	s.ks.Disconnected(cn.client)
	if cn.pending != nil {
		cn.client.AddArgvMem(-cn.pending.ArgvMem)
		s.putRequest(cn.pending)
		cn.pending = nil
	}
	if cn.throttled {
		s.unthrottle(cn)
	}
	cn.parser.Reset()
}

// Flow control of one connection's input.
const (
	// maxBatchInput bounds the input bytes one batch is parsed from, so
	// that a backlog of pipelined requests turns into batches of bounded
	// size (and reply size) rather than one batch of everything.
	maxBatchInput = 64 << 10
	// maxBatchCommands bounds the commands of one batch, and so the size
	// of its replies.
	maxBatchCommands = 1024
	// maxBatchesPerTraffic bounds the batches one OnTraffic call makes of
	// a backlog before it yields the event loop to other connections.
	maxBatchesPerTraffic = 16
	// maxInflight bounds a connection's batches handed to its shard whose
	// replies are not written yet: their replies are not counted anywhere
	// before they run.
	maxInflight = 4
	// behindOutput is the unsent reply size from which a connection gets
	// one batch in flight at a time: a client that reads keeps its unsent
	// replies near zero, one that lags must not queue more work blindly.
	behindOutput = 64 << 10
	// pauseOutput is how many reply bytes not yet in its socket make a
	// connection stop being read (back-pressure) until it drains.
	pauseOutput = 4 << 20
	// throttlePoll is how often a connection paused for its output is
	// looked at again: the outbound buffer drains without telling.
	throttlePoll = 10 * time.Millisecond
	// readAheadPause is how much unparsed input a held connection may
	// have before it stops being read (readGate): room for its batches in
	// flight, so that a pipelining client runs at full speed.
	readAheadPause = maxInflight * maxBatchInput
	// readAheadResume is the unparsed input below which a paused
	// connection is read again: one batch's worth left to parse.
	readAheadResume = maxBatchInput
)

// pauseAt is the unsent reply size at which a connection stops being read:
// pauseOutput, or half the hard limit when that is lower.
func pauseAt(limit int64) int64 {
	if limit > 0 && limit/2 < pauseOutput {
		return limit / 2
	}
	return pauseOutput
}

// OnTraffic turns the connection's input into batches for its shard, one
// per maxBatchInput bytes, while the connection is not over its output
// bound and has room for more batches in flight.
func (s *Server) OnTraffic(c gnet.Conn) gnet.Action {
	cn, ok := c.Context().(*conn)
	if !ok || cn == nil || cn.closing || cn.client.Killed() {
		return gnet.None
	}
	fresh := c.InboundBuffered() - cn.left
	read, act := s.onTraffic(cn, c)
	if act == gnet.None && !cn.closing {
		s.gateReads(cn, c, read)
		s.keepEdge(cn, c, fresh)
	}
	return act
}

// Edge-triggered input. gnet registers a connection's socket with epoll
// level-triggered: a socket the reactor has read goes back on epoll's
// ready list and stays there until the reactor's next epoll_wait, ahead of
// sockets that become readable later. A client that gets its reply before
// that wait (a reply written directly, or inline, as a single-threaded
// server writes before it polls again) and sends its next request on that
// socket has it reported ahead of a request it sent afterwards on another
// connection. Edge-triggered, a socket joins the ready list only when bytes
// arrive, so the reactor reads connections in the order their bytes came.
//
// gnet itself reads once per report, at most readBufferCap bytes, as for a
// level-triggered socket: a read that fills its buffer may leave bytes
// that an edge-triggered epoll would report only when more arrive, so the
// connection is re-armed then (epoll reports it at once if bytes wait).
// A read that does not fill it took all the socket held, and bytes that
// arrive after it are reported. gnet switches a socket with unsent output
// back to level-triggered reads and writes (ModReadWrite, then ModRead once
// flushed); the next OnTraffic with nothing unsent arms the edge again. The
// read gate's pause and resume keep to the same rule.

// readBufferCap is gnet's read buffer: the most one read takes.
const readBufferCap = 64 << 10

// armEdge makes a gnet connection's input edge-triggered, or re-arms it.
func (s *Server) armEdge(cn *conn, c gnet.Conn) {
	if s.edgeOff.Load() {
		return
	}
	if err := s.gate.edge(c); err != nil {
		s.edgeOff.Store(true)
		s.log.Warn("cannot make reads edge-triggered; connections are read level-triggered, in a looser order across connections",
			zap.Error(err))
		return
	}
	cn.edge = true
}

// keepEdge keeps a read connection's input edge-triggered after OnTraffic
// (fresh: the bytes its read took); loop only.
func (s *Server) keepEdge(cn *conn, c gnet.Conn, fresh int) {
	switch {
	case cn.readPaused:
		// resume arms it.
	case c.OutboundBuffered() > 0:
		// gnet watches it level-triggered, writes included, until its
		// output is flushed: arming the edge now would drop the write
		// interest that flushes it.
		cn.edge = false
	case !cn.edge || fresh >= readBufferCap:
		s.armEdge(cn, c)
	}
}

// onTraffic is OnTraffic for either kind of connection; read reports that
// it follows new input.
func (s *Server) onTraffic(cn *conn, c link) (read bool, act gnet.Action) {
	// Any received byte is activity, not only a complete command (a large
	// upload in progress is not idle); a wake-up without new bytes is not.
	read = c.InboundBuffered() > cn.left
	if read {
		if now := s.clock.Load(); now-cn.client.LastActive() > int64(throttlePoll) {
			cn.client.Touch(now)
		}
	}
	act = s.traffic(cn, c)
	cn.left = c.InboundBuffered()
	return read, act
}

// gateReads stops reading a connection whose unparsed input (cn.left, as
// OnTraffic left it) has reached readAheadPause (it is held: batches in
// flight, unsent replies, a full ring) and starts again once that input is
// below readAheadResume. read says this call follows a read: gnet turned
// reading back on, so a paused connection is paused again.
func (s *Server) gateReads(cn *conn, c gnet.Conn, read bool) {
	buffered := cn.left
	switch {
	case buffered >= readAheadPause && (!cn.readPaused || read):
		if err := s.gate.pause(c); err != nil {
			s.gateFailed(err)
			return
		}
		cn.edge = false
		if !cn.readPaused {
			cn.readPaused = true
			s.ks.CountReadPause()
		}
	case cn.readPaused && buffered < readAheadResume:
		edge, err := s.gate.resume(c)
		cn.edge = edge && err == nil
		if err != nil {
			s.gateFailed(err)
			// Reading must not stay off: gnet's own ModRead, at its next
			// write, is then the only way back. Close instead.
			cn.closing = true
			_ = c.Close()
			return
		}
		cn.readPaused = false
	}
}

// gateFailed logs, once, that reads cannot be paused: read-ahead is then
// bounded by client-query-buffer-limit alone.
func (s *Server) gateFailed(err error) {
	s.gateOnce.Do(func() {
		s.log.Warn("cannot pause reading a connection; unparsed input is bounded by client-query-buffer-limit alone",
			zap.Error(err))
	})
}

// traffic is OnTraffic for a live connection.
func (s *Server) traffic(cn *conn, c link) gnet.Action {
	if cn.pending != nil {
		if !cn.shard.Submit(&cn.pending.Batch) {
			cn.shard.WaitRoom(cn)
			return s.checkQueryBuffer(cn, c)
		}
		cn.pending = nil
	}
	for round := 0; ; round++ {
		avail := c.InboundBuffered()
		if avail == 0 {
			return gnet.None
		}
		if round == maxBatchesPerTraffic {
			// Let the loop's other connections have a turn; go on later.
			_ = c.Wake(nil)
			return gnet.None
		}
		out := &cn.client.Out
		out.SetBuffered(c.OutboundBuffered())
		pending := out.Pending()
		if inflight := cn.inflight.Load(); inflight >= maxInflight || inflight > 0 && pending >= behindOutput {
			cn.stall(c, inflight) // written resumes
			return s.checkQueryBuffer(cn, c)
		}
		if pending >= pauseAt(s.live.OutputBufferLimit(cn.client.OutputClass()).Hard) {
			if !cn.throttled {
				s.throttle(cn)
			}
			// Paused, it gets no replies to trigger a check: the poll
			// is what sees it stay over a soft limit.
			if act := s.checkOutputBuffer(cn); act != gnet.None {
				cn.closing = true
				return act
			}
			return s.checkQueryBuffer(cn, c)
		}
		if cn.throttled {
			s.unthrottle(cn)
		}
		act, more := s.parseBatch(cn, c, min(avail, maxBatchInput))
		if act != gnet.None || !more {
			return act
		}
	}
}

// authRequired reports whether the connection's requests are held to the
// limits of an unauthenticated client. The client's Authenticated field is
// the shard's: it is read only while none of the connection's batches is
// with the shard, and the value seen then stands until the next such time.
func (s *Server) authRequired(cn *conn) bool {
	if s.live.RequirePass() == "" {
		return false
	}
	if cn.inflight.Load() == 0 && cn.pending == nil {
		cn.authed = cn.client.Authenticated
	}
	return !cn.authed
}

// parseBatch parses the requests in the first avail inbound bytes into one
// batch and hands it to the shard. A request the bytes end inside of goes
// to the connection's Parser, which keeps it across reads. more reports
// that the connection may go on with the next bytes at once.
func (s *Server) parseBatch(cn *conn, c link, avail int) (_ gnet.Action, more bool) {
	buf, _ := c.Peek(avail)
	lim := codec.Limits{
		MaxBulkLen:      s.live.ProtoMaxBulkLen(),
		MaxMultibulkLen: s.opts.MaxMultibulkLen,
		AuthRequired:    s.authRequired(cn),
	}
	req := s.getRequest()
	// buf[start:end] holds the requests parsed in place; bytes before
	// start finished a request the parser held, bytes after end started
	// one it now holds.
	start, end, fed := 0, 0, 0
	bigBefore := cn.parser.BigCopied()
	// takenBig is the big argument buffers of a request the parser
	// finished, which the batch takes over.
	takenBig := 0
	var perr error
	if cn.parser.Active() {
		n, done, err := cn.parser.Feed(buf, lim)
		start, end, perr = n, n, err
		if done {
			takenBig, _ = cn.parser.Big()
			args, data := cn.parser.Take(req.Argv[:0], req.Data[:0])
			req.Argv, req.Data = args, data
			if len(args) > 0 {
				req.Ends = append(req.Ends, len(req.Argv))
			}
		}
	}
	for perr == nil && end < len(buf) && !cn.parser.Active() {
		args, n, err := codec.ParseCommand(buf[end:], cn.args[:0], lim)
		cn.args = args
		if err != nil {
			perr = err
			break
		}
		if n == 0 {
			fed, _, perr = cn.parser.Feed(buf[end:], lim)
			break
		}
		end += n
		if len(args) > 0 {
			req.Argv = append(req.Argv, args...)
			req.Ends = append(req.Ends, len(req.Argv))
			if len(req.Ends) >= maxBatchCommands {
				break
			}
		}
	}
	consumed := end + fed
	waitAuth := false
	var inflightSeen int32 // what waitAuth was decided on
	if perr != nil {
		var pe *codec.ProtocolError
		if !errors.As(perr, &pe) {
			pe = &codec.ProtocolError{Msg: "Protocol error: " + perr.Error()}
		}
		if inflightSeen = cn.inflight.Load(); pe.Unauthenticated && (len(req.Ends) > 0 || inflightSeen > 0) {
			// An AUTH may be among the commands before: run them, then
			// look at this request again (as Redis runs each command
			// before it parses the next).
			waitAuth = true
		} else {
			req.ProtoErr = pe.Msg
			s.logProtocolError(cn, pe.Msg)
			consumed = c.InboundBuffered()
			cn.parser.Reset()
			cn.closing = true
		}
	}
	s.ks.CountNetInput(consumed)
	pending := c.InboundBuffered() - consumed + cn.parser.Buffered()
	bigAlloc, bigRecv := cn.parser.Big()
	cn.client.NoteQueryBuffer(avail-int(cn.parser.BigCopied()-bigBefore), pending, bigAlloc, bigRecv, cn.parser.TakeBigDone())
	if s.ks.NoteClientMemory(cn.client); cn.client.Killed() {
		// Evicted (maxmemory-clients), or cut off meanwhile.
		s.putRequest(req)
		cn.closing = true
		return gnet.Close, false
	}
	// Copy the bytes parsed in place once and point the arguments at the
	// copy: the inbound buffer is reused as soon as they are discarded.
	// Arguments of a request the parser finished already point into
	// req.Data (its first part) or into buffers of their own.
	prefix := req.Data
	pbase := uintptr(unsafe.Pointer(unsafe.SliceData(prefix)))
	plen := len(prefix)
	req.Data = append(req.Data, buf[start:end]...)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf))) + uintptr(start)
	for i, a := range req.Argv {
		if len(a) == 0 {
			req.Argv[i] = req.Data[:0:0]
			continue
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
		var off int
		switch {
		case p >= base && p < base+uintptr(end-start):
			off = plen + int(p-base)
		case plen > 0 && p >= pbase && p < pbase+uintptr(plen):
			off = int(p - pbase)
		default:
			continue // a long bulk in a buffer of its own
		}
		req.Argv[i] = req.Data[off : off+len(a) : off+len(a)]
	}
	if consumed > 0 { // gnet's Discard(0) discards everything
		_, _ = c.Discard(consumed)
	}
	if len(req.Ends) == 0 && req.ProtoErr == "" {
		s.putRequest(req)
		if waitAuth {
			cn.stall(c, inflightSeen) // written resumes
			return s.checkQueryBuffer(cn, c), false
		}
		act := s.checkQueryBuffer(cn, c)
		return act, act == gnet.None
	}
	req.Client = cn.client
	req.conn = cn
	// The arguments count as the client's until the shard starts them.
	req.ArgvMem = int64(len(req.Data)+takenBig) + keyspace.ArgMem*int64(len(req.Argv))
	cn.client.AddArgvMem(req.ArgvMem)
	more = !waitAuth && req.ProtoErr == ""
	if waitAuth {
		// Before the batch is handed over: its replies then go through
		// the loop (writeDirect), whose written resumes.
		cn.stalled = true
		cn.syncHold()
	}
	if cn.inflight.Add(1) == 1 && len(req.Ends) == 1 && s.opts.Inline {
		// A lone command runs here when its shard is idle. A pipelined
		// batch goes through the ring: the loop drains what the turn
		// read, and the replies go out together (see docs/architecture.md).
		if cn.outbox.runInline(cn.shard, &req.Batch) {
			if cn.closing {
				return gnet.None, false // QUIT, or an output limit broken
			}
			return gnet.None, more
		}
	}
	if !cn.shard.Submit(&req.Batch) {
		cn.pending = req
		cn.shard.WaitRoom(cn)
		return gnet.None, false
	}
	return gnet.None, more
}

// checkOutputBuffer closes a connection whose unsent replies break the
// output buffer limits of its class (keyspace.OutputMeter.Check): a client
// that stopped reading, or reads too slowly for too long.
func (s *Server) checkOutputBuffer(cn *conn) gnet.Action {
	out := &cn.client.Out
	lim := s.live.OutputBufferLimit(cn.client.OutputClass())
	pending := out.Pending()
	if why := out.Check(lim, pending, s.clock.Load()); why != keyspace.WithinLimits {
		s.cutOff(cn, why, lim, pending)
		return gnet.Close
	}
	return gnet.None
}

// cutOff marks a connection over its output buffer limit: its queued
// commands are dropped unrun and its input ignored; the caller closes it.
func (s *Server) cutOff(cn *conn, why keyspace.Breach, lim config.OutputLimit, pending int64) {
	if cn.client.Kill() {
		s.ks.OutputCutOff(s.log, cn.client, why, lim, pending)
	}
}

// checkQueryBuffer closes a connection whose unparsed input exceeds the
// query buffer limit.
func (s *Server) checkQueryBuffer(cn *conn, c link) gnet.Action {
	limit := s.live.ClientQueryBufferLimit()
	if buffered := c.InboundBuffered() + cn.parser.Buffered(); limit > 0 && int64(buffered) > limit {
		s.log.Warn("closing client: query buffer limit reached",
			zap.String("remote", cn.client.RemoteAddr), zap.Int("buffered", buffered), zap.Int64("limit", limit))
		cn.closing = true
		return gnet.Close
	}
	return gnet.None
}

// throttle registers a connection paused for its output, to be looked at
// again every throttlePoll; event-loop goroutine only.
func (s *Server) throttle(cn *conn) {
	cn.throttled = true
	cn.syncHold()
	s.throttleMu.Lock()
	s.throttled[cn] = struct{}{}
	s.throttleMu.Unlock()
}

func (s *Server) unthrottle(cn *conn) {
	cn.throttled = false
	cn.syncHold()
	s.throttleMu.Lock()
	delete(s.throttled, cn)
	s.throttleMu.Unlock()
}

// wakeThrottled asks the event loop of every paused connection to look at
// it again.
func (s *Server) wakeThrottled() {
	s.throttleMu.Lock()
	if len(s.throttled) == 0 {
		s.throttleMu.Unlock()
		return
	}
	cns := make([]*conn, 0, len(s.throttled))
	for cn := range s.throttled {
		cns = append(cns, cn)
	}
	s.throttleMu.Unlock()
	for _, cn := range cns {
		cn.Wake()
	}
}

// logProtocolError logs a client's protocol error, at most
// protoErrLogBurst lines a second.
func (s *Server) logProtocolError(cn *conn, msg string) {
	ok, suppressed := s.protoLog.allow(time.Now())
	if !ok {
		return
	}
	fields := []zap.Field{zap.String("remote", cn.client.RemoteAddr), zap.String("error", msg)}
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	s.log.Info("protocol error, closing the connection", fields...)
}

// queryBufCronPeriod is how often client query buffers are resized: every
// client at every run, as Redis's clientsCron does at the default hz with
// few clients.
const queryBufCronPeriod = 100 * time.Millisecond

// idleLoop closes connections idle for longer than the timeout setting and
// runs the query buffer resize cron.
func (s *Server) idleLoop() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	qt := time.NewTicker(queryBufCronPeriod)
	defer qt.Stop()
	ft := time.NewTicker(throttlePoll)
	defer ft.Stop()
	seconds := 0
	for {
		select {
		case <-s.stopIdle:
			return
		case now := <-ft.C:
			s.clock.Store(now.UnixNano())
			s.wakeThrottled()
		case now := <-qt.C:
			if s.ks.ClientsCronPaused.Load() {
				continue
			}
			for _, c := range s.ks.Clients() {
				c.ResizeQueryBuffer(now.UnixNano())
			}
			// Memory that grew without a command (a slow reader's
			// output) is checked against maxmemory-clients here too.
			s.ks.EvictClients()
		case now := <-t.C:
			seconds++
			if seconds%outputPeakPeriod == 0 {
				for _, c := range s.ks.Clients() {
					c.Out.Roll()
				}
			}
			timeout := s.live.Timeout()
			if timeout <= 0 {
				continue
			}
			for _, c := range s.ks.Clients() {
				if now.UnixNano()-c.LastActive() > int64(timeout) {
					s.log.Info("closing idle client", zap.String("remote", c.RemoteAddr), zap.Duration("timeout", timeout))
					_ = c.Conn.Close()
				}
			}
		}
	}
}

// outputPeakPeriod is how many seconds one period of a client's recent
// output buffer peak lasts; INFO's client_recent_max_output_buffer covers
// one to two periods (Redis looks back eight seconds).
const outputPeakPeriod = 4

// link is what the connection logic uses of a connection: gnet.Conn, or
// a TLS link (tlsLink) that behaves as one. Calls other than Wake and
// Close are made on the connection's loop only.
type link interface {
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	InboundBuffered() int
	OutboundBuffered() int
	Write(b []byte) (int, error)
	Wake(cb gnet.AsyncCallback) error
	Close() error
	CloseWithCallback(cb gnet.AsyncCallback) error
}

// conn is the per-connection state of the event loop.
type conn struct {
	gc     link
	srv    *Server
	shard  *keyspace.Shard
	client *keyspace.Client
	// args is the parser's scratch argument list.
	args [][]byte
	// parser holds a request that arrived in part.
	parser codec.Parser
	// pending is a parsed batch that found the shard's ring full.
	pending *request
	// inflight counts this connection's batches handed to its shard whose
	// replies are not written yet. The loop adds; whoever writes the
	// replies (the loop, or writeDirect) takes away.
	inflight atomic.Int32
	// closing is set once the connection is to be closed: its further
	// input is ignored.
	closing bool
	// stalled is set when input was left unread until a batch in flight
	// is written (too many in flight, or waiting to see an AUTH run).
	stalled bool
	// throttled is set while the connection is paused for its output and
	// registered in Server.throttled.
	throttled bool
	// authed is whether the client was authenticated when last seen
	// with nothing in flight.
	authed bool
	// left is the inbound bytes the last OnTraffic left unread.
	left int
	// readPaused is set while its reads are off (gateReads).
	readPaused bool
	// edge is set while epoll reports its input edge-triggered (armEdge).
	edge bool
	// outbox is its reactor's: replies and pushes go through it.
	outbox *outbox
	// closed is set by OnClose: deliveries still in the outbox are
	// dropped (gnet may have given the fd to a new connection).
	closed bool
	// shut is set when the loop has queued the connection's Close: like
	// gnet's writes queued behind a Close, later deliveries are dropped.
	shut bool
	// lingerFD is a duplicate of the socket's descriptor kept after the
	// peer ended its input, for the replies of batches in flight, or -1
	// (linger). lingerTimer ends it after lingerMax. Loop only.
	lingerFD    int
	lingerTimer *time.Timer

	// direct is set, once, before the connection's first batch, when its
	// replies may be written off the loop (Options.DirectReplies, a gnet
	// connection); without it none of the fields below is used, and no
	// delivery takes wmu.
	direct bool
	// wmu orders the writes to the socket made off the loop
	// (request.writeDirect) with everything the loop writes or decides.
	wmu sync.Mutex
	// wfd is the socket's descriptor for writeDirect, or -1 (direct
	// replies off, a TLS link, closed). Under wmu.
	wfd int
	// posted counts the deliveries in the outbox not written yet. Under wmu.
	posted int
	// outbound is set while gnet's outbound buffer may hold bytes. Under wmu.
	outbound bool
	// hold is set while the loop must see every reply: the connection is
	// stalled, throttled, closed or its Close is queued. Under wmu.
	hold bool
}

// Close closes the connection from any goroutine.
func (cn *conn) Close() error { return cn.gc.Close() }

// WriteAsync queues b (which must not change afterwards) to be written
// from the connection's event loop; MONITOR feeds use it. The bytes count
// towards the output buffer limits of the client's class: over them the
// connection is closed and b dropped.
func (cn *conn) WriteAsync(b []byte) { cn.writeAsync(b, false) }

// WritePushAsync is WriteAsync for a buffer from the keyspace's push
// pool (keyspace.PushWriter): once written, or dropped, b goes back to
// the pool.
func (cn *conn) WritePushAsync(b []byte) { cn.writeAsync(b, true) }

func (cn *conn) writeAsync(b []byte, pooled bool) {
	c := cn.client
	ks := cn.srv.ks
	if c.Killed() {
		if pooled {
			ks.PutPushBuffer(b)
		}
		return
	}
	if len(b) == 0 && !pooled {
		// A refresh of the outbound buffer's count (ClientStream.Write).
		cn.outbox.post(delivery{cn: cn})
		return
	}
	out := &c.Out
	n := len(b)
	lim := cn.srv.live.OutputBufferLimit(c.OutputClass())
	pending := out.Pending() + int64(n)
	if why := out.Check(lim, pending, cn.srv.clock.Load()); why != keyspace.WithinLimits {
		cn.srv.cutOff(cn, why, lim, pending)
		_ = cn.gc.Close()
		if pooled {
			ks.PutPushBuffer(b)
		}
		return
	}
	out.Queue(n)
	cn.outbox.post(delivery{cn: cn, b: b, pooled: pooled})
	ks.NoteClientMemory(c)
}

// Wake asks the event loop to retry a batch the shard had no room for.
func (cn *conn) Wake() { _ = cn.gc.Wake(nil) }

// request is a batch plus what the event loop needs to write its replies.
type request struct {
	keyspace.Batch
	conn *conn
	// partial is set when a command of the batch blocked and the rest
	// moved to another request (Split): writing this one does not end
	// the connection's turn.
	partial bool
	// sent is how many bytes of Out.Buf writeDirect put in the socket
	// before it took no more; the loop writes the rest.
	sent int
}

// unsent is the part of the replies not in the socket yet.
func (r *request) unsent() []byte { return r.Out.Buf[r.sent:] }

// Split hands the shard a fresh request of the same connection for the
// commands behind a blocked one (keyspace.Splitter). Called on the shard
// goroutine; the pool is safe for that.
func (r *request) Split() *keyspace.Batch {
	n := r.conn.srv.getRequest()
	n.conn = r.conn
	n.Client = r.Client
	r.partial = true
	return &n.Batch
}

func newRequest() any {
	r := &request{}
	r.Sink = r
	return r
}

func (s *Server) getRequest() *request { return s.requests.Get().(*request) }

func (s *Server) putRequest(r *request) {
	r.Batch.Reset()
	r.Sink = r
	r.conn = nil
	r.partial = false
	r.sent = 0
	if cap(r.Data) > 1<<20 {
		r.Data = nil
	}
	if cap(r.Out.Buf) > 1<<20 {
		r.Out.Buf = nil
	}
	if cap(r.Argv) > 4096 {
		r.Argv = nil
	}
	s.requests.Put(r)
}

// Deliver writes the batch's replies; called by the shard in order. The
// bytes count as the client's pending output until written runs.
func (r *request) Deliver(_ *keyspace.Batch) {
	done, counted := r.writeDirect()
	if done {
		return
	}
	cn := r.conn
	cn.client.Out.Queue(len(r.unsent()))
	if counted {
		cn.outbox.enqueue(delivery{cn: cn, r: r})
	} else {
		cn.outbox.post(delivery{cn: cn, r: r})
	}
	cn.srv.ks.NoteClientMemory(cn.client)
}

// written runs on the event loop once the replies are in the socket or the
// outbound buffer: it enforces the output buffer limit and recycles r.
func (r *request) written(c link, err error) error {
	cn := r.conn
	s := cn.srv
	n := len(r.unsent())
	closeAfter := r.CloseAfter
	partial := r.partial
	s.putRequest(r)
	if !partial {
		cn.inflight.Add(-1)
	}
	if err != nil {
		cn.client.Out.Unqueue(n)
		return nil
	}
	s.ks.CountNetOutput(n)
	cn.client.Out.Written(n, c.OutboundBuffered())
	if closeAfter {
		cn.closing, cn.shut = true, true
		cn.syncHold()
		return c.CloseWithCallback(nil)
	}
	if s.checkOutputBuffer(cn) == gnet.Close {
		cn.closing, cn.shut = true, true
		cn.syncHold()
		return c.CloseWithCallback(nil)
	}
	if cn.stalled {
		cn.stalled = false
		cn.syncHold()
		_ = c.Wake(nil)
	}
	return nil
}
