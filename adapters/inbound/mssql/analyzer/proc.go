package analyzer

import (
	"errors"
	"strings"

	"github.com/hoophq/sidecar/domain"
)

// AnalyzeProc classifies an RPC call of a stored procedure by name (MS-TDS
// 2.2.6.6 RPC Request, ProcName): action EXEC, the procedure as target (as
// an EXEC statement names it, see object). The name is a multi-part name
// as T-SQL writes one ([db].[dbo].[p], dbo.p, p). The dynamic-SQL
// procedures (sp_executesql, sp_prepare, sp_prepexec) are analysed by the
// listener from their statement parameter with Analyze; called here they
// are Unknown, as are the procedures whose SQL text is not in the call
// (sp_execute, sp_cursoropen …). A name that does not read as one is
// Unknown with Err set.
func AnalyzeProc(name, currentDB string) Result {
	parts, err := splitName(name)
	if err != nil {
		return unknown(name, err)
	}
	w := newWalker(nil, []string{strings.ToLower(currentDB)}, 0)
	w.Act("EXEC")
	w.object(parts)
	w.effect(callEffects(parts)...)
	p := parts[len(parts)-1]
	if runsText(p) {
		w.Act(domain.ActionUnknown)
	}
	st := w.statement()
	st.Text = name
	return Result{Statements: []Statement{st}, Err: nil}
}

var errProcName = errors.New("the procedure name does not read as a T-SQL name")

// splitName splits a multi-part name at the dots outside [ ] and " ",
// unquoted and lower case. At most four parts; the last must not be empty.
func splitName(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	var parts []string
	i := 0
	for {
		start := i
		switch {
		case i < len(s) && (s[i] == '[' || s[i] == '"'):
			end := byte(']')
			if s[i] == '"' {
				end = '"'
			}
			j, ok := quoted(s, i, end)
			if !ok {
				return nil, errProcName
			}
			i = j
		default:
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
		}
		parts = append(parts, strings.ToLower(unquoteName(s[start:i])))
		if i == len(s) {
			break
		}
		if s[i] != '.' || len(parts) == 4 {
			return nil, errProcName
		}
		i++
	}
	if parts[len(parts)-1] == "" {
		return nil, errProcName
	}
	return parts, nil
}
