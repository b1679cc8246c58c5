package eventloop

import (
	"testing"
	"time"
)

func TestLogLimiter(t *testing.T) {
	l := logLimiter{per: time.Second, burst: 3}
	t0 := time.Unix(1000, 0)
	for i := 0; i < 3; i++ {
		if ok, sup := l.allow(t0.Add(time.Duration(i) * time.Millisecond)); !ok || sup != 0 {
			t.Fatalf("line %d: ok %v suppressed %d", i, ok, sup)
		}
	}
	for i := 0; i < 5; i++ {
		if ok, _ := l.allow(t0.Add(500 * time.Millisecond)); ok {
			t.Fatalf("line %d over the burst was let through", i+3)
		}
	}
	// The next period lets lines through again, the first one carrying
	// the count of those held back.
	ok, sup := l.allow(t0.Add(time.Second))
	if !ok || sup != 5 {
		t.Fatalf("next period: ok %v suppressed %d, want true 5", ok, sup)
	}
	if ok, sup := l.allow(t0.Add(time.Second + time.Millisecond)); !ok || sup != 0 {
		t.Fatalf("second line of the period: ok %v suppressed %d", ok, sup)
	}
	// A clock that steps back starts a new period rather than blocking.
	if ok, _ := l.allow(t0); !ok {
		t.Fatal("after the clock stepped back")
	}
}
