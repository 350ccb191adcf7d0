package lookout_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout"
)

// The root package is what a program that runs agents touches: its
// exported names, methods and constants included, stay at most 40. What
// adapters drive runs with lives in adapters/drive.
func TestTheRootExportsAtMostFortyNames(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
	require.NoError(t, err)
	var names []string
	for _, f := range pkgs["lookout"].Files {
		for _, decl := range f.Decls {
			names = append(names, exportedNames(decl)...)
		}
	}
	slices.Sort(names)
	assert.LessOrEqual(t, len(names), 40, "exported: %v", names)
}

// exportedNames returns the exported names decl declares, a method as
// Type.Method.
func exportedNames(decl ast.Decl) []string {
	var out []string
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
		recv := d.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		return []string{recv.(*ast.Ident).Name + "." + d.Name.Name}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					out = append(out, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

// The run a tool finds on its ctx is a view: every method reads, none
// starts, charges or ends the run, and the view gives no way to the run
// it shows.
func TestTheRunAToolFindsCanOnlyBeRead(t *testing.T) {
	readers := []string{"AgentName", "Assessment", "Budget", "CallID", "ID", "Parent", "ToolCalls", "Usage", "WrappingUp"}
	typ := reflect.TypeOf(lookout.Run{})
	var methods []string
	for i := range typ.NumMethod() {
		methods = append(methods, typ.Method(i).Name)
	}
	assert.Equal(t, readers, methods)
	for i := range typ.NumField() {
		assert.False(t, typ.Field(i).IsExported(), "field %s", typ.Field(i).Name)
	}
}

func TestTheZeroRunReadsAsNoRun(t *testing.T) {
	r, ok := lookout.FromContext(context.Background())
	assert.False(t, ok)
	assert.Equal(t, lookout.Run{}, r)
	assert.Empty(t, r.ID())
	assert.Zero(t, r.Budget())
	assert.Nil(t, r.ToolCalls(0))
	_, ok = r.Parent()
	assert.False(t, ok)
	_, ok = r.Assessment()
	assert.False(t, ok)
	assert.False(t, r.WrappingUp())
}
