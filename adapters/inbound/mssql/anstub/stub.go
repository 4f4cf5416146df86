// Package anstub is a TEMPORARY stand-in with the API of
// adapters/inbound/mssql/analyzer (built by the tsqlan helper): a first-word
// classifier, enough for the listener's tests until the real T-SQL analyzer
// merges. It is deleted at that merge.
package anstub

import (
	"strings"

	"github.com/hoophq/sidecar/domain"
)

const Unknown = "UNKNOWN"

type Statement struct {
	Text     string
	Analysis domain.Analysis
	UseDB    string
}

type Result struct {
	Statements []Statement
	Err        error
}

func Analyze(text, currentDB string) Result {
	var r Result
	for _, part := range strings.Split(text, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		w := strings.ToUpper(f[0])
		st := Statement{Text: strings.TrimSpace(part), Analysis: domain.Analysis{Actions: []string{w}}}
		if w == "USE" && len(f) > 1 {
			st.UseDB = strings.Trim(f[1], "[]")
		}
		if w == "BOGUS" {
			st.Analysis.Actions = []string{Unknown}
		}
		r.Statements = append(r.Statements, st)
	}
	if len(r.Statements) == 0 {
		r.Statements = []Statement{{Text: text, Analysis: domain.Analysis{Actions: []string{"SELECT"}}}}
	}
	return r
}

func AnalyzeProc(name, currentDB string) Result {
	return Result{Statements: []Statement{{Text: "EXEC " + name, Analysis: domain.Analysis{Actions: []string{"EXEC"}, Targets: []string{name}}}}}
}

type Cache struct{}

func NewCache(size int) *Cache                         { return &Cache{} }
func (c *Cache) Analyze(text, currentDB string) Result { return Analyze(text, currentDB) }
func Warm()                                            {}

var actions = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "DROP", "TRUNCATE", "ALTER", "CREATE", "EXEC", "USE", "BEGIN", "COMMIT", "ROLLBACK", "UNKNOWN"}

func Actions() []string { return actions }
func IsAction(a string) bool {
	for _, x := range actions {
		if strings.EqualFold(x, a) {
			return true
		}
	}
	return false
}
