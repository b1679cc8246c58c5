package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReshardCommand(t *testing.T) {
	noenv := func(string) string { return "" }
	var out bytes.Buffer
	if err := reshard([]string{"--config", "", "--dir", t.TempDir()}, noenv, &out); err == nil || !strings.Contains(err.Error(), "--shards is required") {
		t.Fatalf("no --shards: %v", err)
	}
	if err := reshard([]string{"--config", "", "--dir", t.TempDir(), "--shards", "2", "extra"}, noenv, &out); err == nil || err.Error() != "unexpected arguments" {
		t.Fatalf("extra argument: %v", err)
	}
	if err := reshard([]string{"--config", "", "--dir", t.TempDir(), "--shards", "0"}, noenv, &out); err == nil || !strings.Contains(err.Error(), "server.shards: 0 is out of range") {
		t.Fatalf("--shards 0: %v", err)
	}
	// An imported one-shard directory of database 0 keys goes to 3 shards.
	dir := t.TempDir()
	if err := importRDB([]string{"--config", "", "--dir", dir, "integration/testdata/redis-7.0.15-dump.rdb"}, noenv, &out); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := reshard([]string{"--config", "", "--dir", dir, "--shards", "1"}, noenv, &out); err != nil || !strings.Contains(out.String(), "nothing to do") {
		t.Fatalf("same count: %v\n%s", err, out.String())
	}
	// The file has two keys in database 5: several shards cannot hold them.
	err := reshard([]string{"--config", "", "--dir", dir, "--shards", "3"}, noenv, &out)
	if err == nil || !strings.Contains(err.Error(), "is in database 5, but with 3 shards only database 0 exists") {
		t.Fatalf("database 5 into 3 shards: %v", err)
	}
}
