package eventloop

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/panjf2000/gnet/v2"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// Replies to a client that has shut down its sending side.
//
// A client may send its requests and end its side of the connection at
// once (`printf 'SET k v\r\n' | nc -N host port`, a shutdown(SHUT_WR)
// after the last request). The end of input arrives with the requests, so
// gnet reads both in one turn and closes the connection while the shard
// has yet to run them, and their replies had nowhere to go. redis-server
// answers such a client and then closes. So when the peer's end of input
// closes a connection with batches in flight, OnClose keeps a duplicate of
// the descriptor (gnet closes its own right after OnClose) and the loop
// writes the replies still to come into it, as they arrive and in order,
// closing it once the last batch in flight is answered, or after
// lingerMax, whichever is first.

// lingerMax bounds how long a connection closed by its peer is kept for
// replies in flight: a batch that never answers (a blocked command whose
// client left) must not hold the socket open for ever.
const lingerMax = 10 * time.Second

// linger keeps cn's socket for the replies of its batches in flight when
// gnet closes it on the peer's end of input (err); loop only, from
// OnClose, before gnet closes the descriptor.
func (s *Server) linger(cn *conn, c gnet.Conn, err error) {
	// closing without shut is a connection to be closed after the replies
	// in flight (a protocol error's among them): those go out too.
	if !errors.Is(err, io.EOF) || cn.shut || cn.client.Killed() || cn.inflight.Load() == 0 {
		return
	}
	fd, dupErr := unix.FcntlInt(uintptr(c.Fd()), unix.F_DUPFD_CLOEXEC, 0)
	if dupErr != nil {
		s.log.Warn("keeping a closed client's socket for its replies in flight", zap.Error(dupErr))
		return
	}
	cn.lingerFD = fd
	cn.lingerTimer = time.AfterFunc(lingerMax, func() {
		if err := cn.outbox.loop.Execute(context.Background(), lingerEnd{cn}); err != nil {
			// The engine has stopped: no loop writes to the socket any more.
			cn.endLinger()
		}
	})
}

// lingerWrite writes r's replies into the socket kept by linger and ends
// the linger after the last batch in flight; loop only.
func (cn *conn) lingerWrite(r *request) {
	n, err := writeFull(cn.lingerFD, r.unsent())
	if n > 0 {
		cn.srv.ks.CountNetOutput(n)
	}
	closeAfter := r.CloseAfter
	// The connection is gone: written only recycles r and counts it out.
	_ = r.written(cn.gc, net.ErrClosed)
	if err != nil || closeAfter || cn.inflight.Load() == 0 {
		cn.endLinger()
	}
}

// endLinger closes the socket kept by linger, if it still is; loop only
// (or once the loop has stopped).
func (cn *conn) endLinger() {
	if cn.lingerFD < 0 {
		return
	}
	cn.lingerTimer.Stop()
	_ = unix.Close(cn.lingerFD)
	cn.lingerFD = -1
}

// lingerEnd ends a linger on the connection's loop (lingerMax passed).
type lingerEnd struct{ cn *conn }

func (l lingerEnd) Run(context.Context) error {
	l.cn.endLinger()
	return nil
}
