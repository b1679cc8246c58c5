package keyspace

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/persistence"
)

// TestNewServerNeedsCommandTable: a server built without a command table
// is refused rather than answering every command "unknown"; an empty
// table, as offline tools pass, is accepted.
func TestNewServerNeedsCommandTable(t *testing.T) {
	topo, err := cluster.NewTopology("127.0.0.1", 7000, 1, []string{strings.Repeat("a", 40)})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Config: config.Default(), Topology: topo}
	if _, err := NewServer(opts); err == nil || !strings.Contains(err.Error(), "no command table") {
		t.Fatalf("NewServer without a table: %v", err)
	}
	opts.Commands = BuildCommandTable()
	if _, err := NewServer(opts); err != nil {
		t.Fatalf("NewServer with an empty table: %v", err)
	}
}

// TestLoggedWritesInline: reactors run logged writes only when asked, when
// the reply does not wait for an fsync, and when the process has more
// than one P.
func TestLoggedWritesInline(t *testing.T) {
	for _, tc := range []struct {
		asked  bool
		policy persistence.FsyncPolicy
		procs  int
		want   bool
	}{
		{true, persistence.FsyncEverySec, 2, true},
		{true, persistence.FsyncNo, 8, true},
		{true, persistence.FsyncAlways, 2, false},   // the reply waits for the sync
		{true, persistence.FsyncEverySec, 1, false}, // the hand-off is a goroutine switch
		{false, persistence.FsyncEverySec, 2, false},
	} {
		if got := LoggedWritesInline(tc.asked, tc.policy, tc.procs); got != tc.want {
			t.Errorf("LoggedWritesInline(%v, %v, %d) = %v, want %v", tc.asked, tc.policy, tc.procs, got, tc.want)
		}
	}
}
