// Package codec speaks RESP: it parses client requests and encodes replies.
//
// # Requests
//
// ParseCommand takes the bytes a connection has received and returns the
// first complete request in them as a list of arguments plus the number of
// bytes it used. It is stateless: on incomplete input it returns n == 0.
// A connection then hands the incomplete rest to its Parser, which copies
// what has arrived, keeps its place in the request and carries on with the
// next reads (Feed, then Take once done), so a request that arrives in many
// pieces is examined once, not once per piece; bulks of BigArgLen bytes or
// more go straight into a buffer of their final size.
// Two request forms are accepted, exactly as Redis 7 accepts them
// (networking.c processMultibulkBuffer and processInlineBuffer):
//
//   - multibulk, the form every client library sends:
//     "*<n>\r\n" then n times "$<len>\r\n<len bytes>\r\n";
//   - inline, the form typed into telnet: one line ending in "\n" (a "\r"
//     before it is dropped), split into words by spaces and tabs, with
//     "double quotes" (escapes \n \r \t \b \a \\ \" \xHH) and 'single
//     quotes' (escape \') as Redis's sdssplitargs does.
//
// Malformed input yields a *ProtocolError whose Msg is Redis's wording; the
// server replies "-ERR " + Msg and closes the connection. Limits bounds the
// argument count, the bulk length and the length of an unterminated line;
// its zero value means the Redis defaults. Limits.AuthRequired adds Redis
// 7's limits for a client that has not authenticated yet (at most 10
// arguments, bulks of at most 16 KB).
//
// # Lifetimes
//
// ParseCommand copies nothing. Every argument is a sub-slice of the buffer
// passed in, valid until the caller discards or reuses those bytes (for a
// gnet connection: until Discard). Arguments that must outlive the buffer,
// for example because they cross to a shard's goroutine, must be copied
// first. The argument slices have their capacity clipped, so appending to
// one never overwrites the buffer.
//
// Inline words with quotes or escapes are unescaped in place, inside the
// buffer; the bytes of a parsed inline request are therefore not the bytes
// that arrived, and must not be parsed again. Multibulk requests, and
// inline requests without quotes or backslashes, are never written to.
//
// # Replies
//
// Writer appends replies to a reusable byte slice. Its Proto field selects
// RESP2 (2, or the zero value) or RESP3 (3). Every RESP3 type has a RESP2
// form, chosen the way Redis chooses it, so command code writes each reply
// once for both dialects:
//
//	RESP3                      RESP2
//	_  null                    $-1 (Null) or *-1 (NullArray)
//	%n map of n pairs          *2n flat array of keys and values
//	~n set                     *n array
//	>n push                    *n array
//	#t / #f boolean            :1 / :0
//	,d double                  bulk string of the same text
//	(n big number              bulk string of the digits
//	=n verbatim "txt:..."      bulk string without the format prefix
//
// Error replies never contain CR or LF: Writer.Error turns them into
// spaces, so a message can never break the framing.
package codec
