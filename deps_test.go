package lookout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The root package is runtime-neutral: of Eino it imports the message
// types (schema) and nothing else, so no graph, agent or callbacks
// machinery comes with it. schema's own dependencies are Eino's internal
// helpers and schema's subpackages.
func TestTheRootImportsNoEinoPackageButSchema(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const eino = "github.com/cloudwego/eino/"
	for _, pkg := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(pkg, eino)
		if !ok {
			continue
		}
		if rest != "schema" && !strings.HasPrefix(rest, "schema/") && !strings.HasPrefix(rest, "internal") {
			t.Errorf("the root package depends on %s", pkg)
		}
	}
}

// OpenTelemetry stays in the otelexport package: the root package, the
// recorder and the adapters do not depend on it, so a program that
// records without exporting spans does not build it in.
func TestOnlyOtelexportImportsOpenTelemetry(t *testing.T) {
	pkgs := []string{".", "./recorder/...", "./adapters/..."}
	out, err := exec.Command("go", append([]string{"list", "-deps", "-test=false"}, pkgs...)...).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/lookout-go/lookout/recorder", "go list listed the packages")
	for _, pkg := range deps {
		if strings.HasPrefix(pkg, "go.opentelemetry.io/") || pkg == "github.com/lookout-go/lookout/otelexport" {
			t.Errorf("%v depend on %s", pkgs, pkg)
		}
	}
}

// No exported type is an alias of a type in an internal package, which
// go doc would show without its fields or methods.
func TestNoExportedAliasIntoAnInternalPackage(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		internal := map[string]bool{}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Assign.IsValid() || !ts.Name.IsExported() {
				return true
			}
			if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] {
					t.Errorf("%s: type %s is an alias into internal package %s", fset.Position(ts.Pos()), ts.Name.Name, x.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The packages a program that attaches Lookout imports together.
var usedTogether = []string{".", "budget", "observer", "recorder", "session", "simulate",
	"adapters/lookoutadk", "adapters/lookoutreact", "adapters/simtarget"}

// No two of them export a type of the same name, so every type reads
// unambiguously at the call site.
func TestNoTwoPackagesUsedTogetherExportOneTypeName(t *testing.T) {
	owner := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range usedTogether {
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, decl := range f.Decls {
					gd, ok := decl.(*ast.GenDecl)
					if !ok || gd.Tok != token.TYPE {
						continue
					}
					for _, spec := range gd.Specs {
						name := spec.(*ast.TypeSpec).Name.Name
						if !ast.IsExported(name) {
							continue
						}
						if other, ok := owner[name]; ok && other != dir {
							t.Errorf("type %s is exported by both %s and %s", name, other, dir)
						}
						owner[name] = dir
					}
				}
			}
		}
	}
}
