package analyzer

import (
	"fmt"
	"reflect"
)

// A versioned executable comment (/*!50700 … */, /*M! … */, lexed.conds)
// is SQL on some servers and a comment on others: MariaDB skips /*!50700
// to /*!99999, MySQL every /*M!, an older server one of a newer version.
// The analyzer reads the text with every such comment run (analyzer.go),
// and then once more for each other reading a server may have
// (serverReadings): `DELETE FROM t /*!99999 WHERE id = 1 */` deletes every
// row on MariaDB, and `/*!99999 EXPLAIN */ DELETE FROM t` too. Each
// statement of another reading adds its analysis (actions, targets,
// functions, effects) to the statements of the first reading it overlaps.
// A reading the parser refuses, or one whose statements act on the
// session otherwise (USE, KILL, SET NAMES, PREPARE…), makes the text
// uncheckable: fail closed.

// errSkippedReading: a reading with some executable comments skipped that
// the analyzer cannot read or that acts on the session differently.
var errSkippedReading = fmt.Errorf("%w: the text reads differently on a server that skips one of its versioned executable comments (/*!NNNNN … */, /*M! … */)", ErrUncheckable)

// maxSkippedReadings bounds the readings parsed per text: a text whose
// comments name more versions than that is uncheckable. mariadb-dump and
// mysqldump output names a handful.
const maxSkippedReadings = 24

// addSkippedReadings merges into out (the statements of stmts, the reading
// that runs every comment of l) what each other server reading of sql runs.
func addSkippedReadings(db string, m Mode, nest int, l lexed, stmts []parsed, out []Statement) error {
	readings := serverReadings(l.conds)
	if len(readings) > maxSkippedReadings {
		return errSkippedReading // each is a parse of the whole text: bound the work
	}
	for _, runs := range readings {
		if !skipsAny(runs) {
			continue
		}
		code := []byte(l.code)
		var toks []token
		for _, t := range l.toks {
			if !skippedBy(l.conds, runs, t) {
				toks = append(toks, t)
			}
		}
		for i, c := range l.conds {
			if !runs[i] {
				for k := c.start; k < c.end; k++ {
					if code[k] != '\n' {
						code[k] = ' '
					}
				}
			}
		}
		alt, err := parseText(string(code), m)
		if err != nil || sameSplit(toks, alt) != nil || compoundSkippable(l, alt) != nil {
			return errSkippedReading
		}
		for _, q := range alt {
			st, err := classifyStmt(q.node, db, m, nest)
			if err != nil {
				return err
			}
			addTokenEffects(&st, l.code, toks, q, m)
			merged := false
			for i, p := range stmts {
				if q.start < p.rawEnd && q.end > p.raw {
					if p.start == q.start && (!sameSession(out[i], st) || !reflect.DeepEqual(out[i].Prepare, st.Prepare) || !reflect.DeepEqual(out[i].change, st.change)) {
						return errSkippedReading
					}
					merge(&out[i], st.Analysis) // modes.go
					merged = true
				}
			}
			if !merged || (st.change.changes() || st.UseDB != "" || st.Kill != nil || st.LoadLocal || st.Prepare != nil || st.Execute != "" || st.Deallocate != "") && !startsOne(stmts, q.start) {
				return errSkippedReading
			}
		}
	}
	return nil
}

func skipsAny(runs []bool) bool {
	for _, r := range runs {
		if !r {
			return true
		}
	}
	return false
}

func startsOne(stmts []parsed, start int) bool {
	for _, p := range stmts {
		if p.start == start {
			return true
		}
	}
	return false
}
