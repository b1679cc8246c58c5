package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSummarize checks the derivations Redis makes at start-up on small
// descriptions written for the test: implicit ACL categories, the legacy
// key triple from consecutive range specs, and movablekeys for a keyword
// spec.
func TestSummarize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("twokeys.json", `{"TWOKEYS": {"arity": 3, "command_flags": ["WRITE", "DENYOOM"], "acl_categories": ["KEYSPACE"],
		"key_specs": [
			{"flags": ["RO", "ACCESS"], "begin_search": {"index": {"pos": 1}}, "find_keys": {"range": {"lastkey": 0, "step": 1, "limit": 0}}},
			{"flags": ["OW", "UPDATE"], "begin_search": {"index": {"pos": 2}}, "find_keys": {"range": {"lastkey": 0, "step": 1, "limit": 0}}}]}}`)
	write("kw.json", `{"KW": {"arity": -2, "command_flags": ["READONLY", "FAST"], "command_tips": ["REQUEST_POLICY:ALL_SHARDS"],
		"key_specs": [{"flags": ["RO"], "begin_search": {"keyword": {"keyword": "KEYS", "startfrom": -2}}, "find_keys": {"range": {"lastkey": -1, "step": 1, "limit": 0}}}]}}`)
	write("box-sub.json", `{"SUB": {"arity": 2, "container": "BOX", "command_flags": ["ADMIN", "NOSCRIPT"]}}`)
	write("box.json", `{"BOX": {"arity": -2}}`)
	matrix := filepath.Join(t.TempDir(), "matrix.json")
	if err := os.WriteFile(matrix, []byte(`{"commands": [{"name": "twokeys"}, {"name": "kw"}, {"name": "native"},
		{"name": "box", "subcommands": [{"name": "box|sub"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := build(dir, matrix)
	if err != nil {
		t.Fatal(err)
	}
	var doc Doc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	want := []*Entry{
		{Name: "box", Arity: -2, Flags: []string{}, ACLCategories: []string{"@slow"}, Tips: []string{}, KeySpecs: []KeySpec{}},
		{Name: "box|sub", Arity: 2, Flags: []string{"admin", "noscript"}, ACLCategories: []string{"@admin", "@slow", "@dangerous"}, Tips: []string{}, KeySpecs: []KeySpec{}},
		{Name: "kw", Arity: -2, Flags: []string{"readonly", "fast", "movablekeys"}, ACLCategories: []string{"@read", "@fast"},
			Tips: []string{"request_policy:all_shards"}, KeySpecs: []KeySpec{{Flags: []string{"RO"}, BeginSearch: "keyword:KEYS:-2", FindKeys: "range:-1:1:0"}}},
		{Name: "twokeys", Arity: 3, Flags: []string{"write", "denyoom"}, ACLCategories: []string{"@keyspace", "@write", "@slow"},
			FirstKey: 1, LastKey: 2, Step: 1, Tips: []string{}, KeySpecs: []KeySpec{
				{Flags: []string{"RO", "access"}, BeginSearch: "index:1", FindKeys: "range:0:1:0"},
				{Flags: []string{"OW", "update"}, BeginSearch: "index:2", FindKeys: "range:0:1:0"}}},
	}
	if !reflect.DeepEqual(doc.Commands, want) {
		got, _ := json.MarshalIndent(doc.Commands, "", " ")
		t.Errorf("summary:\n%s", got)
	}
}
