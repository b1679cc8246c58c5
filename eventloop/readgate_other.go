//go:build !linux

package eventloop

import (
	"errors"

	"github.com/panjf2000/gnet/v2"
)

// readGate is the Linux read pause; elsewhere a connection's read-ahead is
// bounded by the query buffer limit alone.
type readGate struct{}

var errNoGate = errors.New("read gate: only on Linux")

func (readGate) pause(gnet.Conn) error          { return errNoGate }
func (readGate) resume(gnet.Conn) (bool, error) { return false, errNoGate }
func (readGate) edge(gnet.Conn) error           { return errNoGate }
