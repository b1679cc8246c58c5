package integration_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/internal/testserver"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // its certificate, PEM
	pool *x509.CertPool
}

// newTestCA makes a CA whose certificate is written in dir.
func newTestCA(t *testing.T, dir, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+"-ca.crt")
	writePEM(t, file, "CERTIFICATE", der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, file: file, pool: pool}
}

var serialSeq atomic.Int64

// issue makes a certificate for cn signed by the CA, valid from notBefore
// to notAfter, for a server (127.0.0.1) and a client; its files are
// written in dir as name.crt and name.key.
func (ca *testCA) issue(t *testing.T, dir, name, cn string, notBefore, notAfter time.Time) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(100 + serialSeq.Add(1)),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder)
	return certFile, keyFile
}

// valid issues a certificate valid now.
func (ca *testCA) valid(t *testing.T, dir, name, cn string) (string, string) {
	return ca.issue(t, dir, name, cn, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
}

func writePEM(t *testing.T, file, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsEnv is a CA, a server certificate and a client certificate.
type tlsEnv struct {
	dir                   string
	ca                    *testCA
	serverCert, serverKey string
	clientCert, clientKey string
}

func newTLSEnv(t *testing.T) *tlsEnv {
	t.Helper()
	dir := t.TempDir()
	e := &tlsEnv{dir: dir, ca: newTestCA(t, dir, "root")}
	e.serverCert, e.serverKey = e.ca.valid(t, dir, "server", "ruvio-server")
	e.clientCert, e.clientKey = e.ca.valid(t, dir, "client", "client")
	return e
}

// options has the server serve TLS with the environment's files on free
// ports, mutual TLS required (Redis's default).
func (e *tlsEnv) options(more func(*config.TLSConfig)) testserver.Option {
	return testserver.Config(func(c *config.Config) {
		c.TLS.Port = testserver.FreePort
		c.TLS.CertFile, c.TLS.KeyFile = e.serverCert, e.serverKey
		c.TLS.CACertFile = e.ca.file
		if more != nil {
			more(&c.TLS)
		}
	})
}

// clientConfig is a client's TLS configuration trusting the CA, with the
// certificate of certFile when it is not "".
func (e *tlsEnv) clientConfig(t *testing.T, certFile, keyFile string) *tls.Config {
	t.Helper()
	tc := &tls.Config{RootCAs: e.ca.pool, ServerName: "127.0.0.1"}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		// Sent whatever CAs the server names, so that the server is
		// the one to judge it.
		tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	return tc
}

// tlsClient is a go-redis client of addr over TLS.
func tlsClient(t *testing.T, addr string, tc *tls.Config) *redis.Client {
	t.Helper()
	c := redis.NewClient(clientTimeouts(&redis.Options{Addr: addr, TLSConfig: tc, MaxRetries: -1, DisableIdentity: true}))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// dialTLS makes a TLS connection to addr with its own deadline.
func dialTLS(addr string, tc *tls.Config) (*tls.Conn, error) {
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: requestTimeout}, Config: tc}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	tlsConn := c.(*tls.Conn)
	// TLS 1.3 reports a refused client certificate at the first read.
	_ = tlsConn.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := tlsConn.Write([]byte("PING\r\n")); err != nil {
		_ = tlsConn.Close()
		return nil, err
	}
	line, err := bufio.NewReader(tlsConn).ReadString('\n')
	if err != nil {
		_ = tlsConn.Close()
		return nil, err
	}
	if line != "+PONG\r\n" {
		_ = tlsConn.Close()
		return nil, errors.New("PING answered " + strconv.Quote(line))
	}
	_ = tlsConn.SetDeadline(time.Time{})
	return tlsConn, nil
}

// TestTLSCommands: a TLS client runs commands through the same path as a
// plain one: strings, MULTI, Pub/Sub, a blocking command, CLIENT LIST; the
// plain port still serves beside it.
func TestTLSCommands(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	c := tlsClient(t, s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	expect(t, c, "PONG", "PING")
	expect(t, c, "OK", "SET", "k", "v")
	expect(t, c, "v", "GET", "k")
	big := strings.Repeat("x", 1<<20)
	expect(t, c, "OK", "SET", "big", big)
	expect(t, c, big, "GET", "big")
	pipe := c.Pipeline()
	for i := 0; i < 2000; i++ {
		pipe.Incr(ctxT(t), "n")
	}
	if _, err := pipe.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	expect(t, c, "2000", "GET", "n")
	tx := c.TxPipeline()
	tx.Set(ctxT(t), "a", "1", 0)
	tx.Incr(ctxT(t), "a")
	if _, err := tx.Exec(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	expect(t, c, "2", "GET", "a")

	sub := c.Subscribe(ctxT(t), "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	plain := s.Client(t)
	expect(t, plain, int64(1), "PUBLISH", "ch", "hello")
	msg, err := sub.ReceiveMessage(ctxT(t))
	if err != nil || msg.Payload != "hello" {
		t.Fatalf("message over TLS: %v %v", msg, err)
	}

	got := make(chan []string, 1)
	go func() {
		v, _ := c.BLPop(ctxT(t), 0, "list").Result()
		got <- v
	}()
	waitFor(t, 20*time.Second, "the blocked client", func() bool {
		return strings.Contains(plain.ClientList(ctxT(t)).Val(), "cmd=blpop")
	})
	expect(t, plain, int64(1), "RPUSH", "list", "x")
	if v := <-got; len(v) != 2 || v[1] != "x" {
		t.Errorf("BLPOP over TLS: %v", v)
	}
	list := plain.ClientList(ctxT(t)).Val()
	if !strings.Contains(list, "laddr="+s.TLSAddrs[0]) {
		t.Errorf("CLIENT LIST lacks the TLS client:\n%s", list)
	}
}

// TestTLSRedisCLI: redis-cli --tls with a client certificate is served;
// without one it is refused (tls-auth-clients yes).
func TestTLSRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	port := strconv.Itoa(s.Config.TLS.Port)
	run := func(args ...string) (string, error) {
		ctx := ctxT(t)
		out, err := exec.CommandContext(ctx, cli, append([]string{"-h", "127.0.0.1", "-p", port, "--tls", "--cacert", e.ca.file}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	out, err := run("--cert", e.clientCert, "--key", e.clientKey, "SET", "cli", "yes")
	if err != nil || out != "OK" {
		t.Fatalf("redis-cli --tls SET: %q %v", out, err)
	}
	if out, err := run("--cert", e.clientCert, "--key", e.clientKey, "GET", "cli"); err != nil || out != "yes" {
		t.Fatalf("redis-cli --tls GET: %q %v", out, err)
	}
	if out, _ := run("PING"); out == "PONG" {
		t.Errorf("redis-cli without a client certificate was served: %q", out)
	}
}

// TestTLSMutual: tls-auth-clients yes refuses a client without a
// certificate, with one from another CA and with an expired one; optional
// serves one without; no asks for none.
func TestTLSMutual(t *testing.T) {
	e := newTLSEnv(t)
	other := newTestCA(t, e.dir, "other")
	strangerCert, strangerKey := other.valid(t, e.dir, "stranger", "stranger")
	expiredCert, expiredKey := e.ca.issue(t, e.dir, "expired", "old", time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))

	s := testserver.Start(t, e.options(nil))
	addr := s.TLSAddrs[0]
	if c, err := dialTLS(addr, e.clientConfig(t, e.clientCert, e.clientKey)); err != nil {
		t.Fatalf("a client with a valid certificate: %v", err)
	} else {
		_ = c.Close()
	}
	for name, tc := range map[string]*tls.Config{
		"no certificate":      e.clientConfig(t, "", ""),
		"another CA's":        e.clientConfig(t, strangerCert, strangerKey),
		"expired certificate": e.clientConfig(t, expiredCert, expiredKey),
	} {
		if c, err := dialTLS(addr, tc); err == nil {
			_ = c.Close()
			t.Errorf("%s: served", name)
		}
	}
	// The client refuses a server whose certificate its CA did not sign.
	wrong := &tls.Config{RootCAs: other.pool, ServerName: "127.0.0.1"}
	if c, err := dialTLS(addr, wrong); err == nil {
		_ = c.Close()
		t.Error("a server certificate from another CA was accepted")
	}

	plain := s.Client(t)
	expect(t, plain, "OK", "CONFIG", "SET", "tls-auth-clients", "optional")
	expect(t, plain, map[interface{}]interface{}{"tls-auth-clients": "optional"}, "CONFIG", "GET", "tls-auth-clients")
	if c, err := dialTLS(addr, e.clientConfig(t, "", "")); err != nil {
		t.Errorf("optional: a client without a certificate: %v", err)
	} else {
		_ = c.Close()
	}
	if c, err := dialTLS(addr, e.clientConfig(t, strangerCert, strangerKey)); err == nil {
		_ = c.Close()
		t.Error("optional: a certificate of another CA was served")
	}
	expect(t, plain, "OK", "CONFIG", "SET", "tls-auth-clients", "no")
	if c, err := dialTLS(addr, e.clientConfig(t, "", "")); err != nil {
		t.Errorf("no: a client without a certificate: %v", err)
	} else {
		_ = c.Close()
	}
}

// TestTLSProtocols: a version outside tls-protocols is refused.
func TestTLSProtocols(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(func(c *config.TLSConfig) { c.Protocols = "TLSv1.3" }))
	tc := e.clientConfig(t, e.clientCert, e.clientKey)
	tc.MaxVersion = tls.VersionTLS12
	if c, err := dialTLS(s.TLSAddrs[0], tc); err == nil {
		_ = c.Close()
		t.Fatal("a TLS 1.2 client was served with tls-protocols TLSv1.3")
	}
	tc.MaxVersion = 0
	if c, err := dialTLS(s.TLSAddrs[0], tc); err != nil {
		t.Fatalf("a TLS 1.3 client: %v", err)
	} else if c.ConnectionState().Version != tls.VersionTLS13 {
		t.Errorf("version %x", c.ConnectionState().Version)
		_ = c.Close()
	} else {
		_ = c.Close()
	}
	plain := s.Client(t)
	expectErr(t, plain, "ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to update TLS configuration. Check server logs.",
		"CONFIG", "SET", "tls-protocols", "TLSv9")
	expect(t, plain, map[interface{}]interface{}{"tls-protocols": "TLSv1.3"}, "CONFIG", "GET", "tls-protocols")
}

// readUntilClosed reads from c until the server closes it; it fails the
// test if its own deadline passes first (a hang).
func readUntilClosed(t *testing.T, c net.Conn, what string) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(requestTimeout))
	got, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server did not close the connection", what)
	}
	return got
}

// TestTLSHostileClients: plaintext on the TLS port and a client that never
// finishes its handshake are closed, not left hanging; the server goes on.
func TestTLSHostileClients(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(func(c *config.TLSConfig) { c.HandshakeTimeoutMs = 200 }))
	addr := s.TLSAddrs[0]

	c, err := net.DialTimeout("tcp", addr, requestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetWriteDeadline(time.Now().Add(requestTimeout))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	if got := readUntilClosed(t, c, "plaintext"); strings.Contains(string(got), "PONG") {
		t.Errorf("plaintext on the TLS port was answered: %q", got)
	}
	_ = c.Close()

	// Connected, and silent: the handshake timeout closes it.
	c, err = net.DialTimeout("tcp", addr, requestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	readUntilClosed(t, c, "a silent client")
	_ = c.Close()

	// Garbage after a valid start of a record.
	c, err = net.DialTimeout("tcp", addr, requestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetWriteDeadline(time.Now().Add(requestTimeout))
	_, _ = c.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 0xde, 0xad, 0xbe, 0xef, 0x00})
	readUntilClosed(t, c, "garbage")
	_ = c.Close()

	// A handshake on a busy machine may take longer than 200 ms.
	expect(t, s.Client(t), "OK", "CONFIG", "SET", "ruvio-tls-handshake-timeout", "20000")
	ok := tlsClient(t, addr, e.clientConfig(t, e.clientCert, e.clientKey))
	expect(t, ok, "PONG", "PING")
}

// TestTLSOutputBufferLimit: a TLS client that sends requests and reads
// none of the replies is cut off at its class's hard limit, as a plain
// one is.
func TestTLSOutputBufferLimit(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	plain := s.Client(t)
	expect(t, plain, "OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
	expect(t, plain, "OK", "SET", "v", strings.Repeat("x", 64<<10))
	c, err := dialTLS(s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := []byte(strings.Repeat("GET v\r\n", 100))
	// Write until the server closes the connection: 64 MB of replies
	// asked for, never read.
	closed := false
	for i := 0; i < 10000 && !closed; i++ {
		_ = c.SetWriteDeadline(time.Now().Add(requestTimeout))
		if _, err := c.Write(req); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the server neither read nor closed the connection")
			}
			closed = true
		}
	}
	if !closed {
		waitFor(t, 20*time.Second, "the client's cut-off", func() bool {
			return !strings.Contains(plain.ClientList(ctxT(t)).Val(), "laddr="+s.TLSAddrs[0])
		})
	}
	info := plain.Info(ctxT(t), "stats").Val()
	if !strings.Contains(info, "client_output_buffer_limit_disconnections:") || strings.Contains(info, "client_output_buffer_limit_disconnections:0\r") {
		t.Logf("INFO stats: %s", info)
	}
}

// TestTLSLimits: maxclients, the idle timeout and protected mode's rules
// apply to TLS clients.
func TestTLSLimits(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	plain := s.Client(t)
	expect(t, plain, "PONG", "PING")
	expect(t, plain, "OK", "CONFIG", "SET", "maxclients", "1")
	c, err := dialTLS(s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	if err == nil {
		_ = c.Close()
		t.Fatal("a TLS client past maxclients was served")
	}
	if !strings.Contains(err.Error(), "max number of clients reached") {
		t.Errorf("past maxclients: %v", err)
	}
	expect(t, plain, "OK", "CONFIG", "SET", "maxclients", "100")
	expect(t, plain, "OK", "CONFIG", "SET", "timeout", "2")
	c, err = dialTLS(s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	if err != nil {
		t.Fatal(err)
	}
	readUntilClosed(t, c, "an idle TLS client")
	_ = c.Close()
}

// TestTLSOnly: server.port 0 with a TLS port serves TLS only.
func TestTLSOnly(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil), testserver.Config(func(c *config.Config) { c.Server.Port = 0 }))
	if len(s.Addrs) != 0 || len(s.TLSAddrs) != 1 {
		t.Fatalf("addresses %v %v", s.Addrs, s.TLSAddrs)
	}
	c := tlsClient(t, s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	expect(t, c, "OK", "SET", "k", "v")
	expect(t, c, map[interface{}]interface{}{"port": "0"}, "CONFIG", "GET", "port")
}

// TestTLSCertificateUser: with tls-auth-clients-user CN a client whose
// certificate names an ACL user starts authenticated as that user; one
// naming no user must AUTH as usual.
func TestTLSCertificateUser(t *testing.T) {
	e := newTLSEnv(t)
	aliceCert, aliceKey := e.ca.valid(t, e.dir, "alice", "alice")
	s := testserver.Start(t, e.options(func(c *config.TLSConfig) { c.AuthClientsUser = "CN" }),
		testserver.Config(func(c *config.Config) {
			c.Server.RequirePass = "secret"
			c.ACL.Users = []config.ACLUser{{Name: "alice", Passwords: []string{"plain:pw"}, Commands: "+@all", Keys: []string{"allkeys"}}}
		}))
	alice := tlsClient(t, s.TLSAddrs[0], e.clientConfig(t, aliceCert, aliceKey))
	expect(t, alice, "alice", "ACL", "WHOAMI")
	expect(t, alice, "OK", "SET", "k", "v")
	other := tlsClient(t, s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	expectErr(t, other, "NOAUTH Authentication required.", "GET", "k")
}

// TestTLSReload: CONFIG SET of the certificate files, and a reload of the
// files (what SIGHUP does), serve new connections with the new
// certificate while connections open under load go on unharmed; files
// that do not build are refused and change nothing.
func TestTLSReload(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	tc := e.clientConfig(t, e.clientCert, e.clientKey)
	plain := s.Client(t)

	// Load: clients of open TLS connections keep writing throughout.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var failures atomic.Int64
	var done atomic.Int64
	for i := 0; i < 4; i++ {
		c := tlsClient(t, s.TLSAddrs[0], tc)
		expect(t, c, "PONG", "PING")
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
				err := c.Set(ctx, "load:"+strconv.Itoa(i), n, 0).Err()
				cancel()
				if err != nil {
					failures.Add(1)
					return
				}
				done.Add(1)
			}
		}(i)
	}
	cnOf := func() string {
		c, err := dialTLS(s.TLSAddrs[0], tc)
		if err != nil {
			t.Fatalf("a new TLS connection: %v", err)
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if cn := cnOf(); cn != "ruvio-server" {
		t.Fatalf("certificate %q", cn)
	}
	newCert, newKey := e.ca.valid(t, e.dir, "server2", "ruvio-server-2")
	expect(t, plain, "OK", "CONFIG", "SET", "tls-cert-file", newCert, "tls-key-file", newKey)
	if cn := cnOf(); cn != "ruvio-server-2" {
		t.Errorf("after CONFIG SET: certificate %q", cn)
	}
	expectErr(t, plain, "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs.",
		"CONFIG", "SET", "tls-cert-file", filepath.Join(e.dir, "missing.crt"))
	expect(t, plain, map[interface{}]interface{}{"tls-cert-file": newCert}, "CONFIG", "GET", "tls-cert-file")

	// The files change in place; a reload (SIGHUP) reads them again.
	third, thirdKey := e.ca.valid(t, e.dir, "server3", "ruvio-server-3")
	for from, to := range map[string]string{third: newCert, thirdKey: newKey} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.App().ReloadTLS(); err != nil {
		t.Fatal(err)
	}
	if cn := cnOf(); cn != "ruvio-server-3" {
		t.Errorf("after a reload: certificate %q", cn)
	}
	waitFor(t, 20*time.Second, "load to run", func() bool { return done.Load() > 100 })
	close(stop)
	wg.Wait()
	if n := failures.Load(); n != 0 {
		t.Errorf("%d open TLS connections failed during the reloads", n)
	}
}

// tlsBinaryConfig writes a configuration file serving TLS on a free port
// with the environment's files; it returns the file and the port.
func (e *tlsEnv) tlsBinaryConfig(t *testing.T, replication bool) (string, int) {
	t.Helper()
	port, err := testserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tls.toml")
	body := "[persistence]\nsegment_size = \"4kb\"\nsnapshot_every = 0\n\n[tls]\n" +
		"port = " + strconv.Itoa(port) + "\n" +
		"cert_file = " + strconv.Quote(e.serverCert) + "\n" +
		"key_file = " + strconv.Quote(e.serverKey) + "\n" +
		"ca_cert_file = " + strconv.Quote(e.ca.file) + "\n" +
		"replication = " + strconv.FormatBool(replication) + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, port
}

// TestTLSReplication: a replica with tls-replication follows its primary
// over the primary's TLS port; WAIT counts it.
func TestTLSReplication(t *testing.T) {
	e := newTLSEnv(t)
	pconf, pport := e.tlsBinaryConfig(t, false)
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always", Args: []string{"--config", pconf}})
	rconf, _ := e.tlsBinaryConfig(t, true)
	r := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always", Args: []string{"--config", rconf}})
	pc, rc := p.Client(t, 0), r.Client(t, 0)
	expect(t, pc, "OK", "SET", "before", "1")
	expect(t, rc, "OK", "REPLICAOF", "127.0.0.1", strconv.Itoa(pport))
	waitFor(t, 30*time.Second, "the replica's TLS link", func() bool { return linkUp(rc) })
	expect(t, pc, "OK", "SET", "after", "2")
	expect(t, pc, int64(1), "WAIT", "1", "0")
	expect(t, rc, "1", "GET", "before")
	expect(t, rc, "2", "GET", "after")
	if list := pc.ClientList(ctxT(t)).Val(); !strings.Contains(list, "laddr=127.0.0.1:"+strconv.Itoa(pport)) {
		t.Errorf("the replica's link is not on the TLS port:\n%s", list)
	}
}

// TestTLSSighup: SIGHUP reads the certificate files again: a new
// connection gets the new certificate, an open one goes on. Plaintext on
// the TLS port is logged.
func TestTLSSighup(t *testing.T) {
	e := newTLSEnv(t)
	conf, port := e.tlsBinaryConfig(t, false)
	p := testserver.StartBinary(t, testserver.BinaryConfig{Dir: t.TempDir(), Fsync: "always", Args: []string{"--config", conf}})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	tc := e.clientConfig(t, e.clientCert, e.clientKey)
	open := tlsClient(t, addr, tc)
	expect(t, open, "OK", "SET", "k", "1")

	third, thirdKey := e.ca.valid(t, e.dir, "server3", "ruvio-server-3")
	for from, to := range map[string]string{third: e.serverCert, thirdKey: e.serverKey} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.Signal(t, syscall.SIGHUP)
	waitFor(t, 20*time.Second, "the reload's log line", func() bool { return strings.Contains(p.Output(), "SIGHUP: TLS files reloaded") })
	c, err := dialTLS(addr, tc)
	if err != nil {
		t.Fatal(err)
	}
	if cn := c.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "ruvio-server-3" {
		t.Errorf("after SIGHUP: certificate %q", cn)
	}
	_ = c.Close()
	expect(t, open, "1", "GET", "k")

	raw, err := net.DialTimeout("tcp", addr, requestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = raw.SetWriteDeadline(time.Now().Add(requestTimeout))
	_, _ = raw.Write([]byte("PING\r\n"))
	readUntilClosed(t, raw, "plaintext")
	_ = raw.Close()
	waitFor(t, 20*time.Second, "the plaintext log line", func() bool { return strings.Contains(p.Output(), "plaintext on the TLS port") })
}

// TestTLSClusterPorts: with several shards each serves TLS on tls-port+i;
// CLUSTER SLOTS answers a TLS client with the TLS ports and a plain one
// with the plain ports; CLUSTER SHARDS gives both. A go-redis cluster
// client over TLS follows the slots.
func TestTLSClusterPorts(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil), testserver.Shards(2))
	tc := e.clientConfig(t, e.clientCert, e.clientKey)
	slotPorts := func(c *redis.Client) []int64 {
		//lint:ignore SA1019 CLUSTER SLOTS is what most cluster clients still read
		slots, err := c.ClusterSlots(ctxT(t)).Result()
		if err != nil {
			t.Fatal(err)
		}
		var ports []int64
		for _, sl := range slots {
			p, _ := strconv.ParseInt(strings.TrimPrefix(sl.Nodes[0].Addr, "127.0.0.1:"), 10, 64)
			ports = append(ports, p)
		}
		return ports
	}
	tp, pp := int64(s.Config.TLS.Port), int64(s.Config.Server.Port)
	if got := slotPorts(tlsClient(t, s.TLSAddrs[0], tc)); len(got) != 2 || got[0] != tp || got[1] != tp+1 {
		t.Errorf("CLUSTER SLOTS over TLS: ports %v, want %d, %d", got, tp, tp+1)
	}
	if got := slotPorts(s.Client(t)); len(got) != 2 || got[0] != pp || got[1] != pp+1 {
		t.Errorf("CLUSTER SLOTS over plain: ports %v, want %d, %d", got, pp, pp+1)
	}
	shards, err := s.Client(t).ClusterShards(ctxT(t)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if n := shards[1].Nodes[0]; n.Port != pp+1 || n.TLSPort != tp+1 {
		t.Errorf("CLUSTER SHARDS node: port %d tls-port %d", n.Port, n.TLSPort)
	}
	cc := redis.NewClusterClient(clusterTimeouts(&redis.ClusterOptions{Addrs: []string{s.TLSAddrs[0]}, TLSConfig: tc, MaxRetries: -1, DisableIdentity: true}))
	t.Cleanup(func() { _ = cc.Close() })
	for i := 0; i < 20; i++ {
		k := "key:" + strconv.Itoa(i)
		if err := cc.Set(ctxT(t), k, i, 0).Err(); err != nil {
			t.Fatalf("cluster client over TLS: SET %s: %v", k, err)
		}
	}
}

// TestTLSStopDuringHandshake: stopping the server closes a connection
// still in its handshake (the handshake timeout here is far away).
func TestTLSStopDuringHandshake(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(func(c *config.TLSConfig) { c.HandshakeTimeoutMs = 3600_000 }))
	c, err := net.DialTimeout("tcp", s.TLSAddrs[0], requestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	open := tlsClient(t, s.TLSAddrs[0], e.clientConfig(t, e.clientCert, e.clientKey))
	expect(t, open, "PONG", "PING")
	s.Stop()
	readUntilClosed(t, c, "a connection in its handshake at shutdown")
}

// TestTLSClusterControlPlane: with tls-cluster the members of a cluster
// across hosts form it over TLS control links; `ruvio cluster status`
// needs --tls and a certificate, and a plain connection to a control port
// is closed.
func TestTLSClusterControlPlane(t *testing.T) {
	e := newTLSEnv(t)
	conf := filepath.Join(t.TempDir(), "cluster-tls.toml")
	body := "[tls]\ncluster = true\n" +
		"cert_file = " + strconv.Quote(e.serverCert) + "\n" +
		"key_file = " + strconv.Quote(e.serverKey) + "\n" +
		"ca_cert_file = " + strconv.Quote(e.ca.file) + "\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ms := startClusterAcrossHosts(t, 3, 0, "--config", conf)
	control := net.JoinHostPort(ms[0].host, strconv.Itoa(ms[0].control))
	bin := testserver.Binary(t)
	// `cluster status` waits out a leader election within its --timeout.
	out, err := exec.CommandContext(ctxT(t), bin, "cluster", "status", "--control", control, "--tls",
		"--cacert", e.ca.file, "--cert", e.clientCert, "--key", e.clientKey).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster status over TLS: %v\n%s", err, out)
	}
	for _, m := range ms {
		if !strings.Contains(string(out), m.name) {
			t.Errorf("cluster status lacks %s:\n%s", m.name, out)
		}
	}
	if out, err := exec.CommandContext(ctxT(t), bin, "cluster", "status", "--control", control, "--timeout", "2s").CombinedOutput(); err == nil {
		t.Errorf("cluster status without TLS answered:\n%s", out)
	}
	c, err := net.DialTimeout("tcp", control, requestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetWriteDeadline(time.Now().Add(requestTimeout))
	_, _ = c.Write([]byte("C{\"method\":\"Control.Status\",\"params\":[{}],\"id\":1}\n"))
	if got := readUntilClosed(t, c, "plain control connection"); strings.Contains(string(got), "result") {
		t.Errorf("a plain control connection was answered: %q", got)
	}
	_ = c.Close()
}

// TestTLSHalfClosedClientGetsItsReplies: as over plain TCP
// (TestHalfClosedClientGetsItsReplies), a TLS client that sends its
// requests and ends its side at once (close_notify) gets every reply, then
// the server's close; a command that would block is not answered once
// its client has left, nor is anything after it, and the connection is
// closed at once.
func TestTLSHalfClosedClientGetsItsReplies(t *testing.T) {
	e := newTLSEnv(t)
	s := testserver.Start(t, e.options(nil))
	tc := e.clientConfig(t, e.clientCert, e.clientKey)
	round := func(i int, input, want string) {
		t.Helper()
		conn, err := dialTLS(s.TLSAddrs[0], tc)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(conn, input); err != nil {
			t.Fatal(err)
		}
		if err := conn.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := io.ReadAll(conn)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("round %d: reading until the server closes: %v (got %q)", i, err, got)
		}
		if string(got) != want {
			t.Fatalf("round %d: got %q, want %q", i, got, want)
		}
		// lingerMax is 10 s: a close that waited for it came too late.
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("round %d: closed after %v", i, d)
		}
	}
	for i := range 20 {
		v := strconv.Itoa(i)
		round(i, multibulk("SET", "half:k", v)+multibulk("GET", "half:k")+multibulk("INCR", "half:n"),
			"+OK\r\n$"+strconv.Itoa(len(v))+"\r\n"+v+"\r\n:"+strconv.Itoa(i+1)+"\r\n")
	}
	for i := range 10 {
		round(i, multibulk("SET", "half:b", strconv.Itoa(i))+multibulk("BLPOP", "half:empty", "0")+multibulk("GET", "half:b"), "+OK\r\n")
	}
}
