package commands

import (
	"github.com/ruvio/ruvio/keyspace"

	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRingFIFOAndFull: batches come out in order, and a full ring refuses
// a push instead of blocking or growing.
func TestRingFIFOAndFull(t *testing.T) {
	r := keyspace.NewRing(8)
	bs := make([]*keyspace.Batch, 9)
	for i := range bs {
		bs[i] = &keyspace.Batch{}
	}
	for i := 0; i < 8; i++ {
		if !r.Push(bs[i]) {
			t.Fatalf("push %d refused before the ring was full", i)
		}
	}
	if r.Push(bs[8]) {
		t.Fatal("push into a full ring succeeded")
	}
	for i := 0; i < 8; i++ {
		if got := r.Pop(); got != bs[i] {
			t.Fatalf("pop %d: got batch %p, want %p", i, got, bs[i])
		}
	}
	if r.Pop() != nil || !r.Empty() {
		t.Fatal("ring not empty after popping everything")
	}
	if !r.Push(bs[8]) {
		t.Fatal("push refused after the ring drained")
	}
}

// TestRingConcurrentProducers: every batch pushed by several producers is
// popped exactly once, and each producer's batches keep their order.
func TestRingConcurrentProducers(t *testing.T) {
	const producers, perProducer = 4, 5000
	r := keyspace.NewRing(64)
	type tagged struct{ producer, seq int }
	tags := map[*keyspace.Batch]tagged{}
	batches := make([][]*keyspace.Batch, producers)
	for p := range batches {
		for i := 0; i < perProducer; i++ {
			b := &keyspace.Batch{}
			batches[p] = append(batches[p], b)
			tags[b] = tagged{p, i}
		}
	}
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for _, b := range batches[p] {
				for !r.Push(b) {
					time.Sleep(time.Microsecond)
				}
			}
		}(p)
	}
	next := make([]int, producers)
	for got := 0; got < producers*perProducer; {
		b := r.Pop()
		if b == nil {
			time.Sleep(time.Microsecond)
			continue
		}
		tg := tags[b]
		if tg.seq != next[tg.producer] {
			t.Fatalf("producer %d: got batch %d, want %d", tg.producer, tg.seq, next[tg.producer])
		}
		next[tg.producer]++
		got++
	}
	wg.Wait()
}

type countingWaker struct{ n atomic.Int32 }

func (w *countingWaker) Wake() { w.n.Add(1) }

// TestShardWakesWaitersAfterDrain: a producer refused by a full ring is
// woken once the shard has drained it (the back-pressure path).
func TestShardWakesWaitersAfterDrain(t *testing.T) {
	sh := newTestShard(t)
	sink := &discardSink{}
	for i := 0; ; i++ {
		b := &keyspace.Batch{Client: sh.Ctx.C, Sink: sink}
		if !sh.Submit(b) {
			break
		}
		if i > keyspace.RingCapacity {
			t.Fatal("ring accepted more than its capacity")
		}
	}
	w := &countingWaker{}
	sh.WaitRoom(w)
	sh.Acquire()
	for sh.Drain() > 0 {
	}
	sh.Release()
	if w.n.Load() != 1 {
		t.Fatalf("waiter woken %d times, want 1", w.n.Load())
	}
	if sink.n != keyspace.RingCapacity {
		t.Fatalf("%d batches delivered, want %d", sink.n, keyspace.RingCapacity)
	}
}

type discardSink struct{ n int }

func (s *discardSink) Deliver(*keyspace.Batch) { s.n++ }
