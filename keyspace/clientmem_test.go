package keyspace

import (
	"testing"
	"time"
)

// TestClientMemoryStableThroughSmallTraffic: a client's own small requests
// and replies do not move its tot-mem while they pass through, as in Redis
// (the command sits in the query buffer's room, the reply in the reply
// buffer that is always counted). Before, a CLIENT LIST reply queued for
// the control client (1,779 bytes) or its next command on its way to the
// shard (74 bytes) took the total over a maxmemory-clients set to the sum
// CLIENT LIST had just shown, and one client too many was evicted (Redis
// 7.0's "evict clients only until below limit" and "evict clients in right
// order").
func TestClientMemoryStableThroughSmallTraffic(t *testing.T) {
	c := NewClient(1, 0, "127.0.0.1:1", "127.0.0.1:2", nil, time.Now())
	c.NoteQueryBuffer(26, 0, 0, 0, 0)
	idle := c.Memory(0)
	if idle.Total != clientFixedMem+ProtoIOBufLen+outputBlockSize {
		t.Fatalf("idle tot-mem %d, want %d", idle.Total, clientFixedMem+ProtoIOBufLen+outputBlockSize)
	}

	// A command on its way to the shard: in the query buffer, within its room.
	c.AddArgvMem(74)
	if m := c.Memory(0); m.Total != idle.Total || m.Qbuf != 74 || m.ArgvMem != 0 {
		t.Errorf("with a batch in flight: %+v, idle %+v", m, idle)
	}
	c.AddArgvMem(-74)

	// A reply queued and not written yet, smaller than the reply buffer.
	c.Out.Queue(1779)
	if m := c.Memory(0); m.Total != idle.Total || m.Obl != 1779 || m.Omem != 0 {
		t.Errorf("with a small reply pending: %+v, idle %+v", m, idle)
	}
	c.Out.Written(1779, 0)

	// Beyond the reply buffer, the rest counts.
	c.Out.Queue(outputBlockSize + 5000)
	if m := c.Memory(0); m.Total != idle.Total+5000 || m.Obl != outputBlockSize || m.Oll != 1 || m.Omem != 5000 {
		t.Errorf("with a large reply pending: %+v, idle %+v", m, idle)
	}
	c.Out.Written(outputBlockSize+5000, 0)

	// A large batch in flight outgrows the query buffer's room and counts.
	c.AddArgvMem(1 << 20)
	if m := c.Memory(0); m.Total != idle.Total-ProtoIOBufLen+1<<20 {
		t.Errorf("with 1 MiB in flight: tot-mem %d, want %d", m.Total, idle.Total-ProtoIOBufLen+1<<20)
	}
	c.AddArgvMem(-(1 << 20))

	// The running command's arguments count as argv-mem (CLIENT LIST on itself).
	if m := c.Memory(26); m.Total != idle.Total+26 || m.Qbuf != 26 || m.ArgvMem != 26 {
		t.Errorf("running 26 bytes: %+v, idle %+v", m, idle)
	}
}
