package scripting

import (
	"context"
	"runtime"
	"runtime/metrics"
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
	oom     bool // the memory check stopped the run
	stopped bool // done is closed
	// done is closed by Kill and by the memory check. The owner goroutine
	// replaces it between runs (only after it was closed), so the
	// interpreter reads it without the lock.
	done chan struct{}

	// Owned by the engine's goroutine, never read elsewhere: the
	// interrupt hook, the instruction count since it last ran and the
	// start of the run as seen by the hook.
	interrupt func(elapsed time.Duration)
	ticks     int
	ownStart  time.Time
	mem       memCheck
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
	m.killed = true
	m.stop()
	return nil
}

// stop closes done once; m.mu is held.
func (m *Monitor) stop() {
	if !m.stopped {
		m.stopped = true
		close(m.done)
	}
}

// Abort stops the running script even when it has written, for SHUTDOWN
// NOSAVE: the process is going away without keeping its effects. It
// reports whether a script was running.
func (m *Monitor) Abort() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.running {
		return false
	}
	m.killed = true
	m.stop()
	return true
}

// begin marks the start of a run; it is called by the owner goroutine.
// memLimit is how many bytes the run may add to the heap, 0 for no limit.
func (m *Monitor) begin(eval bool, name string, memLimit int64) {
	m.mu.Lock()
	if m.done == nil || m.stopped {
		m.done = make(chan struct{})
	}
	m.running, m.eval, m.name, m.start = true, eval, name, time.Now()
	m.written, m.killed, m.oom, m.stopped = false, false, false, false
	m.ownStart, m.ticks = m.start, 0
	m.mu.Unlock()
	m.mem.begin(memLimit)
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

// stopReason is the error text of a run that Kill or the memory check
// stopped, "" otherwise.
func (m *Monitor) stopReason() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.oom: // set only when it came first
		return msgScriptOOM
	case m.killed:
		return msgKilled
	}
	return ""
}

// outOfMemory stops the run for having exceeded its memory limit, unless
// a kill stopped it first.
func (m *Monitor) outOfMemory() {
	m.mu.Lock()
	if !m.stopped {
		m.oom = true
		m.stop()
	}
	m.mu.Unlock()
}

const msgKilled = "Script killed by user with SCRIPT KILL..."

// msgScriptOOM is the error of a run stopped by the memory check.
const msgScriptOOM = "OOM Lua script exceeded the memory limit of scripts (ruvio-lua-memory-limit, at most maxmemory)"

// stoppedError is the context error the interpreter raises after a kill
// or the memory check stopped the run.
type stoppedError struct{ m *Monitor }

func (e stoppedError) Error() string { return e.m.stopReason() }

// The memory check.
//
// gopher-lua allocates from the Go heap and has no allocator hook, so
// what a run allocates is measured on the heap itself, every
// MemoryCheckEvery instructions (inside coroutines too): when the heap's
// objects (live or not yet swept) exceed the heap at the start of the run
// plus the limit, the heap is collected and its live bytes measured; past
// that same mark the run stops with msgScriptOOM, which pcall cannot
// catch. Garbage, however much, never stops a run: only what is still
// reachable after a collection counts. After a collection that found the
// run within its limit, the next one waits until the heap has grown by an
// eighth of the limit, so a run close to its limit does not collect on
// every check. string.rep, which can ask for hundreds of megabytes in one
// call, asks the check before it allocates (wouldExceed). The figure is
// the process's heap: what other shards add meanwhile counts too, and the
// mark is the heap at the start of the run, garbage included, plus the
// limit, so a run may hold, on top of the limit, as much as the heap held
// in garbage when it started.

// MemoryCheckEvery is how many Lua instructions run between two looks at
// the heap, when a memory limit is set.
const MemoryCheckEvery = 10000

// memCheck is the memory check's state, owned by the engine's goroutine.
type memCheck struct {
	limit   uint64 // 0: no check
	base    uint64 // heap object bytes when the run started
	trigger uint64 // object bytes past which the heap is collected
	cycles  uint64 // collections seen so far
	ticks   int
	samples []metrics.Sample
}

func (c *memCheck) begin(limit int64) {
	c.ticks = 0
	if limit <= 0 {
		c.limit = 0
		return
	}
	if c.samples == nil {
		c.samples = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"}}
	}
	c.limit = uint64(limit)
	c.cycles, _, c.base = c.read()
	c.trigger = c.base + c.limit
}

// read returns the collection count, the live heap after the last
// collection and the bytes of heap objects now.
func (c *memCheck) read() (cycles, live, objects uint64) {
	metrics.Read(c.samples)
	v := func(i int) uint64 {
		if c.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return c.samples[i].Value.Uint64()
	}
	return v(0), v(1), v(2)
}

// wouldExceed reports whether adding size bytes to the heap would take
// the run past its limit, collecting the heap first when only its garbage
// is in the way.
func (c *memCheck) wouldExceed(size uint64) bool {
	if c.limit == 0 {
		return false
	}
	mark := c.base + c.limit
	if _, _, objects := c.read(); objects+size <= mark {
		return false
	}
	runtime.GC()
	var live uint64
	c.cycles, live, _ = c.read()
	return live+size > mark
}

// tick counts an instruction and, every MemoryCheckEvery of them, reports
// whether the run is over its limit.
func (c *memCheck) tick() bool {
	if c.limit == 0 {
		return false
	}
	if c.ticks++; c.ticks < MemoryCheckEvery {
		return false
	}
	c.ticks = 0
	mark := c.base + c.limit
	cycles, live, objects := c.read()
	if cycles != c.cycles {
		// A collection ended since the last look: its live figure is
		// fresh.
		c.cycles = cycles
		if live > mark {
			return true
		}
	}
	if objects <= c.trigger {
		return false
	}
	runtime.GC()
	c.cycles, live, _ = c.read()
	if live > mark {
		return true
	}
	c.trigger = max(mark, live+c.limit/8)
	return false
}

// killContext is the context.Context installed in the Lua state: Done is
// the monitor's channel, with no allocation per run.
type killContext struct{ m *Monitor }

func (c killContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done is called by the interpreter before every instruction, on the
// engine's goroutine: it doubles as the instruction-count hook, for the
// interrupt and the memory check.
func (c killContext) Done() <-chan struct{} {
	m := c.m
	if m.mem.tick() {
		m.outOfMemory()
	}
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
		return stoppedError(c)
	default:
		return nil
	}
}

var _ context.Context = killContext{}
