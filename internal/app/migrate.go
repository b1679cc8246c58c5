package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/ruvio/ruvio/cluster/control"
	"github.com/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/persistence"
	"github.com/ruvio/ruvio/replication"
)

// This file drives slot migrations on the members: the receiving primary
// imports the range and asks the control plane to commit; the sending
// primary gives up a freeze that lasts too long. The keyspace's side is
// keyspace/migrate.go, the state machine's cluster/control/migrate.go.

// Migration tuning.
const (
	// importMaxLag is how far behind the sender's log an import may be
	// when it asks for the freeze: the range's writes wait while those
	// records arrive.
	importMaxLag = 512
	// importFreezeWait bounds the wait for the records up to the freeze.
	importFreezeWait = 5 * time.Second
	// freezeLimit is how long a sender holds a range's writes before it
	// aborts the migration itself (a receiver that died after the freeze).
	freezeLimit = 10 * time.Second
	// importBatch is how many keys of the copy go to the keyspace at once.
	importBatch = 512
)

// appliedEpochFile holds the highest topology epoch this member applied:
// after a restart the control plane replays older states first, and keys
// are deleted for a slot the member does not keep only by states at least
// that new.
const appliedEpochFile = "cluster-applied-epoch"

// storeAppliedEpoch records e durably when it is newer than what is kept.
func (m *member) storeAppliedEpoch(e uint64) {
	if e <= m.appliedEpoch {
		return
	}
	m.appliedEpoch = e
	if err := writeEpochFile(m.cfg.Persistence.Dir, appliedEpochFile, e); err != nil {
		m.log.Error("storing the applied topology epoch", zap.Error(err))
	}
}

// migrations turns the state's migrations into what the keyspace needs
// and starts or stops this member's imports. mu held.
func (m *member) migrations(st *control.State) {
	var out []keyspace.Outgoing
	live := map[uint64]bool{}
	for _, mg := range st.Migrations {
		live[mg.ID] = true
		if st.Groups[mg.From].Primary == m.self.Name {
			out = append(out, keyspace.Outgoing{ID: mg.ID, Shard: mg.FromShard, Slots: mg.Slots})
		}
		if st.Groups[mg.To].Primary == m.self.Name {
			if _, running := m.imports[mg.ID]; !running {
				from, ok := st.Member(st.Groups[mg.From].Primary)
				if ok {
					ctx, cancel := context.WithCancel(context.Background())
					m.imports[mg.ID] = cancel
					go m.runImport(ctx, mg, from)
				}
			}
		} else if cancel, running := m.imports[mg.ID]; running {
			cancel()
			delete(m.imports, mg.ID)
		}
	}
	for id, cancel := range m.imports {
		if !live[id] {
			cancel()
			delete(m.imports, id)
		}
	}
	m.ks.SetMigrations(out)
}

// importSink hands an import's keys and records to the receiving shard.
type importSink struct {
	ks    *keyspace.Server
	shard int
	id    uint64
	buf   []keyspace.ImportEntry
	keys  int
}

func (s *importSink) Entry(db uint16, kind uint8, key, value []byte, deadline int64) error {
	s.buf = append(s.buf, keyspace.ImportEntry{DB: db, Kind: kind, Key: append([]byte(nil), key...), Value: append([]byte(nil), value...), Deadline: deadline})
	if len(s.buf) >= importBatch {
		return s.flush()
	}
	return nil
}

func (s *importSink) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	err := s.ks.ImportEntries(s.shard, s.id, s.buf)
	s.keys += len(s.buf)
	s.buf = s.buf[:0]
	return err
}

func (s *importSink) EndEntries() error { return s.flush() }

func (s *importSink) Records(recs []byte) (uint64, error) {
	return s.ks.ImportRecords(s.shard, s.id, recs)
}

// runImport receives migration mg from the sending primary from and
// commits it, or aborts it on any failure. A migration that ends
// meanwhile (ctx) is left alone.
func (m *member) runImport(ctx context.Context, mg control.Migration, from control.Member) {
	log := m.log.With(zap.Uint64("migration", mg.ID), zap.Uint16("start", mg.Slots.Start), zap.Uint16("end", mg.Slots.End))
	log.Info("import started", zap.String("from", from.Name), zap.Int("from_shard", mg.FromShard), zap.Int("to_shard", mg.ToShard))
	began := time.Now()
	rc := m.cfg.Replication
	sink := &importSink{ks: m.ks, shard: mg.ToShard, id: mg.ID}
	res, err := replication.Import(ctx, replication.ImportOptions{
		Addr:       net.JoinHostPort(from.Host, strconv.Itoa(from.Port+mg.FromShard)),
		User:       rc.PrimaryUser,
		Pass:       rc.PrimaryAuth,
		ID:         mg.ID,
		FS:         persistence.NewOSFS(),
		Dir:        filepath.Join(m.cfg.Persistence.Dir, fmt.Sprintf("import-%d", mg.ID)),
		Shard:      mg.FromShard,
		Log:        log,
		MaxLag:     importMaxLag,
		FreezeWait: importFreezeWait,
		Timeout:    max(time.Duration(m.cfg.Cluster.NodeTimeoutMs)*time.Millisecond, 2*time.Second),
	}, sink)
	if ctx.Err() != nil {
		log.Info("import stopped: the migration ended elsewhere")
		return
	}
	if err == nil {
		err = m.awaitDurable(ctx, mg.ToShard)
	}
	if err == nil {
		err = m.node.EndMigration(mg.ID, true)
		if err == nil {
			m.servePromptly(mg.ID)
			now := time.Now()
			log.Info("migration committed", zap.Int("snapshot_entries_read", sink.keys), zap.Duration("total", now.Sub(began)),
				zap.Duration("write_pause_to_commit", now.Sub(res.FrozenAt)), zap.Duration("catch_up_after_freeze", res.CaughtUpAt.Sub(res.FrozenAt)))
			return
		}
	}
	log.Warn("import failed: aborting the migration", zap.Error(err))
	for range 5 {
		aerr := m.node.EndMigration(mg.ID, false)
		if aerr == nil || errors.Is(aerr, control.ErrNoMigration) || ctx.Err() != nil {
			return
		}
		log.Warn("aborting the migration", zap.Error(aerr))
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// awaitDurable waits until what shard's log holds now is durable, and,
// under synchronous replication, on as many replicas as it asks for: the
// commit must not make the receiver the owner of records it, or the
// replica that would replace it, could lose.
func (m *member) awaitDurable(ctx context.Context, shard int) error {
	want := m.ks.LastSequence(shard)
	deadline := time.Now().Add(5 * time.Second)
	for {
		acked, need := m.ks.ReplicatedTo(shard, want)
		if m.ks.DurableSequence(shard) >= want && acked >= need {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the receiving shard's log did not make sequence %d durable in time (replicas acknowledged: %d of %d)", want, acked, need)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// freezeWatch aborts the migration of a shard frozen past freezeLimit: the
// receiver did not commit in time (it died, or the control plane cannot
// be reached; then the abort fails too and the range stays held, which
// is what keeps a commit the sender has not heard of safe).
func (m *member) freezeWatch(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if m.node == nil {
			continue
		}
		for i := range m.ks.Shards() {
			id, held := m.ks.Frozen(i)
			if id == 0 || held < freezeLimit {
				continue
			}
			err := m.node.EndMigration(id, false)
			switch {
			case err == nil:
				m.log.Warn("migration aborted by its sender: the range's writes were held too long", zap.Uint64("migration", id), zap.Duration("held", held))
			case errors.Is(err, control.ErrNoMigration):
			default:
				m.log.Warn("aborting a migration held too long", zap.Uint64("migration", id), zap.Error(err))
			}
		}
	}
}

// servePromptly makes the receiver serve a range as soon as the leader
// has committed its migration, before this member's own log applies the
// commit (a follower learns it with the leader's next message): clients
// that the sender redirects here find it served rather than redirected
// back. The sender holds every command on the range until it applies the
// commit itself, so no two members serve it at once.
func (m *member) servePromptly(id uint64) {
	m.mu.Lock()
	m.committed[id] = true
	failed := m.lastFailed
	m.mu.Unlock()
	m.apply(m.node.State(), failed)
}

// withOwnCommits is st with the migrations this member committed applied
// as committed, when st does not have them yet; those it has ended are
// forgotten. mu held.
func (m *member) withOwnCommits(st *control.State) *control.State {
	if len(m.committed) == 0 {
		return st
	}
	out := st
	for id := range m.committed {
		if !slices.ContainsFunc(st.Migrations, func(x control.Migration) bool { return x.ID == id }) {
			delete(m.committed, id) // ended in the log too
			continue
		}
		if out == st {
			out = st.Clone()
		}
		if err := out.Apply(control.Command{Op: control.OpMigrateCommit, Migration: &control.Migration{ID: id}}); err != nil {
			m.log.Warn("applying a committed migration ahead of the log", zap.Uint64("migration", id), zap.Error(err))
		}
	}
	return out
}
