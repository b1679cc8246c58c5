package app

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// A start refused because the volume is full says so, whatever file the
// error came from.
func TestExplainStartErrorNoSpace(t *testing.T) {
	err := fmt.Errorf("keyspace: shard 0: replication id: write d/shard-000-replid: %w", syscall.ENOSPC)
	got := explainStartError(err, "/data")
	if !errors.Is(got, syscall.ENOSPC) || !strings.Contains(got.Error(), "the volume of the data directory /data is full") {
		t.Fatalf("got %v", got)
	}
	other := errors.New("something else")
	if explainStartError(other, "/data") != other {
		t.Fatal("an unrelated error was changed")
	}
}
