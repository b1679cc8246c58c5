package keyspace

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/cluster"
	"github.com/ruvio/ruvio/config"
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
