package keyspace

import (
	"sync/atomic"
	"unsafe"

	"github.com/ruvio/ruvio/codec"
)

// Sink receives a batch whose replies are ready. The event loop implements
// it: Deliver writes b.Out.Buf to the connection and recycles b once the
// bytes are written. Deliver is called from the shard goroutine or from the
// shard's WAL sync goroutine, always in the order the shard ran the batches.
type Sink interface {
	Deliver(b *Batch)
}

// Batch is the unit of work handed from a connection's reactor to its
// shard: every complete command found in one read, with its own copy of the
// request bytes (the reactor's buffer is reused as soon as it returns).
type Batch struct {
	// Client is the connection the commands came from.
	Client *Client
	// Sink delivers the replies once they are ready.
	Sink Sink

	// Data holds the copied request bytes; Argv's slices point into it,
	// except those of bulks of codec.BigArgLen bytes or more, which the
	// connection's parser read into buffers of their own: such a buffer
	// belongs to the batch alone, nothing else refers to or writes it, and
	// the command it is an argument of may keep it (Ctx.OwnedArg).
	Data []byte
	// Argv is the arguments of every command of the batch, one after
	// the other (Ends splits them).
	Argv [][]byte
	// Ends[i] is the end index in Argv of command i.
	Ends []int
	// ProtoErr, when set, is a protocol error found after the commands of
	// this batch: the shard replies "-ERR "+ProtoErr and the connection is
	// closed once the reply is written.
	ProtoErr string

	// Out collects the replies, in order.
	Out codec.Writer
	// CloseAfter asks the sink to close the connection after writing Out.
	CloseAfter bool
	// ArgvMem is the argument bytes the batch added to its client's
	// argv-mem when it was handed to the shard; the shard takes them back
	// when it starts the batch.
	ArgvMem int64

	// next links batches waiting for the same durability point.
	next *Batch
	// deps says which records the replies depend on, for a group whose
	// log write fails (logfail.go); empty without persistence.
	deps []replyDep
	// depGen is the commit group (groupGen+1) of the last entry of deps
	// made by a command that appended records.
	depGen uint64
	// touchesData is set once a command of the batch read or wrote the
	// data: its replies wait for the replicas under synchronous
	// replication (syncrepl.go).
	touchesData bool
}

// Reset prepares a recycled batch for the next read of c.
func (b *Batch) Reset() {
	b.Client = nil
	b.Data = b.Data[:0]
	// The recycled batch must not pin the arguments it carried: a 512 MB
	// bulk would stay reachable from the pool until the slot is reused.
	clear(b.Argv)
	b.Argv = b.Argv[:0]
	b.Ends = b.Ends[:0]
	b.ProtoErr = ""
	b.Out.Buf = b.Out.Buf[:0]
	b.Out.Limit = 0
	b.CloseAfter = false
	b.ArgvMem = 0
	b.next = nil
	b.deps = b.deps[:0]
	b.depGen = 0
	b.touchesData = false
}

// Commands returns the number of commands in the batch.
func (b *Batch) Commands() int { return len(b.Ends) }

// Command returns the arguments of command i.
func (b *Batch) Command(i int) [][]byte {
	start := 0
	if i > 0 {
		start = b.Ends[i-1]
	}
	return b.Argv[start:b.Ends[i]]
}

// Counter is an atomic statistics counter.
type Counter = atomic.Int64

// OwnedArg reports whether arg, an argument of the command x runs, is a
// buffer the command may keep as a value instead of copying it: a bulk
// the batch carries in a buffer of its own (see Batch.Data), read there by
// the connection's parser. Arguments from anywhere else (a transaction's
// queue, a script, a re-run) are never owned.
func (x *Ctx) OwnedArg(arg []byte) bool {
	b := x.Batch
	if b == nil || len(arg) < codec.BigArgLen || len(arg) != cap(arg) || len(x.Args) == 0 || len(b.Argv) == 0 {
		return false
	}
	// x.Args must be a command of b, not arguments built elsewhere.
	if !within(unsafe.Pointer(unsafe.SliceData(x.Args)), unsafe.Pointer(unsafe.SliceData(b.Argv)), len(b.Argv), unsafe.Sizeof(arg)) {
		return false
	}
	p := unsafe.Pointer(unsafe.SliceData(arg))
	if len(b.Data) > 0 && within(p, unsafe.Pointer(unsafe.SliceData(b.Data)), len(b.Data), 1) {
		return false
	}
	for _, a := range x.Args {
		if unsafe.SliceData(a) == unsafe.SliceData(arg) && len(a) == len(arg) {
			return true
		}
	}
	return false
}

// within reports whether p points into the n elements of size bytes each
// starting at base.
func within(p, base unsafe.Pointer, n int, size uintptr) bool {
	return uintptr(p) >= uintptr(base) && uintptr(p) < uintptr(base)+uintptr(n)*size
}
