package main

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	parts, err := build(dir, matrix)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 {
		t.Fatalf("%d parts for a small table", len(parts))
	}
	got := string(parts[0])
	for _, want := range []string{
		"var redisCommandDocs = mergeCommandDocs(redisCommandDocs1)\n",
		"var redisCommandDocs1 = map[string]*commandDoc{\n",
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

// TestRenderParts checks the split of a table into files: each at most
// the limit, full before the next starts, the entries in order and each
// whole in one part, the first file merging every part; and that an entry
// too long for any file is refused.
func TestRenderParts(t *testing.T) {
	var entries []string
	for i := range 40 {
		// Entries of 1, 2 and 3 lines.
		e := strconv.Quote("cmd"+strconv.Itoa(i)) + ": {args: []commandArg{" + strings.Repeat("\n{name: \"a\"},", i%3) + "}},\n"
		if i%3 == 0 {
			e = strconv.Quote("cmd"+strconv.Itoa(i)) + ": {},\n"
		}
		entries = append(entries, e)
	}
	const limit = 30
	parts, err := renderParts(entries, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 3 {
		t.Fatalf("%d parts, want at least 3", len(parts))
	}
	if !strings.Contains(string(parts[0]), "var redisCommandDocs = mergeCommandDocs(redisCommandDocs1, redisCommandDocs2, redisCommandDocs3") {
		t.Errorf("the first part does not merge them all:\n%s", parts[0])
	}
	got := entriesOf(t, parts)
	if len(got) != len(entries) {
		t.Fatalf("%d entries in the parts, want %d", len(got), len(entries))
	}
	for i, e := range got {
		if name := strconv.Quote("cmd" + strconv.Itoa(i)); !strings.HasPrefix(e, name+":") {
			t.Errorf("entry %d is %q, want %s", i, e, name)
		}
	}
	for i, p := range parts {
		n := bytes.Count(p, []byte("\n"))
		if n > limit {
			t.Errorf("part %d has %d lines, over %d", i+1, n, limit)
		}
		if !bytes.Contains(p, []byte("var "+partVar(i+1)+" = map[string]*commandDoc{")) {
			t.Errorf("part %d does not declare %s", i+1, partVar(i+1))
		}
		// Full: the next part's first entry would not have fitted.
		if i+1 < len(parts) {
			next := entriesOf(t, parts[i+1:i+2])[0]
			if n+strings.Count(next, "\n") <= limit {
				t.Errorf("part %d (%d lines) had room for the next entry", i+1, n)
			}
		}
	}
	if _, err := renderParts([]string{`"big": {args: []commandArg{` + strings.Repeat("\n{name: \"a\"},", limit) + "}},\n"}, limit); err == nil {
		t.Error("an entry longer than a file was accepted")
	}
}

// TestCommittedTableSplit checks that commands/command_docs_gen*.go are
// laid out as renderParts lays out their entries: split where the
// generator splits, with its headers and formatting, no part missing or
// left over. (Their content can only be checked against a Redis tree.)
func TestCommittedTableSplit(t *testing.T) {
	first := filepath.Join("..", "..", "commands", "command_docs_gen.go")
	var files [][]byte
	for i := 1; ; i++ {
		b, err := os.ReadFile(partPath(first, i))
		if errors.Is(err, fs.ErrNotExist) && i > 1 {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	parts, err := renderParts(entriesOf(t, files), maxLines)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != len(files) {
		t.Fatalf("the table is in %d files; the generator would write %d", len(files), len(parts))
	}
	for i := range parts {
		if !bytes.Equal(parts[i], files[i]) {
			t.Errorf("%s differs from what the generator would write", partPath(first, i+1))
		}
	}
}

// entriesOf returns the entries of the table's parts, in order, each as
// its source text with ",\n" after it, as writeDoc writes them but for
// gofmt's indentation and alignment.
func entriesOf(t *testing.T, files [][]byte) []string {
	t.Helper()
	var entries []string
	for _, src := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "redisCommandDocs") {
					continue
				}
				lit, ok := vs.Values[0].(*ast.CompositeLit)
				if !ok {
					continue // redisCommandDocs itself, the merge
				}
				for _, e := range lit.Elts {
					entries = append(entries, string(src[fset.Position(e.Pos()).Offset:fset.Position(e.End()).Offset])+",\n")
				}
			}
		}
	}
	return entries
}

// TestWriteParts checks that the parts go beside the first file and that
// a shorter table removes the parts a longer one left, but not a file the
// generator did not write.
func TestWriteParts(t *testing.T) {
	first := filepath.Join(t.TempDir(), "docs_gen.go")
	part := func(i int) []byte {
		return []byte(generatedBy + "\npackage commands\n// part " + strconv.Itoa(i) + "\n")
	}
	if err := writeParts(first, [][]byte{part(1), part(2), part(3)}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if b, err := os.ReadFile(partPath(first, i)); err != nil || !bytes.Equal(b, part(i)) {
			t.Fatalf("part %d: %q, %v", i, b, err)
		}
	}
	if err := writeParts(first, [][]byte{part(1)}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{2, 3} {
		if _, err := os.Stat(partPath(first, i)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("part %d left over: %v", i, err)
		}
	}
	if err := os.WriteFile(partPath(first, 2), []byte("package commands\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeParts(first, [][]byte{part(1)}); err == nil {
		t.Error("a file the generator did not write was removed or ignored")
	}
	if _, err := os.Stat(partPath(first, 2)); err != nil {
		t.Errorf("a file the generator did not write: %v", err)
	}
}
