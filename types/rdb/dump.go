package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Version is the RDB version this package writes (Redis 7.0's).
const Version = 10

// VersionFieldTTLs is the RDB version of a DUMP payload holding a hash
// with field deadlines (Redis 7.4's), the newest RESTORE accepts.
const VersionFieldTTLs = 12

// ErrDumpFooter is returned for a DUMP payload whose version is newer
// than VersionFieldTTLs or whose checksum does not match.
var ErrDumpFooter = errors.New("rdb: DUMP payload version or checksum are wrong")

// AppendDump appends the DUMP payload of v: its encoding, the version and
// the checksum.
func AppendDump(dst []byte, v *Value) []byte {
	start := len(dst)
	dst = AppendValue(dst, v)
	if v.hasFieldTTLs() {
		return appendFooterVersion(dst, start, VersionFieldTTLs)
	}
	return AppendFooter(dst, start)
}

// AppendFooter appends the version and the checksum of dst[start:] to
// dst, making it a DUMP payload.
func AppendFooter(dst []byte, start int) []byte {
	return appendFooterVersion(dst, start, Version)
}

// appendFooterVersion is AppendFooter with the given version.
func appendFooterVersion(dst []byte, start int, version uint16) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, version)
	return binary.LittleEndian.AppendUint64(dst, CRC64(0, dst[start:]))
}

// CheckFooter verifies a DUMP payload's version and checksum and returns
// the body before them.
func CheckFooter(p []byte) ([]byte, error) {
	if len(p) < 10 {
		return nil, ErrDumpFooter
	}
	f := p[len(p)-10:]
	if binary.LittleEndian.Uint16(f) > VersionFieldTTLs || binary.LittleEndian.Uint64(f[2:]) != CRC64(0, p[:len(p)-8]) {
		return nil, ErrDumpFooter
	}
	return p[:len(p)-10], nil
}

// ParseDump decodes a DUMP payload: ErrDumpFooter when its footer is
// wrong, ErrUnsupportedType for a type it does not know (with the type),
// ErrEmpty or an ErrBadFormat error when the value is malformed. Bytes
// after the value, before the footer, are ignored, as Redis ignores them.
func ParseDump(p []byte) (Type, Value, error) {
	body, err := CheckFooter(p)
	if err != nil {
		return 0, Value{}, err
	}
	if len(body) == 0 {
		return 0, Value{}, badf("empty payload")
	}
	t := Type(body[0])
	if !IsObjectType(body[0]) {
		return t, Value{}, badf("value type %d", t)
	}
	d := newDecoder(bytes.NewReader(body[1:]))
	v, err := d.value(t)
	return t, v, err
}
