package lint

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of the repository's module.
const module = "github.com/ruvio/ruvio"

// layer is one row of the layout table of the design (DESIGN.md, "Layout"):
// the packages matching pkg may import, from this module, only those
// matching one of may. A pattern is a package directory relative to the
// module root ("." is main), or a directory followed by "/..." for it and
// every package below it; "*" is any package.
type layer struct {
	pkg string
	may []string
}

// layers is the design's table as tests can read it. Every package of the
// module must match a row, so a new package is placed in the table before
// it can import anything.
var layers = []layer{
	// main and its start-up code (the process's wiring, split out of
	// main.go so tests can start a server): "everything below".
	{".", []string{"*"}},
	{"internal/app", []string{"*"}},
	{"internal/testserver", []string{"*"}},
	// Generators of docs/ from the command table run as main does.
	{"cmd/...", []string{"*"}},
	// The generators' shared reading of Redis's command descriptions.
	{"internal/redisref", nil},

	{"config", nil},
	{"codec", nil},
	{"eventloop", []string{"codec", "keyspace", "cluster", "acl", "config"}},
	// The engine: shards, dispatch, the journal, snapshots, values. The
	// data structures are its ("data structures live apart from the
	// commands that use them"); it reads the live configuration and the
	// topology, and runs EVAL/FUNCTION's shard half through scripting.
	{"keyspace", []string{"codec", "persistence", "acl", "cluster", "config", "scripting", "types/...", "internal/prefetch"}},
	// The command families sit on the engine: what keyspace may import,
	// and keyspace itself. Nothing below imports them (see TestLayers).
	{"commands", []string{"keyspace", "codec", "persistence", "acl", "cluster", "config", "scripting", "types/..."}},
	// types/* are pure: they may use each other and their internal
	// helpers, and the processor's prefetch, nothing else (no codec, no
	// shards).
	{"types/...", []string{"types/...", "internal/prefetch"}},
	{"persistence", nil},
	{"acl", nil},
	{"cluster", nil},
	// The control plane of a cluster across hosts: the topology's state
	// machine over Raft; internal/app joins it to the keyspace.
	{"cluster/control", []string{"cluster"}},
	{"replication", []string{"persistence"}},
	{"scripting", nil},
	{"client", nil},
	{"idempotency", []string{"client"}},
	// The Prometheus endpoint reads the engine's figures (read-only).
	{"metrics", []string{"keyspace", "persistence"}},

	// bench/netpath is a minimal server of its own, measuring the kernel
	// path; it parses requests with Ruvio's parser, as Ruvio does.
	{"bench/netpath", []string{"codec"}},
	// Test and benchmark programs talk to a server over the network.
	{"bench/...", []string{"cluster"}},
	{"conformance/...", nil},
	{"integration", nil},
	{"internal/lint", nil},
	// The fault harness's history recorder and checkers: pure, no server.
	{"internal/history", nil},
	// The process's OOM-killer score (oom-score-adj): a leaf internal/app uses.
	{"internal/oomscore", nil},
	// The processor's prefetch instruction: a leaf the tables' read ahead uses.
	{"internal/prefetch", nil},
	// A process's scheduling state from /proc: tests and the fault
	// harness wait for a SIGSTOP to take hold.
	{"internal/procstate", nil},
}

// knownViolations are imports that break the table today. Each stays
// listed until the code is changed; the test fails when one disappears,
// so the list only ever shrinks.
var knownViolations = map[string][]string{}

// matches reports whether pattern covers the package directory dir.
func matches(pattern, dir string) bool {
	if pattern == "*" {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dir == base || strings.HasPrefix(dir, base+"/")
	}
	return pattern == dir
}

// moduleImports returns, for every package directory of the module (relative
// to root, "." for main), the module packages its non-test files import.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		imports := out[dir]
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if ip == module || strings.HasPrefix(ip, module+"/") {
				target := strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
				if target == "" {
					target = "."
				}
				if !slices.Contains(imports, target) {
					imports = append(imports, target)
				}
			}
		}
		out[dir] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLayers checks the layout table of the design: which package may
// import which, types/* never imports codec, nothing but main's start-up
// imports eventloop, and nothing but main's start-up and the generators
// imports the command families.
func TestLayers(t *testing.T) {
	pkgs := moduleImports(t, repoRoot(t))
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: wrong root?", len(pkgs))
	}
	seen := map[string]map[string]bool{}
	for dir, imports := range pkgs {
		i := slices.IndexFunc(layers, func(l layer) bool { return matches(l.pkg, dir) })
		if i < 0 {
			t.Errorf("package %s is in no row of the layer table: add it (and to DESIGN.md)", dir)
			continue
		}
		for _, imp := range imports {
			if slices.ContainsFunc(layers[i].may, func(m string) bool { return matches(m, imp) }) {
				continue
			}
			if slices.Contains(knownViolations[dir], imp) {
				if seen[dir] == nil {
					seen[dir] = map[string]bool{}
				}
				seen[dir][imp] = true
				continue
			}
			t.Errorf("%s imports %s: its row (%s) allows only %v", dir, imp, layers[i].pkg, layers[i].may)
		}
	}
	for dir, imps := range knownViolations {
		for _, imp := range imps {
			if !seen[dir][imp] {
				t.Errorf("%s no longer imports %s: remove it from knownViolations", dir, imp)
			}
		}
	}
	// The two rules the design spells out, checked apart so that a
	// loosened row above cannot hide them.
	for dir, imports := range pkgs {
		for _, imp := range imports {
			if imp == "eventloop" && dir != "." && dir != "internal/app" {
				t.Errorf("%s imports eventloop: nothing but main's start-up does", dir)
			}
			if imp == "commands" && dir != "." && dir != "internal/app" && !matches("cmd/...", dir) {
				t.Errorf("%s imports commands: only main's start-up and the generators do", dir)
			}
			if imp == "codec" && matches("types/...", dir) {
				t.Errorf("%s imports codec: types know nothing of RESP", dir)
			}
		}
	}
}

// TestLayerMatching checks the pattern rules the table is written in.
func TestLayerMatching(t *testing.T) {
	for _, c := range []struct {
		pattern, dir string
		want         bool
	}{
		{"*", "keyspace", true},
		{"keyspace", "keyspace", true},
		{"keyspace", "keyspace/x", false},
		{"types/...", "types", true},
		{"types/...", "types/hash", true},
		{"types/...", "types/internal/lp", true},
		{"types/...", "typesx", false},
		{".", ".", true},
		{".", "codec", false},
	} {
		if got := matches(c.pattern, c.dir); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.pattern, c.dir, got, c.want)
		}
	}
}
