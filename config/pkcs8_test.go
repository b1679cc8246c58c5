package config

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The vectors were made with OpenSSL 3.0: a P-256 key, a self-signed
// certificate for it, and the key encrypted two ways:
//
//	openssl pkcs8 -topk8 -v2 aes-256-cbc -passout pass:1234 (PBKDF2 with HMAC-SHA256, 2048 rounds)
//	openssl pkcs8 -topk8 -v2 aes-128-cbc -v2prf hmacWithSHA1 -passout pass:secret
const (
	pkcs8TestCert = `-----BEGIN CERTIFICATE-----
MIIBdjCCARugAwIBAgIUYfIwZiQgKPQnD1WOjBzdpx2nw0UwCgYIKoZIzj0EAwIw
DzENMAsGA1UEAwwEdGVzdDAgFw0yNjEyMDUxMDE3MzJaGA8yMTI2MTExMTEwMTcz
MlowDzENMAsGA1UEAwwEdGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABAXl
JO+ULg5JVdG9ohbSC0chzTxLqF99a+qt9Esr7H8dOb7acVg9gus7YEeiL4BbrmV7
XXttiBzkYSRBGPZoqP6jUzBRMB0GA1UdDgQWBBR5iSRVZSYVvOH3uwlelqQEEX83
tjAfBgNVHSMEGDAWgBR5iSRVZSYVvOH3uwlelqQEEX83tjAPBgNVHRMBAf8EBTAD
AQH/MAoGCCqGSM49BAMCA0kAMEYCIQDDY899Y4+bkYAkk8rNuCwNZUida1cCJRzF
9I+x8puB4gIhAKVSj7dOzmEDNFK5GiM14EHA8Tk+s5njMtv0XRsxtJNJ
-----END CERTIFICATE-----`
	pkcs8TestKeyAES256 = `-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAh6PiOZhcGT+gICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEBVmqanDmqMXmP30de39wVEEgZC4
sq9+ElLlyH2Do5ZK5S7VjA9+EMM6Cyb+sQ+wSEBLWTPsxd+W4kEEzfJaQ2BPKstJ
EKNaFmZBt8mPaForucAhKNVFPKhBDtvADIWJsKcv8iPfFwYUOnIjDWONOexQl+p6
3XnbOJTt/r/RZJkr8A1PxMVAcpBfRuFL5iRQtOkMDL+3CpBTbRLq+jwDwVXFQZc=
-----END ENCRYPTED PRIVATE KEY-----`
	pkcs8TestKeyAES128 = `-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHeMEkGCSqGSIb3DQEFDTA8MBsGCSqGSIb3DQEFDDAOBAjt8DsFq8lmyAICCAAw
HQYJYIZIAWUDBAECBBBMS4BaKkoKsRsP9u4m3JTaBIGQ7HXitx0DBRfXMNUvf3/L
/1Kr46TOxiTpNqAa3n8i4BtURgWQm8efIb+6gCELTqN5DNu6BcFRXiOK1cgIIBAV
SVFKh1moOZngcQGHeQ7qUQC+5sMipOSuEC+vLQadQtocoZkwV/Cxr+iftWSD5bi9
vF/JRD6aVlpx3mduD5qq5kieiuCZWZRNECrTY8XTZvbu
-----END ENCRYPTED PRIVATE KEY-----`
)

func TestDecryptPKCS8(t *testing.T) {
	for _, tc := range []struct {
		name, pem, pass string
	}{
		{"aes-256-cbc, hmacWithSHA256", pkcs8TestKeyAES256, "1234"},
		{"aes-128-cbc, hmacWithSHA1", pkcs8TestKeyAES128, "secret"},
	} {
		block, _ := pem.Decode([]byte(tc.pem))
		der, err := decryptPKCS8(block.Bytes, tc.pass)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := x509.ParsePKCS8PrivateKey(der); err != nil {
			t.Fatalf("%s: the decrypted key does not parse: %v", tc.name, err)
		}
		if _, err := decryptPKCS8(block.Bytes, tc.pass+"x"); err == nil {
			t.Fatalf("%s: a wrong password decrypted it", tc.name)
		}
	}
	if _, err := decryptPKCS8([]byte("not der"), "x"); err == nil || err.Error() != "not an EncryptedPrivateKeyInfo" {
		t.Fatalf("garbage: %v", err)
	}
}

// TestLoadKeyPairEncryptedPKCS8: tls-key-file-pass opens an encrypted
// PKCS#8 key; without it, or with a wrong one, the error says why.
func TestLoadKeyPairEncryptedPKCS8(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.crt"), filepath.Join(dir, "k.key")
	if err := os.WriteFile(certFile, []byte(pkcs8TestCert), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, []byte(pkcs8TestKeyAES256), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKeyPair(certFile, keyFile, "1234"); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKeyPair(certFile, keyFile, ""); err == nil || !strings.Contains(err.Error(), "is encrypted and tls-key-file-pass is empty") {
		t.Fatalf("no password: %v", err)
	}
	if _, err := loadKeyPair(certFile, keyFile, "4321"); err == nil || !strings.Contains(err.Error(), "the password does not decrypt it") {
		t.Fatalf("wrong password: %v", err)
	}
}

// FuzzDecryptPKCS8: whatever a key file holds, decryption fails cleanly.
func FuzzDecryptPKCS8(f *testing.F) {
	for _, k := range []string{pkcs8TestKeyAES256, pkcs8TestKeyAES128} {
		block, _ := pem.Decode([]byte(k))
		f.Add(block.Bytes, "1234")
	}
	f.Fuzz(func(t *testing.T, der []byte, pass string) {
		_, _ = decryptPKCS8(der, pass)
	})
}
