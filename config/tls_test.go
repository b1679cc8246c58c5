package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a self-signed certificate and its key in dir.
func selfSigned(t *testing.T, dir, name string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func TestTLSRedisConf(t *testing.T) {
	c, _, err := applyRedis(t, `
port 0
tls-port 6380
tls-cert-file /etc/tls/redis.crt
tls-key-file /etc/tls/redis.key
tls-ca-cert-file /etc/tls/ca.crt
tls-auth-clients optional
tls-auth-clients-user CN
tls-protocols "TLSv1.2 TLSv1.3"
tls-ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384
tls-replication yes
tls-session-caching no
`)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultTLS()
	want.Port = 6380
	want.CertFile, want.KeyFile, want.CACertFile = "/etc/tls/redis.crt", "/etc/tls/redis.key", "/etc/tls/ca.crt"
	want.AuthClients, want.AuthClientsUser = "optional", "cn"
	want.Protocols = "TLSv1.2 TLSv1.3"
	want.Ciphers = "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384"
	want.Replication, want.SessionCaching = true, false
	if c.TLS != want {
		t.Errorf("tls = %+v\nwant %+v", c.TLS, want)
	}
	if c.Server.Port != 0 {
		t.Errorf("port = %d", c.Server.Port)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("port 0 with a tls-port: %v", err)
	}
	l := NewLive(c)
	for name, v := range map[string]string{"tls-port": "6380", "tls-auth-clients": "optional", "tls-replication": "yes", "port": "0"} {
		if got, _ := l.Value(name); got != v {
			t.Errorf("CONFIG GET %s = %q, want %q", name, got, v)
		}
	}
}

func TestTLSValidate(t *testing.T) {
	for _, tc := range []struct {
		fn   func(c *Config)
		want string
	}{
		{func(c *Config) { c.Server.Port = 0 }, "server.port: 0 is out of range 1..65535"},
		{func(c *Config) { c.TLS.Port = 7000 }, "TLS needs tls.cert_file and tls.key_file"},
		{func(c *Config) { c.TLS.Port, c.TLS.CertFile, c.TLS.KeyFile = 6379, "a", "b" }, "overlap server.port"},
		{func(c *Config) { c.TLS.AuthClients = "maybe" }, "tls.auth_clients"},
		{func(c *Config) { c.TLS.Protocols = "TLSv1.1" }, "TLSv1.1 is not served"},
		{func(c *Config) { c.TLS.Ciphers = "HIGH:!aNULL" }, "unknown or unsupported cipher"},
		{func(c *Config) { c.TLS.Ciphersuites = "TLS_FOO" }, "unknown TLS 1.3 ciphersuite"},
		{func(c *Config) { c.TLS.HandshakeTimeoutMs = 0 }, "tls.handshake_timeout_ms"},
	} {
		c := Default()
		tc.fn(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

func TestTLSServerConfig(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir, "server")
	tc := DefaultTLS()
	tc.Port, tc.CertFile, tc.KeyFile, tc.CACertDir = 7000, cert, key, dir
	tc.Protocols = "TLSv1.3"
	tc.Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256"
	sc, err := tc.ServerConfig()
	if err != nil {
		t.Fatal(err)
	}
	if sc.MinVersion != tls.VersionTLS13 || sc.MaxVersion != tls.VersionTLS13 || sc.ClientAuth != tls.RequireAndVerifyClientCert ||
		len(sc.CipherSuites) != 1 || sc.ClientCAs == nil {
		t.Errorf("server config %+v", sc)
	}
	tc.AuthClients = TLSAuthOptional
	if sc, _ := tc.ServerConfig(); sc.ClientAuth != tls.VerifyClientCertIfGiven {
		t.Errorf("optional: %v", sc.ClientAuth)
	}
	tc.KeyFile = cert
	if _, err := tc.ServerConfig(); err == nil {
		t.Error("a certificate as its own key was accepted")
	}
	if _, err := tc.ClientConfig(); err == nil {
		t.Error("client config with a bad key was accepted")
	}
}

// CONFIG SET of tls-* parameters goes through the TLS check: refused with Redis's reason, the
// values stay; accepted, the check saw every new value.
func TestTLSConfigSetCheck(t *testing.T) {
	l := NewLive(Default())
	var seen TLSConfig
	fail := true
	l.SetTLSCheck(func(t TLSConfig) error {
		seen = t
		if fail {
			return errors.New("no")
		}
		return nil
	})
	err := l.Set([][2]string{{"tls-cert-file", "/a.crt"}, {"tls-key-file", "/a.key"}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs." {
		t.Fatalf("refused: %v", err)
	}
	if v, _ := l.Value("tls-cert-file"); v != "" {
		t.Errorf("a refused value stayed: %q", v)
	}
	fail = false
	if err := l.Set([][2]string{{"tls-cert-file", "/a.crt"}, {"tls-key-file", "/a.key"}, {"timeout", "5"}}); err != nil {
		t.Fatal(err)
	}
	if seen.CertFile != "/a.crt" || seen.KeyFile != "/a.key" {
		t.Errorf("check saw %+v", seen)
	}
	if got := l.TLS(); got.CertFile != "/a.crt" {
		t.Errorf("TLS() = %+v", got)
	}
	if err := l.Set([][2]string{{"tls-port", "7000"}}); err != nil || seen.Port != 7000 {
		t.Errorf("tls-port: %v (check saw %+v)", err, seen)
	}
	seen = TLSConfig{}
	if err := l.ReloadTLS(); err != nil || seen.CertFile != "/a.crt" {
		t.Errorf("reload: %v %+v", err, seen)
	}
}
