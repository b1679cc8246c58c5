package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestImportRDBCommand(t *testing.T) {
	noenv := func(string) string { return "" }
	var out bytes.Buffer
	if err := importRDB(nil, noenv, &out); err == nil || err.Error() != "one RDB file expected" {
		t.Fatalf("no file: %v", err)
	}
	dir := t.TempDir()
	args := []string{"--config", "", "--dir", dir, "integration/testdata/redis-7.0.15-dump.rdb"}
	if err := importRDB(args, noenv, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "imported 15 keys") {
		t.Fatalf("report:\n%s", out.String())
	}
	if err := importRDB(args, noenv, &out); err == nil || !strings.Contains(err.Error(), "already holds data") {
		t.Fatalf("second import: %v", err)
	}
	if err := importRDB(append([]string{"--replace"}, args...), noenv, &out); err != nil {
		t.Fatal(err)
	}
	// Database 5 of the file cannot go into four shards.
	args = []string{"--config", "", "--dir", t.TempDir(), "--shards", "4", "integration/testdata/redis-7.0.15-dump.rdb"}
	if err := importRDB(args, noenv, &out); err == nil || !strings.Contains(err.Error(), "is in database 5, but with 4 shards only database 0 exists") {
		t.Fatalf("four shards: %v", err)
	}
	if err := importRDB([]string{"--config", "", "--dir", t.TempDir(), "main.go"}, noenv, &out); err == nil || !strings.Contains(err.Error(), "not an RDB file") {
		t.Fatalf("not an RDB file: %v", err)
	}
}
