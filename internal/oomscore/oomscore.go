// Package oomscore sets the process's Linux OOM-killer score adjustment, as Redis's
// oom-score-adj and oom-score-adj-values do: a primary and a replica can be given different
// scores, so that under memory pressure the kernel kills a replica before its primary.
package oomscore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Modes of oom-score-adj.
const (
	ModeNo       = "no"       // leave the score alone (restore it if this process changed it)
	ModeYes      = "yes"      // the same as relative
	ModeRelative = "relative" // the score at enabling plus the class's value
	ModeAbsolute = "absolute" // the class's value
)

// limit bounds a score, as the kernel does.
const limit = 1000

// Adjuster writes the score file. Its zero value is not usable; use [New].
type Adjuster struct {
	mu   sync.Mutex
	path string
	// base is the score read when the adjustment was turned on, restored when it is turned
	// off; haveBase says whether it is held.
	base     int
	haveBase bool
}

// New returns an adjuster of this process's score (/proc/self/oom_score_adj).
func New() *Adjuster { return NewAt("/proc/self/oom_score_adj") }

// NewAt returns an adjuster writing the score file at path (tests use a plain file).
func NewAt(path string) *Adjuster { return &Adjuster{path: path} }

// Apply sets the score for mode and the value of the process's class (primary or replica).
// Turning the adjustment on reads the current score as the base of relative mode; turning it
// off writes that base back. A score out of [-1000, 1000] is clamped, as Redis does.
func (a *Adjuster) Apply(mode string, value int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if mode == ModeNo {
		if !a.haveBase {
			return nil
		}
		if err := a.write(a.base); err != nil {
			return err
		}
		a.haveBase = false
		return nil
	}
	base := a.base
	if !a.haveBase {
		v, err := a.read()
		if err != nil {
			return err
		}
		base = v
	}
	score := value
	if mode != ModeAbsolute {
		score += base
	}
	score = min(max(score, -limit), limit)
	if err := a.write(score); err != nil {
		return err
	}
	a.base, a.haveBase = base, true
	return nil
}

func (a *Adjuster) read() (int, error) {
	b, err := os.ReadFile(a.path)
	if err != nil {
		return 0, fmt.Errorf("oomscore: read %s: %w", a.path, err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("oomscore: %s holds %q: %w", a.path, b, err)
	}
	return v, nil
}

func (a *Adjuster) write(score int) error {
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("oomscore: open %s: %w", a.path, err)
	}
	_, err = f.WriteString(strconv.Itoa(score) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("oomscore: write %d to %s: %w", score, a.path, err)
	}
	return nil
}
