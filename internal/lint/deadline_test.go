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
// shapes it exists for, and that a context made per request passes, also
// where an inner one has the same name.
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

func shadowed(t *testing.T, c *redis.Client) {
	ctx := ctxT(t)
	c.Get(ctx, "once")
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Get(ctx, "k")
		cancel()
	}
	run := func(ctx context.Context) { c.Get(ctx, "k") }
	run(ctxT(t))
	go func() {
		ctx := ctxT(t)
		c.Get(ctx, "k")
	}()
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
// deadline (name := ctxT(t), or context.WithTimeout or WithDeadline) that
// are used, later in the same block, inside a loop or function literal.
// Names are resolved by scope without type information: a nested
// redeclaration of the name hides the variable for the rest of its block.
func sharedDeadlines(f *ast.File) []sharedDeadline {
	var out []sharedDeadline
	ast.Inspect(f, func(n ast.Node) bool {
		for _, list := range stmtLists(n) {
			for i, st := range list {
				as, ok := st.(*ast.AssignStmt)
				if !ok || as.Tok != token.DEFINE || len(as.Rhs) != 1 || !makesDeadline(as.Rhs[0]) {
					continue
				}
				id, ok := as.Lhs[0].(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				if use, found := repeatedUse(list[i+1:], id.Name, false); found {
					out = append(out, sharedDeadline{name: id.Name, decl: id.Pos(), use: use})
				}
			}
		}
		return true
	})
	return out
}

// stmtLists returns the statement lists n holds directly.
func stmtLists(n ast.Node) [][]ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return [][]ast.Stmt{n.List}
	case *ast.CaseClause:
		return [][]ast.Stmt{n.Body}
	case *ast.CommClause:
		return [][]ast.Stmt{n.Body}
	}
	return nil
}

// repeatedUse looks through list for a use of name that may run more than
// once per creation: inside a loop or a function literal (repeated tells
// whether list itself is). It stops where name is declared again.
func repeatedUse(list []ast.Stmt, name string, repeated bool) (token.Pos, bool) {
	for _, st := range list {
		if pos, ok := repeatedUseIn(st, name, repeated); ok {
			return pos, true
		}
		if declares(st, name) {
			return 0, false
		}
	}
	return 0, false
}

// repeatedUseIn is repeatedUse for one node.
func repeatedUseIn(n ast.Node, name string, repeated bool) (pos token.Pos, found bool) {
	ast.Inspect(n, func(c ast.Node) bool {
		if found || c == nil {
			return false
		}
		if lists := stmtLists(c); lists != nil {
			pos, found = repeatedUse(lists[0], name, repeated)
			return false
		}
		switch c := c.(type) {
		case *ast.AssignStmt:
			if c.Tok != token.DEFINE {
				return true
			}
			// The names a := defines are not uses; its values may be.
			for _, r := range c.Rhs {
				if !found {
					pos, found = repeatedUseIn(r, name, repeated)
				}
			}
			return false
		case *ast.Ident:
			if c.Name == name && repeated {
				pos, found = c.Pos(), true
			}
		case *ast.FuncLit:
			if hasParam(c.Type, name) {
				return false
			}
			pos, found = repeatedUseIn(c.Body, name, true)
			return false
		case *ast.ForStmt:
			if declares(c.Init, name) {
				return false
			}
			for _, part := range []ast.Node{c.Cond, c.Post, c.Body} {
				if part != nil && !found {
					pos, found = repeatedUseIn(part, name, true)
				}
			}
			return false
		case *ast.RangeStmt:
			if p, ok := repeatedUseIn(c.X, name, repeated); ok {
				pos, found = p, true
				return false
			}
			if c.Tok == token.DEFINE && (isName(c.Key, name) || isName(c.Value, name)) {
				return false
			}
			pos, found = repeatedUseIn(c.Body, name, true)
			return false
		}
		return true
	})
	return pos, found
}

// declares reports whether st declares name with := or var.
func declares(st ast.Node, name string) bool {
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, l := range st.Lhs {
				if isName(l, name) {
					return true
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					for _, id := range vs.Names {
						if id.Name == name {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

func isName(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// hasParam reports whether a function type has a parameter called name.
func hasParam(ft *ast.FuncType, name string) bool {
	for _, fl := range ft.Params.List {
		for _, id := range fl.Names {
			if id.Name == name {
				return true
			}
		}
	}
	return false
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
