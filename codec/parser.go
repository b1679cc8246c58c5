package codec

import "bytes"

// Default limits, used by ParseCommand for every Limits field that is zero
// or negative. They are the Redis defaults.
const (
	// DefaultMaxMultibulkLen is the default Limits.MaxMultibulkLen.
	DefaultMaxMultibulkLen = 1024 * 1024
	// DefaultMaxBulkLen is the default Limits.MaxBulkLen (proto-max-bulk-len).
	DefaultMaxBulkLen int64 = 512 << 20
	// DefaultMaxInlineLen is the default Limits.MaxInlineLen
	// (PROTO_INLINE_MAX_SIZE).
	DefaultMaxInlineLen = 64 << 10
)

// maxPrealloc caps how many argument slots ParseCommand reserves up front
// from a multibulk header, so that a large declared count backed by little
// data cannot force a large allocation.
const maxPrealloc = 1024

// Limits bound what ParseCommand accepts. Zero fields mean the defaults below.
//
// A field that is zero or negative means its default: DefaultMaxMultibulkLen,
// DefaultMaxBulkLen, DefaultMaxInlineLen. MaxInlineLen also bounds the
// "*<n>" and "$<len>" header lines of a multibulk request, as
// PROTO_INLINE_MAX_SIZE does in Redis.
type Limits struct {
	MaxMultibulkLen int   // max number of arguments in one multibulk request (default 1024*1024, like Redis)
	MaxBulkLen      int64 // max length of one bulk argument (proto-max-bulk-len, default 512 MiB)
	MaxInlineLen    int   // max length of one inline request line (default 64 KiB, like Redis PROTO_INLINE_MAX_SIZE)
	// AuthRequired applies the limits of a connection that must still
	// authenticate: a multibulk request of more than UnauthMaxMultibulkLen
	// arguments or a bulk longer than UnauthMaxBulkLen is a protocol error.
	AuthRequired bool
}

// Limits of a connection that has not authenticated while a password is
// required, as in Redis 7: they keep an unauthenticated peer from making
// the server buffer large requests.
const (
	// UnauthMaxMultibulkLen is the most arguments such a request may carry.
	UnauthMaxMultibulkLen = 10
	// UnauthMaxBulkLen is the longest bulk such a request may carry.
	UnauthMaxBulkLen = 16 * 1024
)

// withDefaults returns l with every non-positive field set to its default.
func (l Limits) withDefaults() Limits {
	if l.MaxMultibulkLen <= 0 {
		l.MaxMultibulkLen = DefaultMaxMultibulkLen
	}
	if l.MaxBulkLen <= 0 {
		l.MaxBulkLen = DefaultMaxBulkLen
	}
	if l.MaxInlineLen <= 0 {
		l.MaxInlineLen = DefaultMaxInlineLen
	}
	return l
}

// ProtocolError is a malformed request. Msg is the Redis wording without the "ERR " prefix, e.g. "Protocol error: invalid multibulk length". The connection must be closed after replying "-ERR " + Msg.
//
// Msg never contains CR or LF, so "-ERR " + Msg + "\r\n" is always one
// well-formed error reply.
type ProtocolError struct {
	Msg string
	// Unauthenticated marks a request refused only by the limits of
	// Limits.AuthRequired: the parser consumed nothing of it, so a caller
	// that learns the client has authenticated meanwhile (an AUTH earlier in
	// the same pipeline) may parse it again without those limits.
	Unauthenticated bool
}

// Error returns "ERR " + Msg, the text a client sees.
func (e *ProtocolError) Error() string { return "ERR " + e.Msg }

// The fixed protocol error messages, as Redis words them.
const (
	msgInvalidMultibulkLen = "Protocol error: invalid multibulk length"
	msgInvalidBulkLen      = "Protocol error: invalid bulk length"
	msgTooBigMbulkCount    = "Protocol error: too big mbulk count string"
	msgTooBigBulkCount     = "Protocol error: too big bulk count string"
	msgTooBigInline        = "Protocol error: too big inline request"
	msgUnbalancedQuotes    = "Protocol error: unbalanced quotes in request"
	msgUnauthMultibulkLen  = "Protocol error: unauthenticated multibulk length"
	msgUnauthBulkLen       = "Protocol error: unauthenticated bulk length"
)

// unauthErr is the error for a request over the unauthenticated limits.
func unauthErr(msg string) error { return &ProtocolError{Msg: msg, Unauthenticated: true} }

// protoErr returns a new *ProtocolError; errors end the connection, so the
// allocation is off the hot path.
func protoErr(msg string) error { return &ProtocolError{Msg: msg} }

// expectedDollar is Redis's "expected '$', got 'X'" error. A CR or LF byte
// is shown as a space, as Redis's addReplyErrorFormat does.
func expectedDollar(got byte) error {
	if got == '\r' || got == '\n' {
		got = ' '
	}
	return &ProtocolError{Msg: "Protocol error: expected '$', got '" + string([]byte{got}) + "'"}
}

// ParseCommand parses the first complete request in buf. It returns the arguments appended to args[:0] (each a sub-slice of buf, no copying, no allocation beyond growing args), and n, the number of bytes consumed.
// n == 0 && err == nil: the request is incomplete; call again with more bytes.
// n > 0 && len(args) == 0: an empty request (blank inline line, "*0\r\n", "*-1\r\n") that the caller skips.
// err != nil: *ProtocolError.
//
// A request starting with '*' is a multibulk request; anything else is an
// inline request, one line split into words the way Redis's sdssplitargs
// does. Each returned argument has its capacity clipped to its length, so
// appending to it never overwrites buf.
//
// ParseCommand may rewrite the bytes of an inline request in place: a word
// with quotes or escapes is unescaped within buf (the unescaped form is
// never longer), so that it too can alias buf. It happens only when the
// result is a complete request or an error, never for an incomplete one,
// and only to words that contain quotes or backslash escapes. Consequently
// the bytes buf[:n] must not be parsed a second time: keep or copy the
// returned arguments instead. Multibulk requests are never written to.
//
// Like Redis, the parser looks for a CR to end a multibulk header line and
// then skips it and the byte after it, and skips the two bytes after a
// bulk's data, without checking that they are "\r\n". Like Redis's strchr,
// a NUL byte before a line's terminator makes the line unterminated.
//
// ParseCommand keeps no state between calls: on incomplete input the next
// call would re-scan the request from its start. A connection hands an
// incomplete request to a Parser instead, which carries on from where the
// bytes ended.
func ParseCommand(buf []byte, args [][]byte, lim Limits) ([][]byte, int, error) {
	args = args[:0]
	if len(buf) == 0 {
		return args, 0, nil
	}
	lim = lim.withDefaults()
	if buf[0] == '*' {
		return parseMultibulk(buf, args, &lim)
	}
	return parseInline(buf, args, &lim)
}

// findLineEnd returns the index in b of the first term byte, or -1 when
// there is none or a NUL byte comes first (Redis finds line ends with
// strchr, which stops at NUL).
func findLineEnd(b []byte, term byte) int {
	i := bytes.IndexByte(b, term)
	if i < 0 {
		return -1
	}
	if bytes.IndexByte(b[:i], 0) >= 0 {
		return -1
	}
	return i
}

// headerLen reads the length of a "*<n>\r" or "$<n>\r" header line at the
// start of b in one pass, for the case nearly every request is made of: a
// '*' or '$', 1 to 18 digits, no leading zero unless n is 0, a CR, and the
// byte after it already here. It returns n and the CR's index; ok is false
// for anything else (another first byte, a sign, a NUL, an incomplete or
// malformed line), which the general path (findLineEnd, parseInt) then
// reads, with its errors.
func headerLen(b []byte) (n int64, cr int, ok bool) {
	const maxDigits = 18 // below 2^63 whatever they are
	if len(b) == 0 || b[0] != '*' && b[0] != '$' {
		return 0, 0, false
	}
	i := 1
	for ; i < len(b) && i <= maxDigits; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	if i == 1 || i+1 >= len(b) || b[i] != '\r' || (b[1] == '0' && i > 2) {
		return 0, 0, false
	}
	return n, i, true
}

// header reads the header line at the start of b ("*<n>\r" or "$<n>\r";
// the type byte is the caller's to check): the CR's index, -1 when there
// is none yet (or a NUL comes first); complete, once the byte after the CR
// is here too; and then the number, ok when the line holds a valid one.
// headerLen reads nearly every line in one pass; anything else takes
// findLineEnd and parseInt, as Redis reads it.
func header(b []byte) (n int64, cr int, complete, ok bool) {
	if n, cr, ok := headerLen(b); ok {
		return n, cr, true, true
	}
	cr = findLineEnd(b, '\r')
	if cr < 0 || cr+1 >= len(b) {
		return 0, cr, false, false
	}
	if cr == 0 {
		return 0, 0, true, false
	}
	n, ok = parseInt(b[1:cr])
	return n, cr, true, ok
}

// parseMultibulk parses "*<n>\r\n" followed by n "$<len>\r\n<bytes>\r\n".
// buf[0] is '*'.
func parseMultibulk(buf []byte, args [][]byte, lim *Limits) ([][]byte, int, error) {
	count, cr, complete, ok := header(buf)
	if !complete {
		if cr < 0 && len(buf) > lim.MaxInlineLen {
			return args, 0, protoErr(msgTooBigMbulkCount)
		}
		return args, 0, nil
	}
	if !ok || count > int64(lim.MaxMultibulkLen) {
		return args, 0, protoErr(msgInvalidMultibulkLen)
	}
	if lim.AuthRequired && count > UnauthMaxMultibulkLen {
		return args, 0, unauthErr(msgUnauthMultibulkLen)
	}
	pos := cr + 2
	if count <= 0 {
		return args, pos, nil
	}
	if int64(cap(args)) < count {
		args = make([][]byte, 0, min(count, maxPrealloc))
	}
	for ; count > 0; count-- {
		rest := buf[pos:]
		size, cr, complete, ok := header(rest)
		if !complete {
			if cr < 0 && len(rest) > lim.MaxInlineLen {
				return args[:0], 0, protoErr(msgTooBigBulkCount)
			}
			return args[:0], 0, nil
		}
		if rest[0] != '$' {
			return args[:0], 0, expectedDollar(rest[0])
		}
		if !ok || size < 0 || size > lim.MaxBulkLen {
			return args[:0], 0, protoErr(msgInvalidBulkLen)
		}
		if lim.AuthRequired && size > UnauthMaxBulkLen {
			return args[:0], 0, unauthErr(msgUnauthBulkLen)
		}
		start := pos + cr + 2
		if int64(len(buf)-start)-2 < size { // data and its CRLF not all here
			return args[:0], 0, nil
		}
		end := start + int(size)
		args = append(args, buf[start:end:end])
		pos = end + 2
	}
	return args, pos, nil
}

// parseInline parses one inline request line. buf[0] is not '*'.
func parseInline(buf []byte, args [][]byte, lim *Limits) ([][]byte, int, error) {
	nl := findLineEnd(buf, '\n')
	if nl < 0 {
		if len(buf) > lim.MaxInlineLen {
			return args, 0, protoErr(msgTooBigInline)
		}
		return args, 0, nil
	}
	line := buf[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, ok := splitArgs(line, args)
	if !ok {
		return args[:0], 0, protoErr(msgUnbalancedQuotes)
	}
	return args, nl + 1, nil
}

// isSpace reports whether c is a C isspace character.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// hexVal returns the value of the hex digit c, or -1.
func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// splitArgs splits line into words the way Redis's sdssplitargs does,
// unescaping each word in place, and appends the words to args. ok is false
// on unbalanced quotes or a closing quote followed by something other than
// a space. line holds no NUL byte (see findLineEnd).
//
// A word's unescaped bytes are written from the word's first byte on; the
// write position never passes the read position, so no unread byte is
// overwritten.
func splitArgs(line []byte, args [][]byte) (_ [][]byte, ok bool) {
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) {
			return args, true
		}
		start, w := p, p
		put := func(c byte) {
			if line[w] != c { // leave plain words untouched
				line[w] = c
			}
			w++
		}
		inDouble, inSingle := false, false
	word:
		for {
			switch {
			case inDouble:
				if p == len(line) {
					return args, false
				}
				c := line[p]
				switch {
				case c == '\\' && p+3 < len(line) && line[p+1] == 'x' &&
					hexVal(line[p+2]) >= 0 && hexVal(line[p+3]) >= 0:
					put(byte(hexVal(line[p+2])<<4 | hexVal(line[p+3])))
					p += 4
				case c == '\\' && p+1 < len(line):
					switch e := line[p+1]; e {
					case 'n':
						put('\n')
					case 'r':
						put('\r')
					case 't':
						put('\t')
					case 'b':
						put('\b')
					case 'a':
						put('\a')
					default:
						put(e)
					}
					p += 2
				case c == '"':
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return args, false
					}
					p++
					break word
				default:
					put(c)
					p++
				}
			case inSingle:
				if p == len(line) {
					return args, false
				}
				c := line[p]
				switch {
				case c == '\\' && p+1 < len(line) && line[p+1] == '\'':
					put('\'')
					p += 2
				case c == '\'':
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return args, false
					}
					p++
					break word
				default:
					put(c)
					p++
				}
			default:
				if p == len(line) {
					break word
				}
				switch c := line[p]; c {
				case ' ', '\n', '\r', '\t':
					p++
					break word
				case '"':
					inDouble = true
					p++
				case '\'':
					inSingle = true
					p++
				default:
					put(c)
					p++
				}
			}
		}
		args = append(args, line[start:w:w])
	}
}

// parseInt parses b as Redis's string2ll does: an optional '-', then
// decimal digits without leading zeros (a lone "0" is allowed, "-0" is
// not), fitting in an int64, at most 20 bytes.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-d {
			return 0, false
		}
		v += d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true // -(1<<63) wraps to math.MinInt64
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
