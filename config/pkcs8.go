package config

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// An encrypted PKCS#8 key (RFC 5958's EncryptedPrivateKeyInfo) under
// PBES2 (RFC 8018): what OpenSSL 3 writes for `openssl pkey -aes256`,
// `openssl rsa -aes256` or `openssl pkcs8 -topk8 -v2 …`, and so what
// Redis's tls-key-file-pass most often meets. The standard library reads
// only the legacy encrypted PEM form, so this decrypts the rest: PBKDF2
// with an HMAC of SHA-1 or SHA-2, then AES-128/192/256-CBC or
// DES-EDE3-CBC.

var (
	oidPBES2        = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1     = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC    = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC    = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC    = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC   = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
	errWrongKeyPass = errors.New("the password does not decrypt it")
)

type encryptedPrivateKeyInfo struct {
	Algorithm     algorithmIdentifier
	EncryptedData []byte
}

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type pbes2Params struct {
	KeyDerivationFunc algorithmIdentifier
	EncryptionScheme  algorithmIdentifier
}

type pbkdf2Params struct {
	Salt           []byte
	IterationCount int
	KeyLength      int                 `asn1:"optional"`
	PRF            algorithmIdentifier `asn1:"optional"`
}

// maxPBKDF2Iterations bounds the work a key file can ask for: far above
// what tools write (OpenSSL: 2,048; others up to a few hundred thousand).
const maxPBKDF2Iterations = 10_000_000

// decryptPKCS8 returns the PKCS#8 PrivateKeyInfo (DER) inside der, an
// EncryptedPrivateKeyInfo, decrypted with pass.
func decryptPKCS8(der []byte, pass string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, errors.New("not an EncryptedPrivateKeyInfo")
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("encryption %v is not PBES2 (re-encrypt it with openssl pkcs8 -topk8 -v2 aes-256-cbc)", info.Algorithm.Algorithm)
	}
	var p2 pbes2Params
	if rest, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &p2); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed PBES2 parameters")
	}
	if !p2.KeyDerivationFunc.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("key derivation %v is not PBKDF2", p2.KeyDerivationFunc.Algorithm)
	}
	var kdf pbkdf2Params
	if rest, err := asn1.Unmarshal(p2.KeyDerivationFunc.Parameters.FullBytes, &kdf); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	if kdf.IterationCount < 1 || kdf.IterationCount > maxPBKDF2Iterations {
		return nil, fmt.Errorf("PBKDF2 iteration count %d is out of range 1..%d", kdf.IterationCount, maxPBKDF2Iterations)
	}
	prf, err := pbkdf2PRF(kdf.PRF.Algorithm)
	if err != nil {
		return nil, err
	}
	var iv []byte
	if rest, err := asn1.Unmarshal(p2.EncryptionScheme.Parameters.FullBytes, &iv); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed cipher parameters (IV)")
	}
	keyLen, newBlock, err := pbes2Cipher(p2.EncryptionScheme.Algorithm)
	if err != nil {
		return nil, err
	}
	if kdf.KeyLength != 0 && kdf.KeyLength != keyLen {
		return nil, fmt.Errorf("PBKDF2 key length %d does not fit the cipher's %d", kdf.KeyLength, keyLen)
	}
	key, err := pbkdf2.Key(prf, pass, kdf.Salt, kdf.IterationCount, keyLen)
	if err != nil {
		return nil, fmt.Errorf("PBKDF2: %w", err)
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	data := info.EncryptedData
	if len(iv) != bs || len(data) == 0 || len(data)%bs != 0 {
		return nil, errors.New("malformed encrypted data")
	}
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, data)
	// PKCS#7 padding; a wrong password almost always breaks it, and the
	// DER check below catches the rest.
	n := int(out[len(out)-1])
	if n == 0 || n > bs {
		return nil, errWrongKeyPass
	}
	for _, b := range out[len(out)-n:] {
		if int(b) != n {
			return nil, errWrongKeyPass
		}
	}
	out = out[:len(out)-n]
	var seq asn1.RawValue
	if rest, err := asn1.Unmarshal(out, &seq); err != nil || len(rest) > 0 || seq.Tag != asn1.TagSequence {
		return nil, errWrongKeyPass
	}
	return out, nil
}

// pbkdf2PRF is the hash of PBKDF2's HMAC; an absent PRF means SHA-1.
func pbkdf2PRF(oid asn1.ObjectIdentifier) (func() hash.Hash, error) {
	switch {
	case len(oid) == 0 || oid.Equal(oidHMACSHA1):
		return sha1.New, nil
	case oid.Equal(oidHMACSHA224):
		return sha256.New224, nil
	case oid.Equal(oidHMACSHA256):
		return sha256.New, nil
	case oid.Equal(oidHMACSHA384):
		return sha512.New384, nil
	case oid.Equal(oidHMACSHA512):
		return sha512.New, nil
	}
	return nil, fmt.Errorf("PBKDF2 pseudorandom function %v is not supported", oid)
}

// pbes2Cipher is the key length and block cipher of PBES2's encryption scheme.
func pbes2Cipher(oid asn1.ObjectIdentifier) (int, func([]byte) (cipher.Block, error), error) {
	switch {
	case oid.Equal(oidAES128CBC):
		return 16, aes.NewCipher, nil
	case oid.Equal(oidAES192CBC):
		return 24, aes.NewCipher, nil
	case oid.Equal(oidAES256CBC):
		return 32, aes.NewCipher, nil
	case oid.Equal(oidDESEDE3CBC):
		return 24, des.NewTripleDESCipher, nil
	}
	return 0, nil, fmt.Errorf("cipher %v is not supported (AES-CBC or DES-EDE3-CBC)", oid)
}
