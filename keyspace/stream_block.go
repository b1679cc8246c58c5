package keyspace

// Blocking stream reads. XREAD and XREADGROUP with BLOCK park the client
// until one of their streams has something for them; until the shared
// blocking facility is in place the option is refused rather than faked.

// errStreamBlock is the reply to BLOCK while blocking reads are not
// available.
const errStreamBlock = "ERR BLOCK is not supported by this server yet: poll without BLOCK"

// blockStreamRead parks x's client on the streams of req for timeout ms
// (0: forever).
func (sh *Shard) blockStreamRead(x *Ctx, _ *streamReadReq, _ int64) {
	x.W.Error(errStreamBlock)
}

// streamReady signals that key in db may have something for blocked
// readers (an XADD, a group destroyed).
func (sh *Shard) streamReady(_ *DB, _ []byte) {}
