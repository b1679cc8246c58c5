package codec

import (
	"bytes"
	"unsafe"
)

// BigArgLen is the bulk length from which a Parser reads the bulk straight
// into a buffer of its final size instead of accumulating it: each byte of
// a large value is then copied once, however many reads deliver it.
const BigArgLen = 32 * 1024

// Parser states.
const (
	stIdle       uint8 = iota // no request started
	stInline                  // reading an inline line
	stCount                   // reading the "*<n>" line
	stBulkHeader              // reading a "$<len>" line
	stBulkData                // reading a bulk's bytes and the two after them
)

// span locates one argument of the request in progress: data[off:end], or
// bigs[big] when big >= 0.
type span struct {
	off, end int
	big      int
}

// Parser carries one request across reads, so that a request which arrives
// in many pieces is examined once in total rather than once per piece (the
// state Redis keeps in a client's querybuf, multibulklen and bulklen).
//
// A connection parses the complete requests of a read with ParseCommand,
// which copies nothing, and feeds the incomplete rest to Feed; the next
// reads go to Feed until it reports the request done. Feed copies what it
// consumes: the bytes passed in may be reused once it returns. Arguments
// shorter than BigArgLen are gathered in one buffer; a longer bulk gets a
// buffer of its own, allocated once at its declared length.
//
// Fed the same bytes, split anywhere, Feed and ParseCommand give the same
// requests and the same errors, except that the "too big" line errors
// depend, as in Redis, on how many bytes had arrived when they were checked.
//
// The zero value is ready to use. A Parser is not safe for concurrent use.
type Parser struct {
	st uint8
	// line holds the bytes of an unfinished line (header or inline).
	line []byte
	// term is the index in the line of its terminator, -1 when not seen.
	term int
	// nul is set when a NUL byte came before any terminator: like C's
	// strchr, the line then never ends.
	nul bool

	left int64 // bulks still expected
	size int64 // length of the bulk being read
	got  int64 // bytes of that bulk (and the two after it) received

	data  []byte
	big   []byte
	bigs  [][]byte
	spans []span

	scanned int64
	// bigCopied counts the bytes ever copied into big argument buffers.
	bigCopied int64
	// bigDone is the largest big argument completed since TakeBigDone.
	bigDone int
}

// Active reports whether a request is in progress.
func (p *Parser) Active() bool { return p.st != stIdle }

// Buffered is the number of request bytes the parser holds.
func (p *Parser) Buffered() int {
	n := len(p.line) + len(p.data)
	for _, b := range p.bigs {
		n += len(b)
	}
	if p.big != nil {
		n += int(min(p.got, p.size))
	}
	return n
}

// Big returns the bytes of the big argument buffers the parser holds
// (allocated at their declared lengths) and how many of those bytes have
// arrived.
func (p *Parser) Big() (alloc, recv int) {
	for _, b := range p.bigs {
		alloc += cap(b)
		recv += len(b)
	}
	if p.big != nil {
		alloc += cap(p.big)
		recv += int(min(p.got, p.size))
	}
	return alloc, recv
}

// BigCopied is the number of bytes the parser has copied into big argument
// buffers since it was created: the difference across a Feed is how many of
// the bytes fed went there rather than to a small buffer.
func (p *Parser) BigCopied() int64 { return p.bigCopied }

// TakeBigDone returns the length of the largest big argument completed
// since the last call, 0 if none, and forgets it.
func (p *Parser) TakeBigDone() int {
	n := p.bigDone
	p.bigDone = 0
	return n
}

// Scanned is the number of bytes the parser has examined since it was
// created; tests use it to check that parsing stays linear.
func (p *Parser) Scanned() int64 { return p.scanned }

// Reset drops the request in progress.
func (p *Parser) Reset() {
	p.st = stIdle
	p.line = p.line[:0]
	p.term = -1
	p.nul = false
	p.left, p.size, p.got = 0, 0, 0
	p.data = p.data[:0]
	p.big = nil
	clear(p.bigs)
	p.bigs = p.bigs[:0]
	p.spans = p.spans[:0]
	if cap(p.line) > DefaultMaxInlineLen {
		p.line = nil
	}
	if cap(p.spans) > 1<<16 {
		p.spans = nil
		p.bigs = nil
	}
}

// Feed consumes bytes of in for the request in progress, starting a new one
// if none is, and returns how many it used. done reports that the request
// is complete; Take then returns it. A complete request may be empty (a
// blank inline line, "*0"): Take returns no arguments and the caller skips
// it. On error (*ProtocolError) the connection is to be closed, except for
// an Unauthenticated error, after which Feed may be called again with the
// same bytes once the client has authenticated: nothing of in was consumed
// from the refused header on.
func (p *Parser) Feed(in []byte, lim Limits) (n int, done bool, err error) {
	lim = lim.withDefaults()
	pos := 0
	for {
		switch p.st {
		case stIdle:
			if pos == len(in) {
				return pos, false, nil
			}
			p.term = -1
			p.nul = false
			if in[pos] == '*' {
				p.st = stCount
			} else {
				p.st = stInline
			}
		case stInline:
			line, next, complete, err := p.readLine(in, pos, '\n', 0, lim.MaxInlineLen, msgTooBigInline)
			if err != nil || !complete {
				return next, false, err
			}
			pos = next
			line = line[:len(line)-1]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			p.data = append(p.data[:0], line...)
			p.endLine()
			args, ok := splitArgs(p.data, nil)
			if !ok {
				return pos, false, protoErr(msgUnbalancedQuotes)
			}
			for _, a := range args {
				off := 0
				if len(a) > 0 {
					off = offsetIn(p.data, a)
				}
				p.spans = append(p.spans, span{off: off, end: off + len(a), big: -1})
			}
			p.st = stIdle
			return pos, true, nil
		case stCount:
			before := len(p.line)
			line, next, complete, err := p.readLine(in, pos, '\r', 1, lim.MaxInlineLen, msgTooBigMbulkCount)
			if err != nil || !complete {
				return next, false, err
			}
			count, ok := parseInt(line[1 : len(line)-2])
			if !ok || count > int64(lim.MaxMultibulkLen) {
				return next, false, protoErr(msgInvalidMultibulkLen)
			}
			if lim.AuthRequired && count > UnauthMaxMultibulkLen {
				p.line = p.line[:before]
				return pos, false, unauthErr(msgUnauthMultibulkLen)
			}
			pos = next
			p.endLine()
			if count <= 0 {
				p.st = stIdle
				return pos, true, nil
			}
			p.left = count
			if cap(p.spans) < int(min(count, maxPrealloc)) {
				p.spans = make([]span, 0, min(count, maxPrealloc))
			}
			p.st = stBulkHeader
		case stBulkHeader:
			before := len(p.line)
			line, next, complete, err := p.readLine(in, pos, '\r', 1, lim.MaxInlineLen, msgTooBigBulkCount)
			if err != nil || !complete {
				return next, false, err
			}
			if line[0] != '$' {
				return next, false, expectedDollar(line[0])
			}
			size, ok := parseInt(line[1 : len(line)-2])
			if !ok || size < 0 || size > lim.MaxBulkLen {
				return next, false, protoErr(msgInvalidBulkLen)
			}
			if lim.AuthRequired && size > UnauthMaxBulkLen {
				p.line = p.line[:before]
				return pos, false, unauthErr(msgUnauthBulkLen)
			}
			pos = next
			p.endLine()
			p.size, p.got = size, 0
			if size >= BigArgLen {
				p.big = make([]byte, size)
			} else {
				p.spans = append(p.spans, span{off: len(p.data), end: len(p.data) + int(size), big: -1})
			}
			p.st = stBulkData
		case stBulkData:
			if pos == len(in) {
				return pos, false, nil
			}
			take := min(int64(len(in)-pos), p.size+2-p.got)
			if p.got < p.size {
				d := in[pos : pos+int(min(take, p.size-p.got))]
				if p.big != nil {
					copy(p.big[p.got:], d)
					p.bigCopied += int64(len(d))
				} else {
					p.data = append(p.data, d...)
				}
			}
			p.scanned += take
			p.got += take
			pos += int(take)
			if p.got < p.size+2 {
				return pos, false, nil
			}
			if p.big != nil {
				p.spans = append(p.spans, span{big: len(p.bigs)})
				p.bigs = append(p.bigs, p.big)
				p.bigDone = max(p.bigDone, len(p.big))
				p.big = nil
			}
			p.left--
			if p.left > 0 {
				p.st = stBulkHeader
				continue
			}
			p.st = stIdle
			return pos, true, nil
		}
	}
}

// readLine gathers a line ending in term plus extra bytes after it, from
// the bytes kept in p.line and in[pos:]. complete is false when the line
// has not ended yet: then every byte of in was taken into p.line and next
// is len(in). maxLen bounds an unterminated line; tooBig is the error past
// it. A complete line is returned with its terminator and extra bytes, and
// next is the position after them; p.line keeps its bytes until endLine.
func (p *Parser) readLine(in []byte, pos int, term byte, extra, maxLen int, tooBig string) (line []byte, next int, complete bool, err error) {
	rest := in[pos:]
	if p.term < 0 && !p.nul {
		i := bytes.IndexByte(rest, term)
		seg := rest
		if i >= 0 {
			seg = rest[:i]
		}
		p.scanned += int64(len(seg))
		if bytes.IndexByte(seg, 0) >= 0 {
			p.nul = true
		} else if i >= 0 {
			p.term = len(p.line) + i
		}
	}
	if p.term >= 0 && len(p.line)+len(rest) >= p.term+1+extra {
		take := p.term + 1 + extra - len(p.line)
		if len(p.line) == 0 {
			return rest[:take], pos + take, true, nil
		}
		p.line = append(p.line, rest[:take]...)
		return p.line, pos + take, true, nil
	}
	if p.term < 0 && len(p.line)+len(rest) > maxLen {
		return nil, len(in), false, protoErr(tooBig)
	}
	p.line = append(p.line, rest...)
	return nil, len(in), false, nil
}

// endLine forgets the line just parsed.
func (p *Parser) endLine() {
	p.line = p.line[:0]
	p.term = -1
	p.nul = false
}

// Take returns the request Feed reported done: its arguments appended to
// argv, and data, the buffer the short ones point into, which now belongs
// to the caller (long bulks have buffers of their own, which the caller
// owns too). spare is a buffer, possibly nil, the parser keeps for the
// next request. Take resets the parser.
func (p *Parser) Take(argv [][]byte, spare []byte) (args [][]byte, data []byte) {
	data = p.data
	for _, s := range p.spans {
		if s.big >= 0 {
			b := p.bigs[s.big]
			argv = append(argv, b[:len(b):len(b)])
			continue
		}
		argv = append(argv, data[s.off:s.end:s.end])
	}
	p.data = spare[:0]
	p.Reset()
	return argv, data
}

// offsetIn returns the offset of sub within b; sub is a non-empty
// sub-slice of b (its capacity may be clipped, so only its address tells).
func offsetIn(b, sub []byte) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}
