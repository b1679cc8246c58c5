package eventloop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
	"go.uber.org/zap"

	"github.com/ruvio/ruvio/config"
)

// The listeners are the server's own (net.Listener), not gnet's: a gnet
// engine cannot close one of its listeners and keep the connections it
// accepted, and Redis's CONFIG SET port / bind / tls-port must do just
// that. The gnet engines run without listeners (gnet.Client, one per shard
// with ReactorPerShard, else one of Reactors loops); each listener has a
// goroutine that accepts and hands the connection to its shard's engine
// (EnrollContext, which registers a duplicate of the descriptor with a
// loop and runs OnOpen there), with the shard's index as the connection's
// context. TLS listeners hand their connections to serveTLS instead.

// listenKind says what a listener's connections are.
type listenKind uint8

const (
	listenTCP listenKind = iota
	listenTLS
	listenUnix
)

// listener is one listening socket and the shard its connections belong to.
type listener struct {
	ln   net.Listener
	kind listenKind
	// key names the socket (kind, network, address) so that a change that
	// keeps it reuses it.
	key string
	// shard is the index of the shard its connections belong to; a change
	// of ports may give a reused socket to another shard.
	shard atomic.Int32
	// host is the bind address it was opened for (protected mode).
	host string
}

// openCtx is the context a connection is enrolled with: what OnOpen needs
// to know of the listener that accepted it.
type openCtx struct {
	shard int
	unix  bool
}

// listenSpec is one socket to open.
type listenSpec struct {
	kind     listenKind
	network  string
	host     string
	port     int
	shard    int
	optional bool
}

func (sp listenSpec) key() string {
	return strconv.Itoa(int(sp.kind)) + "/" + sp.network + "/" + net.JoinHostPort(sp.host, strconv.Itoa(sp.port))
}

// plan lists the sockets the settings ls ask for: for every bind address,
// shard i's port ls.Port+i and, with a TLS port, its TLS port ls.TLSPort+i.
func (s *Server) plan(ls config.Listeners) []listenSpec {
	var out []listenSpec
	for _, a := range config.ParseBind(ls.Bind) {
		for i := 0; i < s.ks.Shards(); i++ {
			if ls.Port > 0 {
				out = append(out, listenSpec{listenTCP, a.Network, a.Host, ls.Port + i, i, a.Optional})
			}
			if ls.TLSPort > 0 {
				out = append(out, listenSpec{listenTLS, a.Network, a.Host, ls.TLSPort + i, i, a.Optional})
			}
		}
	}
	return out
}

// skippable reports whether an optional address may be left out after
// err: the host lacks the address or its protocol, as Redis skips a
// '-' address.
func skippable(err error) bool {
	for _, e := range []syscall.Errno{syscall.EADDRNOTAVAIL, syscall.EAFNOSUPPORT, syscall.EPROTONOSUPPORT,
		syscall.ESOCKTNOSUPPORT, syscall.EPFNOSUPPORT, syscall.ENOPROTOOPT} {
		if errors.Is(err, e) {
			return true
		}
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// resolveTimeout bounds the name lookup of a bind address given as a host
// name.
const resolveTimeout = 2 * time.Second

// openOne opens one socket.
func (s *Server) openOne(sp listenSpec) (*listener, error) {
	if sp.kind == listenTLS && s.tls.Load() == nil {
		return nil, errors.New("no TLS settings (tls-cert-file, tls-key-file)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	// SO_REUSEADDR, as Redis sets it; no TCP keep-alive on accepted
	// connections (gnet's listeners set none either), which spares the
	// setsockopt calls of Go's default on every accept.
	lc := net.ListenConfig{KeepAlive: -1}
	ln, err := lc.Listen(ctx, sp.network, net.JoinHostPort(sp.host, strconv.Itoa(sp.port)))
	if err != nil {
		return nil, err
	}
	l := &listener{ln: ln, kind: sp.kind, key: sp.key(), host: sp.host}
	l.shard.Store(int32(sp.shard))
	return l, nil
}

// openAll opens the sockets of specs, reusing those of have whose key
// matches (reused maps them to their new shard). On a failure it closes
// what it opened and returns the error; an optional address the host
// lacks is skipped and logged.
func (s *Server) openAll(specs []listenSpec, have map[string]*listener) (opened []*listener, reused map[*listener]int, err error) {
	reused = make(map[*listener]int)
	for _, sp := range specs {
		if old, ok := have[sp.key()]; ok {
			reused[old] = sp.shard
			continue
		}
		l, err := s.openOne(sp)
		if err == nil {
			opened = append(opened, l)
			continue
		}
		what := "TCP"
		if sp.kind == listenTLS {
			what = "TLS"
		}
		if sp.optional && skippable(err) {
			s.log.Warn(fmt.Sprintf("Could not create server %s listening socket %s: skipping the optional address", what,
				net.JoinHostPort(sp.host, strconv.Itoa(sp.port))), zap.Error(err))
			continue
		}
		// Redis's line, with Go's reason.
		s.log.Warn(fmt.Sprintf("Warning: Could not create server %s listening socket %s: %v", what,
			net.JoinHostPort(sp.host, strconv.Itoa(sp.port)), err))
		for _, l := range opened {
			_ = l.ln.Close()
		}
		return nil, nil, err
	}
	return opened, reused, nil
}

// portClash reports whether err is an address in use on a port one of ls
// holds: a socket of the server's own is in the way (a wildcard address
// and a specific one on one port), and the change needs the old sockets
// closed first.
func portClash(err error, ls []*listener) bool {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return false
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		return false
	}
	ta, ok := op.Addr.(*net.TCPAddr)
	if !ok {
		return false
	}
	for _, l := range ls {
		if a, ok := l.ln.Addr().(*net.TCPAddr); ok && a.Port == ta.Port {
			return true
		}
	}
	return false
}

// SetListeners moves the TCP and TLS listeners to the settings ls (CONFIG
// SET bind, port, tls-port): the sockets ls asks for are opened, those it
// no longer asks for closed; open connections stay. If a socket cannot be
// opened, the error is returned and the server keeps listening where it
// did. The Unix socket is not affected.
func (s *Server) SetListeners(ls config.Listeners) error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.lnStopped {
		return errors.New("eventloop: the server is stopping")
	}
	return s.setListenersLocked(ls)
}

func (s *Server) setListenersLocked(ls config.Listeners) error {
	specs := s.plan(ls)
	var old []*listener
	have := make(map[string]*listener)
	for _, l := range s.listeners {
		if l.kind != listenUnix {
			old = append(old, l)
			have[l.key] = l
		}
	}
	opened, reused, err := s.openAll(specs, have)
	if err != nil && portClash(err, old) {
		// One of our own sockets is in the way: close them all, open the
		// new ones, and on failure open the old ones again (as Redis's
		// changeBindAddr).
		s.log.Warn("Failed to bind, trying to restore old listening sockets.")
		s.closeListeners(old)
		opened, reused, err = s.openAll(specs, nil)
		if err != nil {
			back, _, rerr := s.openAll(s.plan(s.cur), nil)
			if rerr != nil {
				s.log.Error("Failed to restore old listening sockets: this server no longer listens on its TCP ports",
					zap.Error(rerr))
			}
			s.replaceListeners(back)
			return fmt.Errorf("eventloop: listen: %w", err)
		}
		old = nil
	}
	if err != nil {
		return fmt.Errorf("eventloop: listen: %w", err)
	}
	var gone []*listener
	for _, l := range old {
		if _, ok := reused[l]; !ok {
			gone = append(gone, l)
		}
	}
	for l, shard := range reused {
		l.shard.Store(int32(shard))
	}
	s.closeListeners(gone)
	s.replaceListeners(opened)
	s.cur = ls
	if s.ready {
		s.log.Info("Listening on new addresses", zap.String("bind", ls.Bind), zap.Int("port", ls.Port),
			zap.Int("tls_port", ls.TLSPort), zap.Strings("addresses", s.addressesLocked()))
	}
	return nil
}

// closeListeners closes ls and forgets them; their accept goroutines end.
func (s *Server) closeListeners(ls []*listener) {
	if len(ls) == 0 {
		return
	}
	gone := make(map[*listener]bool, len(ls))
	for _, l := range ls {
		gone[l] = true
		_ = l.ln.Close()
	}
	kept := s.listeners[:0]
	for _, l := range s.listeners {
		if !gone[l] {
			kept = append(kept, l)
		}
	}
	clear(s.listeners[len(kept):])
	s.listeners = kept
}

// replaceListeners starts serving opened (the listeners kept are served
// already). It recomputes what protected mode needs to know of the
// listeners.
func (s *Server) replaceListeners(opened []*listener) {
	for _, l := range opened {
		s.listeners = append(s.listeners, l)
		s.acceptWG.Add(1)
		go s.accept(l)
	}
	loopback, tlsOn := true, false
	for _, l := range s.listeners {
		switch l.kind {
		case listenUnix:
			continue
		case listenTLS:
			tlsOn = true
		}
		ip := net.ParseIP(l.host)
		if !(ip != nil && ip.IsLoopback() || l.host == "localhost") {
			loopback = false
		}
	}
	s.loopback.Store(loopback)
	s.tlsListening.Store(tlsOn)
}

// addressesLocked lists the addresses listened on.
func (s *Server) addressesLocked() []string {
	out := make([]string, 0, len(s.listeners))
	for _, l := range s.listeners {
		a := l.ln.Addr().String()
		switch l.kind {
		case listenTLS:
			a = "tls://" + a
		case listenUnix:
			a = "unix://" + a
		default:
			a = "tcp://" + a
		}
		out = append(out, a)
	}
	return out
}

// listenUnix opens the Unix socket, shard 0's, replacing a stale socket
// at its path (checkUnixSocket refused anything else), with its
// permission bits.
func (s *Server) listenUnix() error {
	path := s.opts.UnixSocket
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("eventloop: unixsocket %s: %w", path, err)
	}
	if s.opts.UnixSocketPerm != 0 {
		if err := os.Chmod(path, s.opts.UnixSocketPerm); err != nil {
			s.log.Warn("unixsocketperm not applied", zap.String("unixsocket", path), zap.Error(err))
		}
	}
	l := &listener{ln: ln, kind: listenUnix, key: "unix/" + path}
	s.replaceListeners([]*listener{l})
	return nil
}

// accept accepts the connections of one listener until it is closed.
func (s *Server) accept(l *listener) {
	defer s.acceptWG.Done()
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.log.Warn("accepting a connection", zap.Error(err))
			time.Sleep(10 * time.Millisecond) // out of descriptors: let some close
			continue
		}
		shard := int(l.shard.Load())
		switch l.kind {
		case listenTLS:
			s.tlsWG.Add(1)
			go s.serveTLS(nc, shard)
		default:
			ctx := openCtx{shard: shard, unix: l.kind == listenUnix}
			// EnrollContext closes nc once its duplicate is registered.
			if _, err := s.engineOf(shard).EnrollContext(nc, ctx); err != nil {
				s.log.Warn("handing a connection to its event loop", zap.Error(err))
			}
		}
	}
}

// engineOf is the engine whose loops read shard's connections.
func (s *Server) engineOf(shard int) *gnet.Client {
	if len(s.engines) == 1 {
		return s.engines[0]
	}
	return s.engines[shard]
}

// startEngines starts the listener-less gnet engines: one of one loop per
// shard with ReactorPerShard, else one of Reactors loops (one per CPU).
func (s *Server) startEngines() error {
	n := 1
	if s.opts.ReactorPerShard {
		n = s.ks.Shards()
	}
	gopts := []gnet.Option{
		gnet.WithMulticore(!s.opts.ReactorPerShard),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithReadBufferCap(readBufferCap),
		gnet.WithLogger(s.log.Sugar()),
	}
	if !s.opts.ReactorPerShard && s.opts.Reactors > 0 {
		gopts = append(gopts, gnet.WithNumEventLoop(s.opts.Reactors))
	}
	for i := 0; i < n; i++ {
		cli, err := gnet.NewClient(s, gopts...)
		if err == nil {
			err = cli.Start()
		}
		if err != nil {
			s.stopEngines()
			return fmt.Errorf("eventloop: starting the event loops: %w", err)
		}
		s.engines = append(s.engines, cli)
	}
	return nil
}

// stopEngines stops the engines: their loops close every connection.
func (s *Server) stopEngines() {
	for _, cli := range s.engines {
		if err := cli.Stop(); err != nil {
			s.log.Warn("stopping an event loop", zap.Error(err))
		}
	}
	s.engines = nil
}
