package config

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Values of tls.auth_clients (CONFIG tls-auth-clients), as Redis's.
const (
	TLSAuthYes      = "yes"
	TLSAuthNo       = "no"
	TLSAuthOptional = "optional"
)

// Values of tls.auth_clients_user (CONFIG tls-auth-clients-user).
const (
	// TLSUserOff leaves a client with a certificate as the default user.
	TLSUserOff = "off"
	// TLSUserCN starts a client authenticated as the ACL user named by its
	// certificate's subject Common Name, when that user exists and is on.
	TLSUserCN = "cn"
)

// DefaultTLSHandshakeTimeoutMs is tls.handshake_timeout_ms's default.
const DefaultTLSHandshakeTimeoutMs = 10000

// TLSConfig is the [tls] section: Redis 7.0's tls-* settings under their TOML names. The
// TLS listeners, the replica's link to its primary (Replication) and the cluster links
// (Cluster) use it. Every key can change at run time (CONFIG SET tls-*; all but Port on a
// reload on SIGHUP): new connections use the new settings, open ones keep theirs.
type TLSConfig struct {
	// Port is shard 0's TLS port; shard i serves TLS on Port+i. 0 serves no TLS (0).
	// With server.port = 0 the server serves TLS only.
	Port int `toml:"port"`
	// CertFile and KeyFile are the PEM certificate (with its chain) and private key the
	// server presents; KeyFilePass decrypts an encrypted key (legacy PEM or PKCS#8 PBES2).
	CertFile    string `toml:"cert_file"`
	KeyFile     string `toml:"key_file"`
	KeyFilePass string `toml:"key_file_pass"`
	// ClientCertFile, ClientKeyFile and ClientKeyFilePass are what the server presents when
	// it dials (a replica to its primary); "" uses CertFile and KeyFile, as in Redis.
	ClientCertFile    string `toml:"client_cert_file"`
	ClientKeyFile     string `toml:"client_key_file"`
	ClientKeyFilePass string `toml:"client_key_file_pass"`
	// DHParamsFile is accepted for Redis's sake; Go's TLS negotiates ECDHE only and reads
	// no DH parameters ("").
	DHParamsFile string `toml:"dh_params_file"`
	// CACertFile and CACertDir hold the CA certificates (PEM) client certificates, and a
	// primary's certificate, are verified against; "" for both is the system's roots.
	CACertFile string `toml:"ca_cert_file"`
	CACertDir  string `toml:"ca_cert_dir"`
	// AuthClients is "yes" (a client must present a certificate the CAs verify), "optional"
	// (one it presents is verified) or "no" (none is asked for) ("yes").
	AuthClients string `toml:"auth_clients"`
	// AuthClientsUser is "off", or "CN": a verified client certificate's subject Common
	// Name names the ACL user the connection starts authenticated as ("off").
	AuthClientsUser string `toml:"auth_clients_user"`
	// Protocols are the TLS versions served, among TLSv1.2 and TLSv1.3 ("": both).
	Protocols string `toml:"protocols"`
	// Ciphers are the TLS 1.2 cipher suites, colon-separated, by their OpenSSL or IANA
	// names ("": Go's secure defaults).
	Ciphers string `toml:"ciphers"`
	// Ciphersuites are the TLS 1.3 suites by their IANA names; Go always offers its three,
	// so a list is checked but cannot narrow them ("").
	Ciphersuites string `toml:"ciphersuites"`
	// PreferServerCiphers is accepted for Redis's sake: Go chooses the suite itself (false).
	PreferServerCiphers bool `toml:"prefer_server_ciphers"`
	// SessionCaching lets clients resume sessions (session tickets) (true).
	SessionCaching bool `toml:"session_caching"`
	// SessionCacheSize and SessionCacheTimeout are accepted for Redis's sake: Go resumes
	// by tickets, which need no server-side cache (20480, 300).
	SessionCacheSize    int `toml:"session_cache_size"`
	SessionCacheTimeout int `toml:"session_cache_timeout"`
	// Replication makes a replica dial its primary over TLS (false).
	Replication bool `toml:"replication"`
	// Cluster makes the control plane's links of a cluster across hosts TLS: every
	// connection to a member's control port, from a member or the `ruvio cluster` tool
	// (--tls), verified both ways against the CAs; fixed at start (false).
	Cluster bool `toml:"cluster"`
	// HandshakeTimeoutMs bounds a TLS handshake; a client that has not finished it by then
	// is closed (10000; CONFIG SET ruvio-tls-handshake-timeout).
	HandshakeTimeoutMs int `toml:"handshake_timeout_ms"`
}

// DefaultTLS is the [tls] section's defaults: no TLS, Redis's values for the rest.
func DefaultTLS() TLSConfig {
	return TLSConfig{
		AuthClients:         TLSAuthYes,
		AuthClientsUser:     TLSUserOff,
		SessionCaching:      true,
		SessionCacheSize:    20480,
		SessionCacheTimeout: 300,
		HandshakeTimeoutMs:  DefaultTLSHandshakeTimeoutMs,
	}
}

// Needed reports whether the settings ask for TLS anywhere: a TLS port, a replica's link, or
// the control plane's links.
func (t *TLSConfig) Needed() bool { return t.Port > 0 || t.Replication || t.Cluster }

// validate checks the section's values; files are read by ServerConfig.
func (t *TLSConfig) validate(bad func(key, format string, args ...any), shards int) {
	if t.Port < 0 || t.Port > 65535 {
		bad("tls.port", "%d is not 0..65535", t.Port)
	} else if t.Port > 0 && t.Port+shards-1 > 65535 {
		bad("tls.port", "%d with %d shards needs ports %d..%d, beyond 65535", t.Port, shards, t.Port, t.Port+shards-1)
	}
	switch strings.ToLower(t.AuthClients) {
	case TLSAuthYes, TLSAuthNo, TLSAuthOptional:
	default:
		bad("tls.auth_clients", "%q is not one of yes, no, optional", t.AuthClients)
	}
	switch strings.ToLower(t.AuthClientsUser) {
	case TLSUserOff, TLSUserCN:
	default:
		bad("tls.auth_clients_user", "%q is not one of off, CN", t.AuthClientsUser)
	}
	if t.HandshakeTimeoutMs < 1 {
		bad("tls.handshake_timeout_ms", "must be at least 1, not %d", t.HandshakeTimeoutMs)
	}
	if _, _, err := parseTLSProtocols(t.Protocols); err != nil {
		bad("tls.protocols", "%v", err)
	}
	if _, err := parseTLSCiphers(t.Ciphers); err != nil {
		bad("tls.ciphers", "%v", err)
	}
	if err := checkTLSCiphersuites(t.Ciphersuites); err != nil {
		bad("tls.ciphersuites", "%v", err)
	}
	if t.Needed() && (t.CertFile == "" || t.KeyFile == "") {
		bad("tls.cert_file", "TLS needs tls.cert_file and tls.key_file")
	}
}

// tlsVersions are the versions tls-protocols may name.
var tlsVersions = map[string]uint16{
	"tlsv1.2": tls.VersionTLS12,
	"tlsv1.3": tls.VersionTLS13,
}

// parseTLSProtocols reads tls-protocols, space-separated versions; "" is TLS 1.2 and 1.3.
func parseTLSProtocols(v string) (lo, hi uint16, err error) {
	f := strings.Fields(v)
	if len(f) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, p := range f {
		n, ok := tlsVersions[strings.ToLower(p)]
		if !ok {
			if l := strings.ToLower(p); l == "tlsv1" || l == "tlsv1.1" {
				return 0, 0, fmt.Errorf("%s is not served: it is insecure, and Go's TLS no longer speaks it", p)
			}
			return 0, 0, fmt.Errorf("invalid tls-protocols: %q (TLSv1.2, TLSv1.3)", p)
		}
		if lo == 0 || n < lo {
			lo = n
		}
		if n > hi {
			hi = n
		}
	}
	return lo, hi, nil
}

// opensslCiphers maps OpenSSL's names of the TLS 1.2 suites Go serves to Go's ids.
var opensslCiphers = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// parseTLSCiphers reads tls-ciphers: TLS 1.2 suites separated by ':' (or ',' or spaces),
// by OpenSSL or IANA name; "" and "DEFAULT" are Go's defaults (nil).
func parseTLSCiphers(v string) ([]uint16, error) {
	names := strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' })
	if len(names) == 0 || len(names) == 1 && strings.EqualFold(names[0], "DEFAULT") {
		return nil, nil
	}
	iana := map[string]uint16{}
	for _, cs := range tls.CipherSuites() {
		iana[cs.Name] = cs.ID
	}
	ids := make([]uint16, 0, len(names))
	for _, n := range names {
		id, ok := opensslCiphers[strings.ToUpper(n)]
		if !ok {
			id, ok = iana[strings.ToUpper(n)]
		}
		if !ok {
			return nil, fmt.Errorf("unknown or unsupported cipher %q (name TLS 1.2 suites one by one, e.g. ECDHE-RSA-AES128-GCM-SHA256; OpenSSL's keyword lists are not read)", n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// checkTLSCiphersuites checks tls-ciphersuites: TLS 1.3 suites by IANA name, ':'-separated.
func checkTLSCiphersuites(v string) error {
	for _, n := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		switch strings.ToUpper(n) {
		case "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256":
		default:
			return fmt.Errorf("unknown TLS 1.3 ciphersuite %q", n)
		}
	}
	return nil
}

// loadKeyPair reads a PEM certificate chain and its key, the key decrypted with pass when
// it is encrypted: the legacy encrypted PEM form or an encrypted PKCS#8 key (pkcs8.go).
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: key: %w", err)
	}
	if block, _ := pem.Decode(keyPEM); block != nil {
		//lint:ignore SA1019 Redis's tls-key-file-pass decrypts the legacy encrypted PEM form, which only this reads
		if x509.IsEncryptedPEMBlock(block) {
			if pass == "" {
				return tls.Certificate{}, fmt.Errorf("tls: key %s is encrypted and tls-key-file-pass is empty", keyFile)
			}
			//lint:ignore SA1019 see above
			der, err := x509.DecryptPEMBlock(block, []byte(pass))
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("tls: decrypting key %s: %w", keyFile, err)
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})
		} else if block.Type == "ENCRYPTED PRIVATE KEY" {
			if pass == "" {
				return tls.Certificate{}, fmt.Errorf("tls: key %s is encrypted and tls-key-file-pass is empty", keyFile)
			}
			der, err := decryptPKCS8(block.Bytes, pass)
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("tls: decrypting key %s: %w", keyFile, err)
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: %s and %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// caPool reads the CA certificates of CACertFile and every file of CACertDir; nil (the
// system's roots) when both are "".
func (t *TLSConfig) caPool() (*x509.CertPool, error) {
	if t.CACertFile == "" && t.CACertDir == "" {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if t.CACertFile != "" {
		b, err := os.ReadFile(t.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("tls: CA file: %w", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("tls: CA file %s holds no PEM certificate", t.CACertFile)
		}
	}
	if t.CACertDir != "" {
		ents, err := os.ReadDir(t.CACertDir)
		if err != nil {
			return nil, fmt.Errorf("tls: CA directory: %w", err)
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(t.CACertDir, n))
			if err != nil {
				return nil, fmt.Errorf("tls: CA directory: %w", err)
			}
			pool.AppendCertsFromPEM(b) // files that hold none (hash links' targets, notes) are skipped
		}
	}
	return pool, nil
}

// ServerConfig builds the crypto/tls configuration of the TLS listeners from the
// settings, reading the certificate, key and CA files now.
func (t *TLSConfig) ServerConfig() (*tls.Config, error) {
	if t.CertFile == "" || t.KeyFile == "" {
		return nil, errors.New("tls: tls-cert-file and tls-key-file are required")
	}
	cert, err := loadKeyPair(t.CertFile, t.KeyFile, t.KeyFilePass)
	if err != nil {
		return nil, err
	}
	pool, err := t.caPool()
	if err != nil {
		return nil, err
	}
	lo, hi, err := parseTLSProtocols(t.Protocols)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	ciphers, err := parseTLSCiphers(t.Ciphers)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	if err := checkTLSCiphersuites(t.Ciphersuites); err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	tc := &tls.Config{
		Certificates:           []tls.Certificate{cert},
		ClientCAs:              pool,
		MinVersion:             lo,
		MaxVersion:             hi,
		CipherSuites:           ciphers,
		SessionTicketsDisabled: !t.SessionCaching,
	}
	switch strings.ToLower(t.AuthClients) {
	case TLSAuthNo:
		tc.ClientAuth = tls.NoClientCert
	case TLSAuthOptional:
		tc.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return tc, nil
}

// ClientConfig builds the crypto/tls configuration the server dials with (a replica to its
// primary): it presents ClientCertFile (CertFile when "") and verifies the peer's chain
// against the CAs. As Redis does, it does not match the peer's name to the address dialed.
func (t *TLSConfig) ClientConfig() (*tls.Config, error) {
	certFile, keyFile, pass := t.ClientCertFile, t.ClientKeyFile, t.ClientKeyFilePass
	if certFile == "" {
		certFile, keyFile, pass = t.CertFile, t.KeyFile, t.KeyFilePass
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if certFile != "" && keyFile != "" {
		cert, err := loadKeyPair(certFile, keyFile, pass)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	pool, err := t.caPool()
	if err != nil {
		return nil, err
	}
	// The chain is verified below, without the host name check.
	tc.InsecureSkipVerify = true
	tc.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("tls: the peer presented no certificate")
		}
		opts := x509.VerifyOptions{Roots: pool, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return fmt.Errorf("tls: verifying the peer's certificate: %w", err)
		}
		return nil
	}
	return tc, nil
}
