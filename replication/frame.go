package replication

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Frame types.
const (
	FrameContinue = 'C'
	FrameFull     = 'F'
	FrameData     = 'D'
	FrameRecords  = 'R'
	FramePing     = 'P'
)

// frameHeaderSize is type u8, length u32, crc u32.
const frameHeaderSize = 9

// MaxFrame bounds a frame's payload: a record of the largest size the
// log allows, plus room for a few more.
const MaxFrame = 1<<30 + 1<<20

// ErrCorruptStream is returned for a frame that fails its checksum or is
// malformed; the error text names the sequence the replica had reached.
var ErrCorruptStream = errors.New("replication: corrupted stream")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendFrame appends one frame holding payload to dst.
func AppendFrame(dst []byte, typ byte, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, typ, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(dst[start+1:], uint32(len(payload)))
	dst = append(dst, payload...)
	binary.LittleEndian.PutUint32(dst[start+5:], frameCRC(dst[start:]))
	return dst
}

// beginFrame starts a frame whose payload the caller appends; endFrame
// completes it.
func beginFrame(dst []byte, typ byte) ([]byte, int) {
	start := len(dst)
	return append(dst, typ, 0, 0, 0, 0, 0, 0, 0, 0), start
}

func endFrame(dst []byte, start int) []byte {
	binary.LittleEndian.PutUint32(dst[start+1:], uint32(len(dst)-start-frameHeaderSize))
	binary.LittleEndian.PutUint32(dst[start+5:], frameCRC(dst[start:]))
	return dst
}

func frameCRC(frame []byte) uint32 {
	c := crc32.Update(0, castagnoli, frame[:5])
	return crc32.Update(c, castagnoli, frame[frameHeaderSize:])
}

// FrameReader reads frames from a stream.
type FrameReader struct {
	r   *bufio.Reader
	buf []byte
}

// NewFrameReader reads frames from r.
func NewFrameReader(r *bufio.Reader) *FrameReader { return &FrameReader{r: r} }

// Next returns the next frame. The payload is valid until the next call.
// at is the sequence the reader's owner has reached, for the error text.
// A checksum mismatch or an impossible header is ErrCorruptStream.
func (fr *FrameReader) Next(at uint64) (typ byte, payload []byte, err error) {
	var hdr [frameHeaderSize]byte
	if _, err := io.ReadFull(fr.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	typ = hdr[0]
	n := binary.LittleEndian.Uint32(hdr[1:])
	switch typ {
	case FrameContinue, FrameFull, FrameData, FrameRecords, FramePing:
	default:
		return 0, nil, fmt.Errorf("%w after sequence %d: unknown frame type 0x%02x", ErrCorruptStream, at, typ)
	}
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("%w after sequence %d: frame of %d bytes", ErrCorruptStream, at, n)
	}
	// The buffer grows with the bytes that arrive, not with the length
	// announced: a damaged length cannot make it allocate a gigabyte.
	b := append(fr.buf[:0], hdr[:]...)
	for rem := int(n); rem > 0; {
		step := min(rem, 1<<20)
		b = append(b, make([]byte, step)...)
		if _, err := io.ReadFull(fr.r, b[len(b)-step:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			fr.buf = b[:0]
			return 0, nil, err
		}
		rem -= step
	}
	fr.buf = b
	if got, want := frameCRC(b), binary.LittleEndian.Uint32(hdr[5:]); got != want {
		return 0, nil, fmt.Errorf("%w after sequence %d: frame checksum mismatch (computed %08x, sent %08x)", ErrCorruptStream, at, got, want)
	}
	return typ, b[frameHeaderSize:], nil
}
