package acl

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
)

// GenPassMaxBits is the largest ACL GENPASS size.
const GenPassMaxBits = 4096

// ErrGenPassBits is ACL GENPASS's error for a size out of range.
var ErrGenPassBits = errors.New("ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")

// GenPass returns a random password of bits bits (ACL GENPASS, default 256) from
// crypto/rand, as ceil(bits/4) lowercase hex characters.
func GenPass(bits int) (string, error) {
	if bits <= 0 || bits > GenPassMaxBits {
		return "", ErrGenPassBits
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("acl: genpass: %w", err)
	}
	return hex.EncodeToString(buf)[:chars], nil
}
