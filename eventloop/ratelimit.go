package eventloop

import (
	"sync"
	"time"
)

// protoErrLogBurst is how many protocol-error lines are logged a second;
// the rest are counted and the count goes with the next line logged.
const protoErrLogBurst = 10

// logLimiter lets at most burst log lines through per period and counts
// the ones it holds back. Safe for concurrent use.
type logLimiter struct {
	per   time.Duration
	burst int

	mu         sync.Mutex
	start      time.Time
	n          int
	suppressed int
}

// allow reports whether a line may be logged at now; when it may,
// suppressed is how many lines were held back since the last one logged.
func (l *logLimiter) allow(now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= l.per || now.Before(l.start) {
		l.start, l.n = now, 0
	}
	if l.n >= l.burst {
		l.suppressed++
		return false, 0
	}
	l.n++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}
