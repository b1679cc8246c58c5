package persistence

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Errors returned by this package wrap one of these (test
// with errors.Is) and add context such as the file name and offset.
var (
	// ErrCorrupt is returned (wrapped in a *CorruptionError or with context)
	// when a WAL record, a payload or a snapshot fails validation: a bad
	// CRC, an impossible length, a sequence gap or a short payload.
	ErrCorrupt = errors.New("persistence: corrupt data")

	// ErrClosed is returned by operations on a closed WAL or snapshot writer.
	ErrClosed = errors.New("persistence: closed")

	// ErrRecordTooLarge is the panic value of Append when a record would
	// exceed MaxRecordLength; callers must bound payloads with MaxPayloadSize.
	ErrRecordTooLarge = errors.New("persistence: record too large")

	// ErrSequence is returned by OpenWAL when the directory already holds
	// records after the given last sequence (Recover was not run first).
	ErrSequence = errors.New("persistence: sequence conflict")

	// ErrInjected is the default error produced by ErrorFS rules.
	ErrInjected = errors.New("persistence: injected error")

	// ErrNotExist is returned by MemFS for a missing file; OSFS returns the
	// os error, which also satisfies errors.Is(err, fs.ErrNotExist).
	ErrNotExist = errors.New("persistence: file does not exist")
)

// CorruptionError reports damaged data in File at byte Offset. It matches
// ErrCorrupt under errors.Is.
type CorruptionError struct {
	File   string // path of the damaged file
	Offset int64  // byte offset of the damaged record or field
	Reason string // human-readable cause, e.g. "crc mismatch"
}

// Error implements error.
func (e *CorruptionError) Error() string {
	return fmt.Sprintf("persistence: corrupt data in %s at offset %d: %s", e.File, e.Offset, e.Reason)
}

// Unwrap returns ErrCorrupt.
func (e *CorruptionError) Unwrap() error { return ErrCorrupt }

// missingPrefix starts the Reason of a CorruptionError for records that
// are not in the WAL at all (no segment holds them).
const missingPrefix = "missing records"

// MissingRecords reports whether the error is about records absent from
// the WAL rather than damaged bytes: repair cannot help with that.
func (e *CorruptionError) MissingRecords() bool { return strings.HasPrefix(e.Reason, missingPrefix) }
