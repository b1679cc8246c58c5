package control

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// The first byte of a connection to the control port says what it carries.
const (
	connRaft byte = 'R' // the consensus log's traffic
	connRPC  byte = 'C' // requests between members (rpc.go)
)

// muxListener accepts the control port's connections and hands each to the
// consensus transport or the request server by its first byte.
type muxListener struct {
	ln net.Listener
	// advertise is the control address the other members reach this one
	// at: the consensus transport names it as this member's address, so
	// a wildcard listen address ("0.0.0.0:16379") must not leak there.
	advertise net.Addr
	raftCh    chan net.Conn
	rpcConn   func(net.Conn)
	done      chan struct{}
	once      sync.Once
	wg        sync.WaitGroup
	// tls, when set, makes every connection TLS, both ways.
	tls *TLS
}

// TLS secures the control port's links (tls-cluster): every connection to
// a control port, a member's or the `ruvio cluster` tool's, is TLS. The
// functions are called for each new connection, so settings reloaded
// since apply to the next one.
type TLS struct {
	// Server is what a control port serves its connections with.
	Server func() *tls.Config
	// Client is what a member dials other members' control ports with.
	Client func() *tls.Config
}

// tlsHandshakeTimeout bounds the handshake of a control connection.
const tlsHandshakeTimeout = 5 * time.Second

func newMux(ln net.Listener, advertise string, rpcConn func(net.Conn), t *TLS) *muxListener {
	m := &muxListener{ln: ln, advertise: controlAddr(advertise), raftCh: make(chan net.Conn), rpcConn: rpcConn, done: make(chan struct{}), tls: t}
	m.wg.Add(1)
	go m.acceptLoop()
	return m
}

func (m *muxListener) acceptLoop() {
	defer m.wg.Done()
	for {
		c, err := m.ln.Accept()
		if err != nil {
			select {
			case <-m.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go m.route(c)
	}
}

func (m *muxListener) route(c net.Conn) {
	if m.tls != nil {
		// The first read below runs the handshake, within its deadline.
		c = tls.Server(c, m.tls.Server())
	}
	var b [1]byte
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(b[:]); err != nil {
		_ = c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	switch b[0] {
	case connRaft:
		select {
		case m.raftCh <- c:
		case <-m.done:
			_ = c.Close()
		}
	case connRPC:
		m.rpcConn(c)
	default:
		_ = c.Close()
	}
}

// Accept returns the next consensus connection (raft.StreamLayer).
func (m *muxListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.raftCh:
		return c, nil
	case <-m.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting.
func (m *muxListener) Close() error {
	var err error
	m.once.Do(func() {
		close(m.done)
		err = m.ln.Close()
	})
	return err
}

// Addr is the control port's advertised address (raft.StreamLayer).
func (m *muxListener) Addr() net.Addr { return m.advertise }

// controlAddr is a "host:port" as a net.Addr.
type controlAddr string

func (a controlAddr) Network() string { return "tcp" }
func (a controlAddr) String() string  { return string(a) }

// Dial opens a consensus connection to address (raft.StreamLayer).
func (m *muxListener) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	var conf *tls.Config
	if m.tls != nil {
		conf = m.tls.Client()
	}
	return dialKind(string(address), connRaft, timeout, conf)
}

// dialKind connects to a control port, over TLS with conf when it is not
// nil, and names what the connection carries.
func dialKind(addr string, kind byte, timeout time.Duration, conf *tls.Config) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	if conf != nil {
		tc := tls.Client(c, conf)
		_ = c.SetDeadline(time.Now().Add(min(timeout, tlsHandshakeTimeout)))
		if err := tc.Handshake(); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("control: TLS handshake with %s: %w", addr, err)
		}
		_ = c.SetDeadline(time.Time{})
		c = tc
	}
	_ = c.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte{kind}); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("control: %s: %w", addr, err)
	}
	_ = c.SetWriteDeadline(time.Time{})
	return c, nil
}
