package history

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Kind names what an operation did.
type Kind string

// The operation kinds the checkers understand. Others may be recorded and
// are ignored by every checker.
const (
	KindSet          Kind = "set"           // SET Key Value -> OK
	KindGet          Kind = "get"           // GET Key -> Output (Nil when missing)
	KindIncr         Kind = "incr"          // INCR Key -> Output (the new value)
	KindLease        Kind = "lease"         // LEASE Key TTL -> Output token (Nil when held)
	KindRelease      Kind = "release"       // RELEASE Key Value(token) -> Output "1" or "0"
	KindIdemBegin    Kind = "idem-begin"    // IDEM Key BEGIN Value(fingerprint) Owner TTL -> Output state, Result
	KindIdemComplete Kind = "idem-complete" // IDEM Key COMPLETE Value(fingerprint) Owner Result -> Output "1" or "0"
	KindXAdd         Kind = "xadd"          // XADD Key * v Value -> Output id
)

// Outcome is how an operation ended.
type Outcome int

// The outcomes of an operation; see the package comment.
const (
	OK Outcome = iota
	Failed
	Unknown
)

// String returns "ok", "failed" or "unknown".
func (o Outcome) String() string {
	switch o {
	case OK:
		return "ok"
	case Failed:
		return "failed"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// MarshalText writes the outcome as its String.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (o *Outcome) UnmarshalText(b []byte) error {
	switch string(b) {
	case "ok":
		*o = OK
	case "failed":
		*o = Failed
	case "unknown":
		*o = Unknown
	default:
		return fmt.Errorf("history: unknown outcome %q", b)
	}
	return nil
}

// Op is one operation of one client. Call and Return are offsets on the
// recorder's monotonic clock; Return of an Unknown operation is when the
// client gave up, not when it took effect.
type Op struct {
	Client int    `json:"client"`
	Kind   Kind   `json:"kind"`
	Key    string `json:"key"`
	// Value is the input: the SET value, the RELEASE token, the IDEM
	// fingerprint, the XADD field value.
	Value string `json:"value,omitempty"`
	// Owner is the IDEM owner token.
	Owner string `json:"owner,omitempty"`
	// Result is the IDEM result: COMPLETE's input, or the saved result a
	// BEGIN replied "completed" with.
	Result string `json:"result,omitempty"`
	// TTL is LEASE's hold and IDEM BEGIN's retention.
	TTL time.Duration `json:"ttl,omitempty"`
	// Output is the reply of an OK operation; Nil marks a null reply.
	Output  string        `json:"output,omitempty"`
	Nil     bool          `json:"nil,omitempty"`
	Call    time.Duration `json:"call"`
	Return  time.Duration `json:"return"`
	Outcome Outcome       `json:"outcome"`
	// Err is the error text of a Failed or Unknown operation.
	Err string `json:"err,omitempty"`
}

// String describes the operation for reports.
func (op Op) String() string {
	in := op.Value
	if op.Kind == KindIdemComplete {
		in = op.Owner + " " + op.Result
	}
	out := op.Output
	if op.Nil {
		out = "(nil)"
	}
	if op.Result != "" && op.Kind == KindIdemBegin {
		out += " " + op.Result
	}
	if op.Outcome != OK {
		out = op.Outcome.String() + ": " + op.Err
	}
	return fmt.Sprintf("c%d %s %s %s -> %s [%v, %v]", op.Client, op.Kind, op.Key, in, out,
		op.Call.Round(time.Microsecond), op.Return.Round(time.Microsecond))
}

// Recorder collects operations from concurrent clients. Its methods are
// safe for concurrent use.
type Recorder struct {
	start time.Time // holds the monotonic reading every offset is taken from

	mu  sync.Mutex // mu guards ops
	ops []Op
}

// NewRecorder returns an empty recorder whose clock starts now.
func NewRecorder() *Recorder {
	return &Recorder{start: time.Now()}
}

// Now is the recorder's clock: the time since NewRecorder, from the
// monotonic clock (wall-clock steps do not move it).
func (r *Recorder) Now() time.Duration { return time.Since(r.start) }

// Invoke records the start of op (its Call is set to Now) and returns a
// handle to finish it with Complete. An operation never completed is left
// Unknown with its Return at the time Ops is called.
func (r *Recorder) Invoke(op Op) int {
	op.Outcome = Unknown
	op.Return = -1
	r.mu.Lock()
	defer r.mu.Unlock()
	op.Call = r.Now()
	r.ops = append(r.ops, op)
	return len(r.ops) - 1
}

// Complete records the end of the operation Invoke returned h for: its
// outcome, and for OK the reply (output, null) and IDEM's result.
func (r *Recorder) Complete(h int, outcome Outcome, output string, null bool, result string, err error) {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &r.ops[h]
	op.Return = now
	op.Outcome = outcome
	op.Output = output
	op.Nil = null
	if result != "" {
		op.Result = result
	}
	if err != nil {
		op.Err = err.Error()
	}
}

// Ops returns a copy of the history so far, in invocation order.
// Operations still in flight are Unknown and end now.
func (r *Recorder) Ops() []Op {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := slices.Clone(r.ops)
	for i := range ops {
		if ops[i].Return < 0 {
			ops[i].Return = now
			ops[i].Err = "still in flight at the end of the history"
		}
	}
	return ops
}

// WriteJSON writes ops as JSON lines, one operation a line.
func WriteJSON(w io.Writer, ops []Op) error {
	enc := json.NewEncoder(w)
	for _, op := range ops {
		if err := enc.Encode(op); err != nil {
			return fmt.Errorf("history: write: %w", err)
		}
	}
	return nil
}

// ReadJSON reads what WriteJSON wrote.
func ReadJSON(r io.Reader) ([]Op, error) {
	var ops []Op
	dec := json.NewDecoder(r)
	for {
		var op Op
		err := dec.Decode(&op)
		if err == io.EOF {
			return ops, nil
		}
		if err != nil {
			return nil, fmt.Errorf("history: read op %d: %w", len(ops)+1, err)
		}
		ops = append(ops, op)
	}
}

// Counts tallies operations by kind and outcome, for reports.
type Counts map[Kind][3]int

// Count returns the tally of ops.
func Count(ops []Op) Counts {
	c := Counts{}
	for _, op := range ops {
		n := c[op.Kind]
		n[op.Outcome]++
		c[op.Kind] = n
	}
	return c
}

// Result is what one checker found.
type Result struct {
	Name string
	// Checked is how many keys (or grants, entries) the checker could
	// decide on; Skipped how many it could not (no final read).
	Checked, Skipped int
	// Violations describe each history the server could not have
	// produced. Lost counts those that are acknowledged writes missing
	// from the final state (also listed in Violations).
	Violations []string
	Lost       int
	// Inconclusive says why the checker could not decide, if it could not.
	Inconclusive string
}

// OK reports whether the checker found no violation.
func (r Result) OK() bool { return len(r.Violations) == 0 }

// String is a one-line summary.
func (r Result) String() string {
	s := fmt.Sprintf("%s: ", r.Name)
	switch {
	case !r.OK():
		s += fmt.Sprintf("FAIL, %d violation(s)", len(r.Violations))
	case r.Inconclusive != "":
		s += "inconclusive (" + r.Inconclusive + ")"
	default:
		s += "ok"
	}
	s += fmt.Sprintf(", %d checked", r.Checked)
	if r.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", r.Skipped)
	}
	if r.Lost > 0 {
		s += fmt.Sprintf(", %d acknowledged write(s) lost", r.Lost)
	}
	return s
}

func (r *Result) violate(format string, args ...any) {
	r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
}
