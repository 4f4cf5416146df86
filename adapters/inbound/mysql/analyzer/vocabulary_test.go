package analyzer

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoophq/sidecar/domain"
)

// Every action the analyzer reports for the statements of the tests is in
// Actions(), the vocabulary `sidecar validate` checks rules against.
func TestVocabularyCoversWhatTheAnalyzerReports(t *testing.T) {
	if !IsAction(domain.ActionUnknown) || !IsAction("drop_table") || !IsAction("LOAD_DATA") || !slices.IsSorted(Actions()) {
		t.Error("UNKNOWN, DROP_TABLE (any case) and LOAD_DATA are actions; the list is sorted")
	}
	for _, a := range []string{"DORP", "DELETES", "DROP TABLE", "GET", "COPY", "*", "DROP_*", "", "CALL_PROCEDURE"} {
		if IsAction(a) {
			t.Errorf("%q is not an action the analyzer reports", a)
		}
	}
	for _, s := range parserStatements {
		for _, a := range genericActions(s) {
			if !IsAction(a) {
				t.Errorf("%s names %s, which Actions() lacks", s, a)
			}
		}
	}
}

// Every statement node type of the parser is either classified by name in
// classify.go or listed in parserStatements (named generically), so a new
// parser version cannot bring a statement whose action validate refuses.
func TestVocabularyKnowsEveryParserStatement(t *testing.T) {
	dir := filepath.Dir(reflectPkgFile(t))
	fset := gotoken.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	classified, err := os.ReadFile("classify.go")
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != gotoken.TYPE {
					continue
				}
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if _, isStruct := ts.Type.(*ast.StructType); isStruct && strings.HasSuffix(ts.Name.Name, "Stmt") {
						stmts = append(stmts, ts.Name.Name)
					}
				}
			}
		}
	}
	if len(stmts) < 80 {
		t.Fatalf("found %d statement types in %s", len(stmts), dir)
	}
	for _, s := range stmts {
		if !strings.Contains(string(classified), "*ast."+s+":") && !slices.Contains(parserStatements, s) && !procedural(s) {
			t.Errorf("parser statement %s is neither classified nor in parserStatements", s)
		}
	}
}

// procedural statements occur only inside stored-program bodies, which are
// not walked.
func procedural(s string) bool {
	return strings.HasPrefix(s, "Procedure") || strings.HasSuffix(s, "CaseStmt") || strings.HasSuffix(s, "WhenThenStmt")
}

// reflectPkgFile returns a source file of the parser's ast package.
func reflectPkgFile(t *testing.T) string {
	t.Helper()
	out, err := goList("github.com/pingcap/tidb/pkg/parser/ast")
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return filepath.Join(out, "ast.go")
}
