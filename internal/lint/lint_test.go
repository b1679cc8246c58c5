// Package lint holds the house rules that go vet does not check, as tests.
package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	return root
}

// goFiles parses the non-test Go files of dir.
func goFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		out[path] = f
	}
	return out
}

// allowed reports whether the line of pos carries a lint:allow-<rule> comment.
func allowed(t *testing.T, path string, line int, rule string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	return line-1 < len(lines) && strings.Contains(lines[line-1], "lint:allow-"+rule)
}

// TestPersistenceUsesItsFS: persistence reaches the disk only through its
// FS interface, so tests can inject failures and simulate crashes; os is
// imported by the real implementation alone (osfs.go and its
// platform-specific osfs_*.go).
func TestPersistenceUsesItsFS(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "persistence")
	for path, f := range goFiles(t, dir) {
		for _, imp := range f.Imports {
			if base := filepath.Base(path); imp.Path.Value == `"os"` && base != "osfs.go" && !strings.HasPrefix(base, "osfs_") {
				t.Errorf("%s imports os: file access must go through persistence.FS", path)
			}
		}
	}
}

// TestKeyspaceReadsTheInjectedClock: keyspace code takes time from the
// server's clock (Options.Now), never from the wall clock directly, so
// expiry is testable and replay never depends on when it runs.
func TestKeyspaceReadsTheInjectedClock(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "keyspace")
	fset := token.NewFileSet()
	for path := range goFiles(t, dir) {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Name != "time" || (sel.Sel.Name != "Now" && sel.Sel.Name != "Since" && sel.Sel.Name != "Until") {
				return true
			}
			line := fset.Position(sel.Pos()).Line
			if !allowed(t, path, line, "clock") {
				t.Errorf("%s:%d uses time.%s: use the server clock (srv.now)", path, line, sel.Sel.Name)
			}
			return true
		})
	}
}
