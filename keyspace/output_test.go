package keyspace

import "testing"

func TestOutputMeter(t *testing.T) {
	var m OutputMeter
	if p := m.Queue(100); p != 100 {
		t.Fatalf("Queue: pending %d", p)
	}
	m.Queue(50)
	// 100 bytes reach the event loop; 30 of them stay in its outbound buffer.
	m.Written(100, 30)
	if p := m.Pending(); p != 80 {
		t.Fatalf("pending %d, want 50 queued + 30 buffered", p)
	}
	m.Unqueue(50)
	m.SetBuffered(0)
	if p := m.Pending(); p != 0 {
		t.Fatalf("pending %d after everything left", p)
	}
	if p := m.RecentPeak(); p != 150 {
		t.Fatalf("peak %d, want 150", p)
	}
	// The peak survives one roll, not two.
	m.Roll()
	if p := m.RecentPeak(); p != 150 {
		t.Fatalf("peak after one roll %d", p)
	}
	m.Roll()
	if p := m.RecentPeak(); p != 0 {
		t.Fatalf("peak after two rolls %d", p)
	}
}
