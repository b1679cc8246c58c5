package control

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// fsm applies the consensus log to the State and tells the node of every
// change.
type fsm struct {
	mu      sync.Mutex
	state   *State
	changed func(*State) // called with a copy after every change; must not block
}

// Apply runs one committed entry. Its result is nil or the error that
// refused the change.
func (f *fsm) Apply(l *raft.Log) any {
	c, err := DecodeCommand(l.Data)
	if err != nil {
		return err
	}
	f.mu.Lock()
	before := f.state.Epoch
	err = f.state.Apply(c)
	var snap *State
	if err == nil && f.state.Epoch != before {
		snap = f.state.Clone()
	}
	f.mu.Unlock()
	if snap != nil {
		f.changed(snap)
	}
	return err
}

// current is a copy of the state.
func (f *fsm) current() *State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state.Clone()
}

// Snapshot captures the state for the log's compaction.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	b, err := json.Marshal(f.current())
	if err != nil {
		return nil, fmt.Errorf("control: snapshot: %w", err)
	}
	return fsmSnapshot(b), nil
}

// Restore replaces the state with a snapshot's.
func (f *fsm) Restore(r io.ReadCloser) error {
	defer r.Close()
	var s State
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return fmt.Errorf("control: restoring a snapshot: %w", err)
	}
	s.normalize()
	f.mu.Lock()
	f.state = &s
	snap := s.Clone()
	f.mu.Unlock()
	f.changed(snap)
	return nil
}

type fsmSnapshot []byte

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		_ = sink.Cancel()
		return fmt.Errorf("control: writing a snapshot: %w", err)
	}
	return sink.Close()
}

func (s fsmSnapshot) Release() {}
