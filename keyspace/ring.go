package keyspace

import (
	"runtime"
	"sync/atomic"
)

// ring is a bounded lock-free multi-producer single-consumer queue of
// batches (Vyukov's bounded queue: each cell carries a sequence number that
// tells producers and the consumer whose turn it is). Push never blocks: a
// full ring returns false and the caller applies back-pressure.
type ring struct {
	mask  uint64
	cells []ringCell
	_     [56]byte
	head  atomic.Uint64 // next slot to claim for producers
	_     [56]byte
	tail  uint64 // next slot to read; consumer only

	// sleeping is 1 while the consumer is parked or about to park; a
	// producer that sees it sends on wake.
	sleeping atomic.Int32
	wake     chan struct{}
}

type ringCell struct {
	seq   atomic.Uint64
	batch *Batch
}

// NewRing returns an empty ring of at least capacity cells (rounded up to
// a power of two).
func NewRing(capacity int) *ring {
	n := uint64(1)
	for n < uint64(capacity) {
		n <<= 1
	}
	r := &ring{mask: n - 1, cells: make([]ringCell, n), wake: make(chan struct{}, 1)}
	for i := range r.cells {
		r.cells[i].seq.Store(uint64(i))
	}
	return r
}

// Push enqueues b; false means the ring is full.
func (r *ring) Push(b *Batch) bool {
	for {
		pos := r.head.Load()
		cell := &r.cells[pos&r.mask]
		seq := cell.seq.Load()
		switch {
		case seq == pos:
			if r.head.CompareAndSwap(pos, pos+1) {
				cell.batch = b
				cell.seq.Store(pos + 1)
				if r.sleeping.Load() == 1 {
					r.Signal()
				}
				return true
			}
		case seq < pos:
			return false // full
		default:
			runtime.Gosched()
		}
	}
}

// Signal wakes the consumer if it is parked.
func (r *ring) Signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Pop dequeues one batch or returns nil when the ring is empty. Consumer only.
func (r *ring) Pop() *Batch {
	cell := &r.cells[r.tail&r.mask]
	if cell.seq.Load() != r.tail+1 {
		return nil
	}
	b := cell.batch
	cell.batch = nil
	cell.seq.Store(r.tail + r.mask + 1)
	r.tail++
	return b
}

// Empty reports whether nothing is ready for the consumer. Consumer only.
func (r *ring) Empty() bool {
	return r.cells[r.tail&r.mask].seq.Load() != r.tail+1
}
