package scripting

import (
	"context"
	"sync"
	"time"
)

// Monitor tells other goroutines what an engine is running and lets them
// kill it. It is the only part of an Engine that is safe for concurrent
// use: a reactor or another connection's handler asks Running to decide
// whether to reply BUSY, and calls Kill for SCRIPT KILL / FUNCTION KILL,
// while the engine's own goroutine is inside a script.
//
// Killing works through the Lua state's context: Kill closes the channel
// the interpreter polls before each instruction, and the script then fails
// at every following instruction, so pcall cannot swallow the kill.
type Monitor struct {
	mu      sync.Mutex // guards the fields below
	running bool
	eval    bool
	name    string
	start   time.Time
	written bool
	killed  bool
	// done is closed by Kill. The owner goroutine replaces it between runs
	// (only after a kill), so the interpreter reads it without the lock.
	done chan struct{}

	// Owned by the engine's goroutine, never read elsewhere: the
	// interrupt hook, the instruction count since it last ran and the
	// start of the run as seen by the hook.
	interrupt func(elapsed time.Duration)
	ticks     int
	ownStart  time.Time
}

// InterruptEvery is how many Lua instructions run between two calls of
// Config.Interrupt, the count the reference server's hook uses.
const InterruptEvery = 100000

// RunInfo describes the script an engine is running.
type RunInfo struct {
	Eval    bool      // an EVAL script (false: a function)
	Name    string    // the script's SHA1 or the function's name
	Start   time.Time // when it started
	Written bool      // whether it has executed a write command
}

// Running reports the script in execution, if any.
func (m *Monitor) Running() (RunInfo, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running {
		return RunInfo{}, false
	}
	return RunInfo{Eval: m.eval, Name: m.name, Start: m.start, Written: m.written}, true
}

// Kill stops the running script with the rules of SCRIPT KILL (eval true)
// and FUNCTION KILL (eval false): nothing running is ErrNotBusy, a script
// that has written is ErrUnkillable, SCRIPT KILL on a function is
// ErrBusyFunction and FUNCTION KILL on an EVAL script ErrBusyScript. A nil
// return means the script will stop with "Script killed by user".
func (m *Monitor) Kill(eval bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case !m.running:
		return ErrNotBusy
	case m.written:
		return ErrUnkillable
	case eval && !m.eval:
		return ErrBusyFunction
	case !eval && m.eval:
		return ErrBusyScript
	}
	if !m.killed {
		m.killed = true
		close(m.done)
	}
	return nil
}

// begin marks the start of a run; it is called by the owner goroutine.
func (m *Monitor) begin(eval bool, name string) {
	m.mu.Lock()
	if m.done == nil || m.killed {
		m.done = make(chan struct{})
	}
	m.running, m.eval, m.name, m.start = true, eval, name, time.Now()
	m.written, m.killed = false, false
	m.ownStart, m.ticks = m.start, 0
	m.mu.Unlock()
}

// end marks the end of a run and reports whether it was killed.
func (m *Monitor) end() (killed bool) {
	m.mu.Lock()
	m.running = false
	killed = m.killed
	m.mu.Unlock()
	return killed
}

func (m *Monitor) markWritten() {
	m.mu.Lock()
	m.written = true
	m.mu.Unlock()
}

func (m *Monitor) wasKilled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.killed
}

// errKilled is the context error the interpreter raises after a kill.
type killedError struct{}

func (killedError) Error() string { return "Script killed by user with SCRIPT KILL..." }

// killContext is the context.Context installed in the Lua state: Done is
// the monitor's channel, with no allocation per run.
type killContext struct{ m *Monitor }

func (c killContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done is called by the interpreter before every instruction, on the
// engine's goroutine: it doubles as the instruction-count hook.
func (c killContext) Done() <-chan struct{} {
	m := c.m
	if m.interrupt != nil {
		m.ticks++
		if m.ticks >= InterruptEvery {
			m.ticks = 0
			m.interrupt(time.Since(m.ownStart))
		}
	}
	return m.done
}
func (c killContext) Value(any) any { return nil }
func (c killContext) Err() error {
	select {
	case <-c.m.done:
		return killedError{}
	default:
		return nil
	}
}

var _ context.Context = killContext{}
