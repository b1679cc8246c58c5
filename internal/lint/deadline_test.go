package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestDeadlinesArePerRequest: a test that talks to a server gives
// every request its own deadline. A context with a deadline (ctxT,
// context.WithTimeout, context.WithDeadline) made once and then used inside
// a loop, or inside a function literal (a closure called over and over, a
// goroutine), is one budget for many round trips: on a busy CI machine it
// runs out however fast each request is. Make the context where the
// request is made instead (ctxT(t) per call), or mark a deliberate shared
// budget with lint:allow-shared-deadline on the line that makes it.
func TestRequestDeadlinesArePerRequest(t *testing.T) {
	root := repoRoot(t)
	paths, err := filepath.Glob(filepath.Join(root, "integration", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(root, "main_test.go"))
	fset := token.NewFileSet()
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range sharedDeadlines(f) {
			pos := fset.Position(v.decl)
			if allowed(t, path, pos.Line, "shared-deadline") {
				continue
			}
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%d: %s has one deadline for the requests made with it at line %d (in a loop or closure); give each request its own (ctxT(t) per call)",
				rel, pos.Line, v.name, fset.Position(v.use).Line)
		}
	}
}

// TestSharedDeadlineRuleFindsLoopsAndClosures checks the rule on the two
// shapes it exists for, and that a context made per request passes.
func TestSharedDeadlineRuleFindsLoopsAndClosures(t *testing.T) {
	const src = `package p

func loop(t *testing.T, c *redis.Client) {
	ctx := ctxT(t)
	for i := 0; i < 3; i++ {
		c.Get(ctx, "k")
	}
}

func closure(t *testing.T, c *redis.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	compare := func() { c.Get(ctx, "k") }
	compare()
}

func perRequest(t *testing.T, c *redis.Client) {
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Get(ctx, "k")
		cancel()
		c.Get(ctxT(t), "k")
	}
	ctx := ctxT(t)
	c.Get(ctx, "once")
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range sharedDeadlines(f) {
		got = append(got, v.name)
	}
	if strings.Join(got, ",") != "ctx,ctx" {
		t.Errorf("found %q, want the loop's and the closure's ctx only", got)
	}
}

// sharedDeadline is a deadline context used for more than one request.
type sharedDeadline struct {
	name      string
	decl, use token.Pos
}

// sharedDeadlines finds, in f, the variables assigned a context with a
// deadline that are used inside a loop or function literal that does not
// also contain the assignment.
func sharedDeadlines(f *ast.File) []sharedDeadline {
	var out []sharedDeadline
	// stack holds the enclosing nodes of the one being visited.
	var stack []ast.Node
	decls := map[*ast.Object]token.Pos{}
	reported := map[*ast.Object]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 && makesDeadline(n.Rhs[0]) && len(n.Lhs) >= 1 {
				if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Obj != nil {
					decls[id.Obj] = id.Pos()
				}
			}
		case *ast.Ident:
			declPos, ok := decls[n.Obj]
			if !ok || n.Obj == nil || n.Pos() == declPos || reported[n.Obj] {
				return true
			}
			// Walk out from the use; a loop or closure met before the node
			// that holds the declaration repeats the use under one deadline.
			for i := len(stack) - 2; i >= 0; i-- {
				s := stack[i]
				if s.Pos() <= declPos && declPos < s.End() {
					break
				}
				switch s.(type) {
				case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
					reported[n.Obj] = true
					out = append(out, sharedDeadline{name: n.Name, decl: declPos, use: n.Pos()})
					return true
				}
			}
		}
		return true
	})
	return out
}

// makesDeadline reports whether e makes a context with a deadline.
func makesDeadline(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name == "ctxT"
	case *ast.SelectorExpr:
		pkg, ok := fn.X.(*ast.Ident)
		return ok && pkg.Name == "context" && (fn.Sel.Name == "WithTimeout" || fn.Sel.Name == "WithDeadline")
	}
	return false
}
