// TEMPORARY stub of the mysqlsql helper's analyzer, so the wire side builds
// before the real analyzer is merged. Deleted on merge.
package analyzer

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

type Result struct {
	Statements []Statement
	Err        error
}

type Statement struct {
	Text      string
	Analysis  domain.Analysis
	UseDB     string
	Kill      *Kill
	LoadLocal bool
}

type Kill struct {
	ID        uint64
	QueryOnly bool
}

var killRe = regexp.MustCompile(`(?i)^KILL\s+(QUERY\s+|CONNECTION\s+)?(\d+)$`)

func Analyze(sql, currentDB string) Result {
	var r Result
	for _, part := range strings.Split(sql, ";") {
		t := strings.TrimSpace(part)
		if t == "" {
			continue
		}
		if strings.Contains(t, "/*!") {
			r.Err = errors.New("stub: executable comment")
			r.Statements = append(r.Statements, Statement{Text: t, Analysis: domain.Analysis{Actions: []string{"UNKNOWN"}}})
			continue
		}
		w := strings.ToUpper(strings.Fields(t)[0])
		st := Statement{Text: t, Analysis: domain.Analysis{Actions: []string{w}}}
		if w == "USE" {
			st.UseDB = strings.Trim(strings.Fields(t)[1], "`")
		}
		if m := killRe.FindStringSubmatch(t); m != nil {
			id, _ := strconv.ParseUint(m[2], 10, 64)
			st.Kill = &Kill{ID: id, QueryOnly: strings.EqualFold(strings.TrimSpace(m[1]), "QUERY")}
		}
		if w == "LOAD" && strings.Contains(strings.ToUpper(t), "LOCAL") {
			st.LoadLocal = true
			st.Analysis.Actions = []string{"LOAD_DATA"}
		}
		r.Statements = append(r.Statements, st)
	}
	return r
}

type Cache struct{}

func NewCache(n int) *Cache                               { return &Cache{} }
func (*Cache) Analyze(sql, currentDB string) Result       { return Analyze(sql, currentDB) }
func Actions() []string                                   { return []string{"SELECT", "INSERT", "UPDATE", "DELETE", "DROP", "UNKNOWN", "LOAD_DATA", "KILL", "USE", "CREATE", "TRUNCATE", "BEGIN", "COMMIT", "ROLLBACK", "SET"} }
func IsAction(a string) bool {
	for _, x := range Actions() {
		if strings.EqualFold(x, a) {
			return true
		}
	}
	return false
}
