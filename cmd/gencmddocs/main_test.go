package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuild checks the table rendered from small descriptions written for
// the test: names lower case and tokens upper case as Redis's build makes
// them, key_spec_index kept as 1 + the index, flags and nesting, an empty
// history left out, subcommands by full name, commands the matrix lacks
// skipped; and that a description the table cannot hold is refused.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("opt.json", `{"OPT": {"history": [], "doc_flags": ["DEPRECATED"], "deprecated_since": "6.2.0", "replaced_by": "NEW",
		"arguments": [
			{"name": "Key", "type": "key", "key_spec_index": 0},
			{"name": "mode", "type": "oneof", "optional": true, "since": "2.0.0", "arguments": [
				{"name": "fast", "type": "pure-token", "token": "fast"},
				{"name": "count", "type": "integer", "token": "COUNT"}]},
			{"name": "pair", "type": "block", "multiple": true, "multiple_token": true, "token": "BY", "arguments": [
				{"name": "field", "type": "string"}, {"name": "weight", "type": "double"}]}]}}`)
	write("box-sub.json", `{"SUB": {"container": "BOX", "history": [["7.0.0", "Added it."]], "arguments": [{"name": "pattern", "type": "pattern"}]}}`)
	write("box.json", `{"BOX": {}}`)
	write("other.json", `{"OTHER": {"arguments": [{"name": "x", "type": "string"}]}}`)
	matrix := filepath.Join(t.TempDir(), "matrix.json")
	if err := os.WriteFile(matrix, []byte(`{"commands": [{"name": "opt"}, {"name": "native"},
		{"name": "box", "subcommands": [{"name": "box|sub"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := build(dir, matrix)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		`"box": {},`,
		`"box|sub": {history: [][2]string{{"7.0.0", "Added it."}}, args: []commandArg{`,
		`{name: "pattern", typ: argPattern},`,
		`"opt": {docFlags: docDeprecated, deprecatedSince: "6.2.0", replacedBy: "NEW", args: []commandArg{`,
		`{name: "key", typ: argKey, keySpec: 1},`,
		`{name: "mode", typ: argOneOf, since: "2.0.0", flags: argOptional, args: []commandArg{`,
		`{name: "fast", typ: argPureToken, token: "FAST"},`,
		`{name: "count", typ: argInteger, token: "COUNT"},`,
		`{name: "pair", typ: argBlock, token: "BY", flags: argMultiple | argMultipleToken, args: []commandArg{`,
		`{name: "weight", typ: argDouble},`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "other") || strings.Contains(got, "native") || strings.Contains(got, "history: [][2]string{}") {
		t.Errorf("output has what it should not:\n%s", got)
	}

	write("bad.json", `{"BAD": {"arguments": [{"name": "x", "type": "mystery"}]}}`)
	if err := os.WriteFile(matrix, []byte(`{"commands": [{"name": "bad"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := build(dir, matrix); err == nil || !strings.Contains(err.Error(), `unknown type "mystery"`) {
		t.Errorf("an unknown argument type: %v", err)
	}
}
