package codec

import (
	"math"
	"strconv"
)

// Writer appends RESP replies to Buf. Proto selects the dialect: 2 for RESP2,
// 3 for RESP3. RESP3-only types are downgraded when Proto is 2, the way
// Redis does it: maps become flat arrays, sets and pushes become arrays,
// null becomes $-1 (or *-1 for arrays), booleans become :1/:0, doubles and
// big numbers become bulk strings, verbatim strings become bulk strings.
//
// A Writer never fails: every method appends to Buf, which the owner resets
// (Buf = Buf[:0]) when the bytes have been handed off.
//
// Limit bounds what one reply may cost: when it is above 0 and Buf has
// reached Limit bytes (Full), every method but Error appends nothing, so a
// reply driven by a huge count stops growing one element past the limit.
// The owner then discards Buf (its reply is cut short, no longer valid
// RESP) and closes the connection; loops producing a long reply check Full
// to stop early. Error is exempt: errors are short, and callers read back
// the error they have just written.
type Writer struct {
	Buf   []byte
	Proto int
	Limit int
}

// Full reports whether Buf has reached Limit (never when Limit is 0): the
// methods drop what they are given from then on.
func (w *Writer) Full() bool { return w.Limit > 0 && len(w.Buf) >= w.Limit }

// Reset empties the buffer, keeping its capacity.
func (w *Writer) Reset() { w.Buf = w.Buf[:0] }

// Len is the number of bytes appended so far.
func (w *Writer) Len() int { return len(w.Buf) }

// doubleFrom is the capacity from which the buffer doubles when it grows.
// append grows a large slice by a quarter: a batch of large replies (a
// pipeline of GETs of big values) would copy its buffer about four times
// over and allocate five times its final size, each time the buffer is
// rebuilt from its pooled capacity.
const doubleFrom = 64 << 10

// bulkHeader bounds a bulk string's framing: '$', up to 20 digits of
// length and two CRLFs.
const bulkHeader = 25

// reserve makes room for n more bytes, doubling a large buffer; smaller
// ones are left to append.
func (w *Writer) reserve(n int) {
	if cap(w.Buf)-len(w.Buf) < n && cap(w.Buf) >= doubleFrom {
		w.double(n)
	}
}

// double is reserve's slow path, kept out of line so that every bulk
// reply does not carry its copy.
//
//go:noinline
func (w *Writer) double(n int) {
	nb := make([]byte, len(w.Buf), max(2*cap(w.Buf), len(w.Buf)+n))
	copy(nb, w.Buf)
	w.Buf = nb
}

// Raw appends b as is; b must already be valid RESP.
func (w *Writer) Raw(b []byte) {
	if w.Full() {
		return
	}
	w.reserve(len(b))
	w.Buf = append(w.Buf, b...)
}

// SimpleString appends +s. s must not contain CR or LF.
func (w *Writer) SimpleString(s string) {
	if w.Full() {
		return
	}
	w.Buf = append(w.Buf, '+')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// OK appends +OK.
func (w *Writer) OK() {
	if w.Full() {
		return
	}
	w.Buf = append(w.Buf, "+OK\r\n"...)
}

// Error appends -msg. msg carries its own code as first word ("ERR ...",
// "WRONGTYPE ..."). CR and LF are replaced by spaces so an error can never
// break the framing.
func (w *Writer) Error(msg string) {
	w.Buf = append(w.Buf, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.Buf = append(w.Buf, c)
	}
	w.Buf = append(w.Buf, '\r', '\n')
}

// Int appends :n.
func (w *Writer) Int(n int64) {
	if w.Full() {
		return
	}
	w.Buf = append(w.Buf, ':')
	w.Buf = strconv.AppendInt(w.Buf, n, 10)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Bulk appends a bulk string holding b.
func (w *Writer) Bulk(b []byte) {
	if w.Full() {
		return
	}
	w.reserve(len(b) + bulkHeader)
	w.Buf = append(w.Buf, '$')
	w.Buf = strconv.AppendInt(w.Buf, int64(len(b)), 10)
	w.Buf = append(w.Buf, '\r', '\n')
	w.Buf = append(w.Buf, b...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkString appends a bulk string holding s.
func (w *Writer) BulkString(s string) {
	if w.Full() {
		return
	}
	w.reserve(len(s) + bulkHeader)
	w.Buf = append(w.Buf, '$')
	w.Buf = strconv.AppendInt(w.Buf, int64(len(s)), 10)
	w.Buf = append(w.Buf, '\r', '\n')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkInt appends the decimal form of n as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [20]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null appends the null reply: _ in RESP3, $-1 in RESP2.
func (w *Writer) Null() {
	if w.Full() {
		return
	}
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "$-1\r\n"...)
}

// NullArray appends a null array: _ in RESP3, *-1 in RESP2.
func (w *Writer) NullArray() {
	if w.Full() {
		return
	}
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "*-1\r\n"...)
}

func (w *Writer) header(prefix byte, n int) {
	if w.Full() {
		return
	}
	w.Buf = append(w.Buf, prefix)
	w.Buf = strconv.AppendInt(w.Buf, int64(n), 10)
	w.Buf = append(w.Buf, '\r', '\n')
}

// ArrayHeader starts an array of n elements.
func (w *Writer) ArrayHeader(n int) { w.header('*', n) }

// MapHeader starts a map of n key/value pairs (RESP2: an array of 2n).
func (w *Writer) MapHeader(n int) {
	if w.Proto >= 3 {
		w.header('%', n)
		return
	}
	w.header('*', 2*n)
}

// SetHeader starts a set of n elements (RESP2: an array).
func (w *Writer) SetHeader(n int) {
	if w.Proto >= 3 {
		w.header('~', n)
		return
	}
	w.header('*', n)
}

// PushHeader starts an out-of-band push of n elements (RESP2: an array).
func (w *Writer) PushHeader(n int) {
	if w.Proto >= 3 {
		w.header('>', n)
		return
	}
	w.header('*', n)
}

// Bool appends #t/#f (RESP2: :1/:0).
func (w *Writer) Bool(b bool) {
	if w.Full() {
		return
	}
	if w.Proto >= 3 {
		if b {
			w.Buf = append(w.Buf, "#t\r\n"...)
		} else {
			w.Buf = append(w.Buf, "#f\r\n"...)
		}
		return
	}
	if b {
		w.Buf = append(w.Buf, ":1\r\n"...)
	} else {
		w.Buf = append(w.Buf, ":0\r\n"...)
	}
}

// AppendFloat formats f the way Redis 7.0 prints doubles in replies
// (printf's %.17g: 0.1 is 0.10000000000000001), "inf"/"-inf" for
// infinities, "nan" for NaN.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// Double appends ,f (RESP2: a bulk string).
func (w *Writer) Double(f float64) {
	if w.Full() {
		return
	}
	var tmp [32]byte
	b := AppendFloat(tmp[:0], f)
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, b...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// BigNumber appends (s (RESP2: a bulk string). s holds decimal digits.
func (w *Writer) BigNumber(s string) {
	if w.Full() {
		return
	}
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, '(')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// Verbatim appends a verbatim string with a three-letter format such as
// "txt" (RESP2: a plain bulk string of s).
func (w *Writer) Verbatim(format, s string) {
	if w.Full() {
		return
	}
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, '=')
		w.Buf = strconv.AppendInt(w.Buf, int64(len(s)+4), 10)
		w.Buf = append(w.Buf, '\r', '\n')
		w.Buf = append(w.Buf, format...)
		w.Buf = append(w.Buf, ':')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// BulkStrings appends an array of bulk strings.
func (w *Writer) BulkStrings(ss []string) {
	w.ArrayHeader(len(ss))
	for _, s := range ss {
		if w.Full() {
			return
		}
		w.BulkString(s)
	}
}
