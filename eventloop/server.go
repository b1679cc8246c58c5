package eventloop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
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
	// Bind is the address every shard listens on; shard i uses Port+i.
	Bind string
	Port int
	// Reactors is the number of gnet event loops (0: one per CPU).
	Reactors int
	// Inline lets a reactor run a batch on an idle shard (Shard.TryRun).
	Inline bool
	// MaxMultibulkLen bounds the arguments of one request.
	MaxMultibulkLen int
	// Logger receives logs; nil means no logging.
	Logger *zap.Logger
}

// Server is the gnet event handler: it accepts connections, parses
// requests into batches for the connection's shard and writes replies back.
type Server struct {
	gnet.BuiltinEventEngine

	opts     Options
	ks       *keyspace.Server
	live     *config.Live
	log      *zap.Logger
	engine   gnet.Engine
	booted   chan struct{}
	addrs    []string
	loopback bool

	// requests recycles batches between reactors and shards.
	requests sync.Pool

	stopOnce sync.Once
	stopIdle chan struct{}
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
		opts:     opts,
		ks:       opts.Keyspace,
		live:     opts.Live,
		log:      opts.Logger,
		booted:   make(chan struct{}),
		stopIdle: make(chan struct{}),
	}
	s.requests.New = newRequest
	ip := net.ParseIP(opts.Bind)
	s.loopback = ip != nil && ip.IsLoopback() || opts.Bind == "localhost"
	for i := 0; i < s.ks.Shards(); i++ {
		s.addrs = append(s.addrs, "tcp://"+net.JoinHostPort(opts.Bind, strconv.Itoa(opts.Port+i)))
	}
	return s, nil
}

// Serve listens on every shard's port and blocks until Stop.
func (s *Server) Serve() error {
	reactors := s.opts.Reactors
	gopts := []gnet.Option{
		gnet.WithMulticore(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithReuseAddr(true),
		gnet.WithLogger(s.log.Sugar()),
	}
	if reactors > 0 {
		gopts = append(gopts, gnet.WithNumEventLoop(reactors))
	}
	go s.idleLoop()
	err := gnet.Rotate(s, s.addrs, gopts...)
	if err != nil {
		return fmt.Errorf("eventloop: serve %v: %w", s.addrs, err)
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
		select {
		case <-s.booted:
			err = s.engine.Stop(ctx)
		default:
		}
	})
	return err
}

// OnBoot records the engine.
func (s *Server) OnBoot(eng gnet.Engine) gnet.Action {
	s.engine = eng
	s.log.Info("listening", zap.Strings("addresses", s.addrs))
	close(s.booted)
	return gnet.None
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

// OnOpen assigns the connection to the shard of the port it came in on.
func (s *Server) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	local, _ := c.LocalAddr().(*net.TCPAddr)
	remote, _ := c.RemoteAddr().(*net.TCPAddr)
	if local == nil || remote == nil {
		return nil, gnet.Close
	}
	if refusedByProtectedMode(s.loopback, s.live.ProtectedMode(), s.live.RequirePass() != "", remote.IP) {
		s.log.Warn("refused a remote client: protected mode", zap.String("remote", remote.String()))
		return []byte(protectedModeMessage), gnet.Close
	}
	shard := local.Port - s.opts.Port
	if shard < 0 || shard >= s.ks.Shards() {
		return nil, gnet.Close
	}
	cn := &conn{gc: c, srv: s, shard: s.ks.Shard(shard)}
	client, ok := s.ks.Connected(shard, remote.String(), local.String(), cn)
	if !ok {
		s.log.Warn("refused a client: maxclients reached", zap.String("remote", remote.String()))
		return []byte("-" + keyspace.MaxClientsError + "\r\n"), gnet.Close
	}
	cn.client = client
	c.SetContext(cn)
	return nil, gnet.None
}

// OnClose forgets the connection.
func (s *Server) OnClose(c gnet.Conn, _ error) gnet.Action {
	if cn, ok := c.Context().(*conn); ok && cn != nil {
		s.ks.Disconnected(cn.client)
		if cn.pending != nil {
			s.putRequest(cn.pending)
			cn.pending = nil
		}
	}
	return gnet.None
}

// OnTraffic parses every complete request in the inbound buffer into one
// batch and hands it to the connection's shard.
func (s *Server) OnTraffic(c gnet.Conn) gnet.Action {
	cn, ok := c.Context().(*conn)
	if !ok || cn == nil || cn.closing {
		return gnet.None
	}
	if cn.pending != nil {
		if !cn.shard.Submit(&cn.pending.Batch) {
			cn.shard.WaitRoom(cn)
			return s.checkQueryBuffer(cn, c)
		}
		cn.pending = nil
	}
	buf, _ := c.Peek(-1)
	if len(buf) == 0 {
		return gnet.None
	}
	// Bytes left unparsed by the previous call were counted then.
	s.ks.CountNetInput(len(buf) - cn.unparsed)
	lim := codec.Limits{
		MaxBulkLen:      s.live.ProtoMaxBulkLen(),
		MaxMultibulkLen: s.opts.MaxMultibulkLen,
	}
	req := s.getRequest()
	consumed := 0
	for consumed < len(buf) {
		args, n, err := codec.ParseCommand(buf[consumed:], cn.args[:0], lim)
		cn.args = args
		if err != nil {
			var pe *codec.ProtocolError
			if errors.As(err, &pe) {
				req.ProtoErr = pe.Msg
			} else {
				req.ProtoErr = "Protocol error: " + err.Error()
			}
			s.log.Info("protocol error, closing the connection", zap.String("remote", cn.client.RemoteAddr), zap.String("error", req.ProtoErr))
			consumed = len(buf)
			cn.closing = true
			break
		}
		if n == 0 {
			break
		}
		consumed += n
		if len(args) == 0 {
			continue
		}
		req.Argv = append(req.Argv, args...)
		req.Ends = append(req.Ends, len(req.Argv))
	}
	cn.client.NoteQueryBuffer(len(buf), len(buf)-consumed)
	cn.unparsed = len(buf) - consumed
	if consumed == 0 {
		s.putRequest(req)
		return s.checkQueryBuffer(cn, c)
	}
	// Copy the consumed bytes once and point the arguments at the copy:
	// the inbound buffer is reused as soon as this returns.
	req.Data = append(req.Data[:0], buf[:consumed]...)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	for i, a := range req.Argv {
		if len(a) == 0 {
			req.Argv[i] = req.Data[:0:0]
			continue
		}
		off := int(uintptr(unsafe.Pointer(unsafe.SliceData(a))) - base)
		req.Argv[i] = req.Data[off : off+len(a) : off+len(a)]
	}
	_, _ = c.Discard(consumed)
	if len(req.Ends) == 0 && req.ProtoErr == "" {
		s.putRequest(req)
		return gnet.None
	}
	req.Client = cn.client
	req.conn = cn
	if cn.inflight == 0 && s.opts.Inline {
		if ran, ready := cn.shard.TryRun(&req.Batch); ran {
			if ready {
				return s.writeInline(cn, c, req)
			}
			cn.inflight++
			return gnet.None
		}
	}
	cn.inflight++
	if !cn.shard.Submit(&req.Batch) {
		cn.pending = req
		cn.shard.WaitRoom(cn)
	}
	return gnet.None
}

// writeInline writes the replies of a batch the shard ran on this event
// loop, and recycles it.
func (s *Server) writeInline(cn *conn, c gnet.Conn, req *request) gnet.Action {
	s.ks.CountNetOutput(len(req.Out.Buf))
	_, err := c.Write(req.Out.Buf)
	closeAfter := req.CloseAfter
	s.putRequest(req)
	if err != nil || closeAfter {
		cn.closing = true
		return gnet.Close
	}
	return s.checkOutputBuffer(cn, c)
}

// checkOutputBuffer closes a connection whose unsent replies exceed the
// client output buffer limit: a client that stopped reading.
func (s *Server) checkOutputBuffer(cn *conn, c gnet.Conn) gnet.Action {
	if limit := s.live.ClientOutputBufferLimit(); limit > 0 && int64(c.OutboundBuffered()) > limit {
		s.ks.CountOutputBufferKill()
		s.log.Warn("closing client: output buffer limit reached",
			zap.String("remote", cn.client.RemoteAddr), zap.Int("buffered", c.OutboundBuffered()), zap.Int64("limit", limit))
		cn.closing = true
		return gnet.Close
	}
	return gnet.None
}

// checkQueryBuffer closes a connection whose unparsed input exceeds the
// query buffer limit.
func (s *Server) checkQueryBuffer(cn *conn, c gnet.Conn) gnet.Action {
	limit := s.live.ClientQueryBufferLimit()
	if limit > 0 && int64(c.InboundBuffered()) > limit {
		s.log.Warn("closing client: query buffer limit reached",
			zap.String("remote", cn.client.RemoteAddr), zap.Int("buffered", c.InboundBuffered()), zap.Int64("limit", limit))
		return gnet.Close
	}
	return gnet.None
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
	for {
		select {
		case <-s.stopIdle:
			return
		case now := <-qt.C:
			for _, c := range s.ks.Clients() {
				c.ResizeQueryBuffer(now.UnixNano())
			}
		case now := <-t.C:
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

// conn is the per-connection state of the event loop.
type conn struct {
	gc     gnet.Conn
	srv    *Server
	shard  *keyspace.Shard
	client *keyspace.Client
	// args is the parser's scratch argument list.
	args [][]byte
	// pending is a parsed batch that found the shard's ring full.
	pending *request
	// unparsed is how many inbound bytes the last OnTraffic left in the
	// buffer (an incomplete request).
	unparsed int
	// inflight counts this connection's batches handed to its shard whose
	// replies are not written yet; event-loop goroutine only.
	inflight int
	// closing is set once the connection is to be closed: its further
	// input is ignored.
	closing bool
}

// Close closes the connection from any goroutine.
func (cn *conn) Close() error { return cn.gc.Close() }

// WriteAsync queues b (which must not change afterwards) to be written
// from the connection's event loop; MONITOR feeds use it.
func (cn *conn) WriteAsync(b []byte) {
	if err := cn.gc.AsyncWrite(b, nil); err == nil {
		cn.srv.ks.CountNetOutput(len(b))
	}
}

// Wake asks the event loop to retry a batch the shard had no room for.
func (cn *conn) Wake() { _ = cn.gc.Wake(nil) }

// request is a batch plus what the event loop needs to write its replies.
type request struct {
	keyspace.Batch
	conn *conn
	done gnet.AsyncCallback
}

func newRequest() any {
	r := &request{}
	r.Sink = r
	r.done = r.written
	return r
}

func (s *Server) getRequest() *request { return s.requests.Get().(*request) }

func (s *Server) putRequest(r *request) {
	r.Batch.Reset()
	r.Sink = r
	r.conn = nil
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

// Deliver writes the batch's replies; called by the shard in order.
func (r *request) Deliver(_ *keyspace.Batch) {
	cn := r.conn
	if err := cn.gc.AsyncWrite(r.Out.Buf, r.done); err != nil {
		cn.srv.putRequest(r)
	}
}

// written runs on the event loop once the replies are in the socket or the
// outbound buffer: it enforces the output buffer limit and recycles r.
func (r *request) written(c gnet.Conn, err error) error {
	cn := r.conn
	s := cn.srv
	s.ks.CountNetOutput(len(r.Out.Buf))
	closeAfter := r.CloseAfter
	s.putRequest(r)
	cn.inflight--
	if err != nil {
		return nil
	}
	if closeAfter {
		cn.closing = true
		return c.CloseWithCallback(nil)
	}
	if s.checkOutputBuffer(cn, c) == gnet.Close {
		return c.CloseWithCallback(nil)
	}
	return nil
}
