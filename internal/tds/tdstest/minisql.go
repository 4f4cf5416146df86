package tdstest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoophq/sidecar/internal/tds"
)

// What Mini understands, one pattern per statement (case-insensitive;
// names may be [bracketed] or dbo.-qualified; values are integers,
// 'text', N'text', NULL or @parameters):
//
//	USE db                          CREATE DATABASE db / DROP DATABASE [IF EXISTS] db
//	BEGIN TRAN[SACTION]             COMMIT [TRAN[SACTION]]      ROLLBACK [TRAN[SACTION]]
//	IF @@TRANCOUNT > 0 COMMIT|ROLLBACK [TRAN[SACTION]]   (nothing without a transaction)
//	SET … (XACT_ABORT ON|OFF is kept; the rest is accepted and ignored)
//	CREATE TABLE t (col type, …)    DROP TABLE [IF EXISTS] t
//	INSERT [INTO] t [(cols)] VALUES (v, …)[, (v, …)]
//	UPDATE t SET col = v[, …] [WHERE col = v]
//	DELETE [FROM] t [WHERE col = v]
//	SELECT COUNT(*) FROM t [WHERE col = v]  (t may be sys.tables: one column, name)
//	SELECT *|cols FROM t [WHERE col = v] [ORDER BY col]
//	SELECT TOP n|(n) … FROM big    (n generated rows: id INT, payload NVARCHAR(500), ~1 KB each)
//	SELECT expr[, …]               (literals, @parameters, DB_NAME(), @@TRANCOUNT, @@SPID, @@VERSION)
//	WAITFOR DELAY 'hh:mm:ss[.mmm]'
//	KILL spid                      (closes that session's connection, as SQL Server does)
//
// Statements of a batch are separated by semicolons or line breaks before
// a statement keyword.

// stmt is one parsed statement.
type stmt interface{ text() string }

type baseStmt struct{ src string }

func (b baseStmt) text() string { return b.src }

type (
	useStmt struct {
		baseStmt
		db string
	}
	dbStmt struct {
		baseStmt
		create, ifExists bool
		db               string
	}
	tranStmt struct {
		baseStmt
		op     string // begin, commit, rollback
		ifOpen bool   // IF @@TRANCOUNT > 0 before it: nothing without a transaction
	}
	setStmt struct {
		baseStmt
		xabort *bool
	}
	createStmt struct {
		baseStmt
		table string
		cols  []column
	}
	dropStmt struct {
		baseStmt
		table    string
		ifExists bool
	}
	insertStmt struct {
		baseStmt
		table string
		cols  []string
		rows  [][]string // value terms
	}
	updateStmt struct {
		baseStmt
		table string
		set   [][2]string
		where *cond
	}
	deleteStmt struct {
		baseStmt
		table string
		where *cond
	}
	selectStmt struct {
		baseStmt
		count   bool
		top     int // big
		table   string
		cols    []string // nil: *
		exprs   []string // SELECT without FROM
		where   *cond
		orderBy string
	}
	waitStmt struct {
		baseStmt
		d time.Duration
	}
	killStmt struct {
		baseStmt
		spid int
	}
)

type cond struct{ col, val string }

type column struct {
	name string
	int  bool
}

type table struct {
	cols []column
	rows [][]any
}

func (t *table) clone() *table {
	c := &table{cols: t.cols, rows: make([][]any, len(t.rows))}
	for i, r := range t.rows {
		c.rows[i] = slices.Clone(r)
	}
	return c
}

func (t *table) col(name string) int {
	for i, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// indexes returns the positions of the named columns, every column's for
// nil names; error 207 names an unknown one.
func (t *table) indexes(names []string) ([]int, error) {
	if names == nil {
		idx := make([]int, len(t.cols))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	idx := make([]int, 0, len(names))
	for _, c := range names {
		i := t.col(c)
		if i < 0 {
			return nil, errf(207, "Invalid column name '%s'.", c)
		}
		idx = append(idx, i)
	}
	return idx, nil
}

func tableKey(db, name string) string { return strings.ToLower(db + "." + name) }

var keywords = regexp.MustCompile(`(?i)^\s*(USE|BEGIN|COMMIT|ROLLBACK|SET|CREATE|DROP|INSERT|UPDATE|DELETE|SELECT|WAITFOR|EXEC|EXECUTE|IF|TRUNCATE|ALTER|MERGE)\b`)

// splitBatch splits a batch into statement texts at semicolons and at line
// breaks followed by a statement keyword, outside quotes.
func splitBatch(text string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQuote := false
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'':
			inQuote = !inQuote
		case inQuote:
		case c == ';':
			flush()
			continue
		case c == '\n' && keywords.MatchString(text[i+1:]) && strings.TrimSpace(cur.String()) != "":
			flush()
			continue
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			cur.WriteByte(' ')
			continue
		}
		cur.WriteByte(c)
	}
	if inQuote {
		return nil, errors.New("Unclosed quotation mark after the character string ''.")
	}
	flush()
	return out, nil
}

// splitTop splits s at sep outside quotes and parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start, inQuote := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			inQuote = !inQuote
		case inQuote:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" || len(out) > 0 {
		out = append(out, t)
	}
	return out
}

const name = `((?:\[[^\]]+\]|[A-Za-z_#][\w$#]*)(?:\.(?:\[[^\]]*\]|[A-Za-z_][\w$#]*))*)`

var (
	reUse      = regexp.MustCompile(`(?is)^USE\s+` + name + `$`)
	reDB       = regexp.MustCompile(`(?is)^(CREATE|DROP)\s+DATABASE\s+(IF\s+EXISTS\s+)?` + name + `$`)
	reTran     = regexp.MustCompile(`(?is)^(IF\s+@@TRANCOUNT\s*>\s*0\s+)?(BEGIN|COMMIT|ROLLBACK)(\s+TRAN(SACTION)?)?(\s+\w+)?$`)
	reXAbort   = regexp.MustCompile(`(?is)^SET\s+XACT_ABORT\s+(ON|OFF)$`)
	reSet      = regexp.MustCompile(`(?is)^SET\s+\w+`)
	reCreate   = regexp.MustCompile(`(?is)^CREATE\s+TABLE\s+` + name + `\s*\((.*)\)$`)
	reDrop     = regexp.MustCompile(`(?is)^DROP\s+TABLE\s+(IF\s+EXISTS\s+)?` + name + `$`)
	reInsert   = regexp.MustCompile(`(?is)^INSERT\s+(?:INTO\s+)?` + name + `\s*(?:\(([^)]*)\))?\s*VALUES\s*(.*)$`)
	reUpdate   = regexp.MustCompile(`(?is)^UPDATE\s+` + name + `\s+SET\s+(.*?)(?:\s+WHERE\s+(.*))?$`)
	reDelete   = regexp.MustCompile(`(?is)^DELETE\s+(?:FROM\s+)?` + name + `(?:\s+WHERE\s+(.*))?$`)
	reCount    = regexp.MustCompile(`(?is)^SELECT\s+COUNT\(\s*\*\s*\)(?:\s+AS\s+\w+)?\s+FROM\s+` + name + `(?:\s+WHERE\s+(.*))?$`)
	reTop      = regexp.MustCompile(`(?is)^SELECT\s+TOP\s*\(?\s*(\d+)\s*\)?\s+.*\s+FROM\s+(?:dbo\.)?\[?big\]?$`)
	reSelect   = regexp.MustCompile(`(?is)^SELECT\s+(.*?)\s+FROM\s+` + name + `(?:\s+WHERE\s+(.*?))?(?:\s+ORDER\s+BY\s+(\w+)(?:\s+ASC)?)?$`)
	reSelExpr  = regexp.MustCompile(`(?is)^SELECT\s+(.*)$`)
	reKill     = regexp.MustCompile(`(?is)^KILL\s+(\d+)$`)
	reWait     = regexp.MustCompile(`(?is)^WAITFOR\s+DELAY\s+'(\d+):(\d+):(\d+)(?:\.(\d+))?'$`)
	reCond     = regexp.MustCompile(`(?is)^\[?(\w+)\]?\s*=\s*(.+?)$`)
	reSetPair  = regexp.MustCompile(`(?is)^\[?(\w+)\]?\s*=\s*(.+)$`)
	errUnknown = errors.New("unknown")
)

// ident strips brackets and a dbo. prefix from a table name.
func ident(n string) string {
	n = strings.TrimPrefix(strings.TrimPrefix(n, "dbo."), "[dbo].")
	return strings.Trim(n, "[]")
}

func parseCond(s string) (*cond, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	m := reCond.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, errUnknown
	}
	return &cond{col: m[1], val: strings.TrimSpace(m[2])}, nil
}

// parseStmt matches one statement against the patterns above; anything
// else is an error with SQL Server's text for a syntax error.
func parseStmt(src string) (stmt, error) {
	src = strings.TrimSpace(src)
	b := baseStmt{src}
	fail := func() (stmt, error) {
		word := strings.Fields(src)[0]
		return nil, fmt.Errorf("Incorrect syntax near '%s'. (The hoop stand-in for SQL Server does not run this statement.)", word)
	}
	if m := reUse.FindStringSubmatch(src); m != nil {
		return &useStmt{b, ident(m[1])}, nil
	}
	if m := reDB.FindStringSubmatch(src); m != nil {
		return &dbStmt{b, strings.EqualFold(m[1], "CREATE"), m[2] != "", ident(m[3])}, nil
	}
	if m := reTran.FindStringSubmatch(src); m != nil {
		op := strings.ToLower(m[2])
		if m[1] != "" && op == "begin" {
			return fail()
		}
		return &tranStmt{b, op, m[1] != ""}, nil
	}
	if m := reXAbort.FindStringSubmatch(src); m != nil {
		on := strings.EqualFold(m[1], "ON")
		return &setStmt{b, &on}, nil
	}
	if reSet.MatchString(src) {
		return &setStmt{b, nil}, nil
	}
	if m := reCreate.FindStringSubmatch(src); m != nil {
		var cols []column
		for _, d := range splitTop(m[2], ',') {
			f := strings.Fields(d)
			if len(f) < 2 {
				return fail()
			}
			if strings.HasPrefix(strings.ToUpper(f[0]), "PRIMARY") || strings.HasPrefix(strings.ToUpper(f[0]), "CONSTRAINT") {
				continue
			}
			typ := strings.ToLower(f[1])
			cols = append(cols, column{name: strings.Trim(f[0], "[]"), int: typ == "int" || typ == "bigint" || typ == "smallint" || typ == "tinyint"})
		}
		return &createStmt{b, ident(m[1]), cols}, nil
	}
	if m := reDrop.FindStringSubmatch(src); m != nil {
		return &dropStmt{b, ident(m[2]), m[1] != ""}, nil
	}
	if m := reInsert.FindStringSubmatch(src); m != nil {
		st := &insertStmt{baseStmt: b, table: ident(m[1])}
		if m[2] != "" {
			for _, c := range splitTop(m[2], ',') {
				st.cols = append(st.cols, strings.Trim(c, "[] "))
			}
		}
		for _, tuple := range splitTop(m[3], ',') {
			if !strings.HasPrefix(tuple, "(") || !strings.HasSuffix(tuple, ")") {
				return fail()
			}
			st.rows = append(st.rows, splitTop(tuple[1:len(tuple)-1], ','))
		}
		return st, nil
	}
	if m := reUpdate.FindStringSubmatch(src); m != nil {
		st := &updateStmt{baseStmt: b, table: ident(m[1])}
		for _, p := range splitTop(m[2], ',') {
			pm := reSetPair.FindStringSubmatch(p)
			if pm == nil {
				return fail()
			}
			st.set = append(st.set, [2]string{pm[1], strings.TrimSpace(pm[2])})
		}
		w, err := parseCond(m[3])
		if err != nil {
			return fail()
		}
		st.where = w
		return st, nil
	}
	if m := reDelete.FindStringSubmatch(src); m != nil {
		w, err := parseCond(m[2])
		if err != nil {
			return fail()
		}
		return &deleteStmt{b, ident(m[1]), w}, nil
	}
	if m := reCount.FindStringSubmatch(src); m != nil {
		w, err := parseCond(m[2])
		if err != nil {
			return fail()
		}
		return &selectStmt{baseStmt: b, count: true, table: ident(m[1]), where: w}, nil
	}
	if m := reTop.FindStringSubmatch(src); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &selectStmt{baseStmt: b, top: n, table: "big"}, nil
	}
	if m := reSelect.FindStringSubmatch(src); m != nil {
		st := &selectStmt{baseStmt: b, table: ident(m[2]), orderBy: m[4]}
		if strings.TrimSpace(m[1]) != "*" {
			for _, c := range splitTop(m[1], ',') {
				st.cols = append(st.cols, strings.Trim(c, "[] "))
			}
		}
		w, err := parseCond(m[3])
		if err != nil {
			return fail()
		}
		st.where = w
		return st, nil
	}
	if m := reSelExpr.FindStringSubmatch(src); m != nil {
		return &selectStmt{baseStmt: b, exprs: splitTop(m[1], ',')}, nil
	}
	if m := reKill.FindStringSubmatch(src); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return fail()
		}
		return &killStmt{b, n}, nil
	}
	if m := reWait.FindStringSubmatch(src); m != nil {
		h, _ := strconv.Atoi(m[1])
		mi, _ := strconv.Atoi(m[2])
		s, _ := strconv.Atoi(m[3])
		ms, _ := strconv.Atoi((m[4] + "000")[:3])
		return &waitStmt{b, time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(s)*time.Second + time.Duration(ms)*time.Millisecond}, nil
	}
	return fail()
}

// value evaluates a value term: a literal, NULL or a parameter.
func (s *miniSession) value(term string, ctx execCtx) (any, error) {
	term = strings.TrimSpace(term)
	up := strings.ToUpper(term)
	switch {
	case up == "NULL":
		return nil, nil
	case strings.HasPrefix(term, "@@"):
		switch up {
		case "@@TRANCOUNT":
			return int64(s.tranN), nil
		case "@@SPID":
			return int64(s.spid()), nil
		case "@@VERSION":
			return "Microsoft SQL Server 2022 (RTM) - 16.0.4212.1 (X64) (hoop stand-in)", nil
		}
	case strings.HasPrefix(term, "@"):
		v, ok := ctx.params[strings.ToLower(term)]
		if !ok {
			return nil, fmt.Errorf("Must declare the scalar variable \"%s\".", term)
		}
		return v, nil
	case up == "DB_NAME()":
		return s.db, nil
	case strings.HasPrefix(up, "N'") && strings.HasSuffix(term, "'"):
		return strings.ReplaceAll(term[2:len(term)-1], "''", "'"), nil
	case strings.HasPrefix(term, "'") && strings.HasSuffix(term, "'") && len(term) >= 2:
		return strings.ReplaceAll(term[1:len(term)-1], "''", "'"), nil
	}
	if n, err := strconv.ParseInt(term, 10, 64); err == nil {
		return n, nil
	}
	return nil, fmt.Errorf("Invalid column name '%s'.", term)
}

type stmtError struct {
	num   int32
	class byte
	msg   string
}

func (e *stmtError) Error() string { return e.msg }

func errf(num int32, format string, a ...any) *stmtError {
	return &stmtError{num, 16, fmt.Sprintf(format, a...)}
}

// exec runs one statement and writes its tokens; it reports whether the
// statement failed (the rest of the batch does not run).
func (s *miniSession) exec(st stmt, ctx execCtx, last bool, w *Reply) (failed bool) {
	status := uint16(0)
	if !last {
		status = tds.DoneMore
	}
	tok := ctx.done
	err := s.do(st, ctx, status, w)
	if err == nil {
		s.record(st.text(), ctx)
		return false
	}
	se, ok := err.(*stmtError)
	if !ok {
		se = errf(50000, "%s", err.Error())
	}
	w.Write(s.m.errTok(se.num, se.class, 1, se.msg))
	if s.xabort && s.tranN > 0 {
		w.Write(s.rollback())
	}
	st2 := tds.DoneError
	if ctx.rpc {
		w.Write((&tds.Done{Token: tok, Status: st2}).Append(nil))
	} else {
		w.Write((&tds.Done{Token: tok, Status: st2}).Append(nil))
	}
	return true
}

// done writes the statement's DONE; count < 0 has no row count.
func done(w *Reply, ctx execCtx, status uint16, count int) {
	d := &tds.Done{Token: ctx.done, Status: status}
	if count >= 0 {
		d.Status |= tds.DoneCount
		d.RowCount = uint64(count)
	}
	w.Write(d.Append(nil))
}

func (s *miniSession) do(st stmt, ctx execCtx, status uint16, w *Reply) error {
	m := s.m
	switch st := st.(type) {
	case *useStmt:
		m.mu.Lock()
		ok := m.dbs[strings.ToLower(st.db)]
		m.mu.Unlock()
		if !ok {
			return errf(911, "Database '%s' does not exist. Make sure that the name is entered correctly.", st.db)
		}
		out := tds.EnvString(tds.EnvDatabase, st.db, s.db).Append(nil)
		s.db = st.db
		w.Write(m.infoTok(out, 5701, 1, "Changed database context to '"+st.db+"'."))
		done(w, ctx, status, -1)
	case *dbStmt:
		m.mu.Lock()
		defer m.mu.Unlock()
		key := strings.ToLower(st.db)
		if st.create {
			if m.dbs[key] {
				return errf(1801, "Database '%s' already exists. Choose a different database name.", st.db)
			}
			m.dbs[key] = true
		} else {
			if !m.dbs[key] {
				if st.ifExists {
					done(w, ctx, status, -1)
					return nil
				}
				return errf(3701, "Cannot drop the database '%s', because it does not exist or you do not have permission.", st.db)
			}
			delete(m.dbs, key)
			for k := range m.tables {
				if strings.HasPrefix(k, key+".") {
					delete(m.tables, k)
				}
			}
		}
		done(w, ctx, status, -1)
	case *tranStmt:
		if st.ifOpen && s.tranN == 0 {
			done(w, ctx, status, -1)
			break
		}
		switch st.op {
		case "begin":
			if s.tranN == 0 {
				m.mu.Lock()
				m.tranSeq++
				s.tranDesc = m.tranSeq
				s.snapshot = map[string]*table{}
				for k, t := range m.tables {
					s.snapshot[k] = t.clone()
				}
				m.mu.Unlock()
				w.Write((&tds.EnvChange{Type: tds.EnvBeginTran, NewValue: binary.LittleEndian.AppendUint64(nil, s.tranDesc)}).Append(nil))
			}
			s.tranN++
		case "commit":
			if s.tranN == 0 {
				return errf(3902, "The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION.")
			}
			s.tranN--
			if s.tranN == 0 {
				w.Write((&tds.EnvChange{Type: tds.EnvCommitTran, OldValue: binary.LittleEndian.AppendUint64(nil, s.tranDesc)}).Append(nil))
				s.tranDesc, s.snapshot = 0, nil
			}
		case "rollback":
			if s.tranN == 0 {
				return errf(3903, "The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.")
			}
			w.Write(s.rollback())
		}
		done(w, ctx, status, -1)
	case *killStmt:
		if st.spid == s.spid() {
			return errf(6104, "Cannot use KILL to kill your own process.")
		}
		if !m.kill(st.spid) {
			return errf(6106, "Process ID %d is not an active process ID.", st.spid)
		}
		done(w, ctx, status, -1)
	case *setStmt:
		if st.xabort != nil {
			s.xabort = *st.xabort
		}
		done(w, ctx, status, -1)
	case *createStmt:
		m.mu.Lock()
		defer m.mu.Unlock()
		k := tableKey(s.db, st.table)
		if m.tables[k] != nil {
			return errf(2714, "There is already an object named '%s' in the database.", st.table)
		}
		m.tables[k] = &table{cols: st.cols}
		done(w, ctx, status, -1)
	case *dropStmt:
		m.mu.Lock()
		defer m.mu.Unlock()
		k := tableKey(s.db, st.table)
		if m.tables[k] == nil {
			if st.ifExists {
				done(w, ctx, status, -1)
				return nil
			}
			return errf(3701, "Cannot drop the table '%s', because it does not exist or you do not have permission.", st.table)
		}
		delete(m.tables, k)
		done(w, ctx, status, -1)
	case *insertStmt:
		t, unlock, err := s.table(st.table)
		if err != nil {
			return err
		}
		defer unlock()
		idx, err := t.indexes(st.cols)
		if err != nil {
			return err
		}
		var add [][]any
		for _, r := range st.rows {
			if len(r) != len(idx) {
				return errf(110, "There are fewer columns in the INSERT statement than values specified in the VALUES clause.")
			}
			row := make([]any, len(t.cols))
			for j, term := range r {
				v, err := s.value(term, ctx)
				if err != nil {
					return errf(207, "%s", err.Error())
				}
				row[idx[j]] = coerce(t.cols[idx[j]], v)
			}
			if len(t.cols) > 0 && t.cols[0].int && row[0] != nil {
				for _, old := range append(slices.Clone(t.rows), add...) {
					if old[0] == row[0] {
						return errf(2627, "Violation of PRIMARY KEY constraint. Cannot insert duplicate key in object 'dbo.%s'. The duplicate key value is (%v).", st.table, row[0])
					}
				}
			}
			add = append(add, row)
		}
		t.rows = append(t.rows, add...)
		done(w, ctx, status, len(add))
	case *updateStmt:
		t, match, unlock, err := s.filtered(st.table, st.where, ctx)
		if err != nil {
			return err
		}
		defer unlock()
		n := 0
		for _, r := range t.rows {
			if !match(r) {
				continue
			}
			for _, p := range st.set {
				i := t.col(p[0])
				if i < 0 {
					return errf(207, "Invalid column name '%s'.", p[0])
				}
				v, err := s.value(p[1], ctx)
				if err != nil {
					return errf(207, "%s", err.Error())
				}
				r[i] = coerce(t.cols[i], v)
			}
			n++
		}
		done(w, ctx, status, n)
	case *deleteStmt:
		t, match, unlock, err := s.filtered(st.table, st.where, ctx)
		if err != nil {
			return err
		}
		defer unlock()
		kept := t.rows[:0]
		n := 0
		for _, r := range t.rows {
			if match(r) {
				n++
				continue
			}
			kept = append(kept, r)
		}
		t.rows = kept
		done(w, ctx, status, n)
	case *selectStmt:
		return s.query(st, ctx, status, w)
	default:
		return errf(102, "Incorrect syntax near '%s'.", st.text())
	}
	return nil
}

func (s *miniSession) rollback() []byte {
	s.m.mu.Lock()
	s.m.tables = s.snapshot
	s.m.mu.Unlock()
	out := (&tds.EnvChange{Type: tds.EnvRollbackTran, OldValue: binary.LittleEndian.AppendUint64(nil, s.tranDesc)}).Append(nil)
	s.tranN, s.tranDesc, s.snapshot = 0, 0, nil
	return out
}

// table returns the current database's table name, locked until unlock.
func (s *miniSession) table(name string) (*table, func(), error) {
	s.m.mu.Lock()
	if strings.EqualFold(name, "sys.tables") {
		v := &table{cols: []column{{name: "name"}}}
		prefix := strings.ToLower(s.db) + "."
		for k := range s.m.tables {
			if rest, ok := strings.CutPrefix(k, prefix); ok {
				v.rows = append(v.rows, []any{rest})
			}
		}
		return v, s.m.mu.Unlock, nil
	}
	t := s.m.tables[tableKey(s.db, name)]
	if t == nil {
		s.m.mu.Unlock()
		return nil, nil, errf(208, "Invalid object name '%s'.", name)
	}
	return t, s.m.mu.Unlock, nil
}

// filtered returns the current database's table name, locked until
// unlock, and the test of its WHERE condition.
func (s *miniSession) filtered(name string, c *cond, ctx execCtx) (*table, func([]any) bool, func(), error) {
	t, unlock, err := s.table(name)
	if err != nil {
		return nil, nil, nil, err
	}
	match, err := s.matcher(t, c, ctx)
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	return t, match, unlock, nil
}

func (s *miniSession) matcher(t *table, c *cond, ctx execCtx) (func([]any) bool, error) {
	if c == nil {
		return func([]any) bool { return true }, nil
	}
	i := t.col(c.col)
	if i < 0 {
		return nil, errf(207, "Invalid column name '%s'.", c.col)
	}
	v, err := s.value(c.val, ctx)
	if err != nil {
		return nil, errf(207, "%s", err.Error())
	}
	v = coerce(t.cols[i], v)
	return func(r []any) bool { return v != nil && r[i] == v }, nil
}

func coerce(c column, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		if c.int {
			return x
		}
		return strconv.FormatInt(x, 10)
	case string:
		if c.int {
			if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
				return n
			}
		}
		return x
	case bool:
		if x {
			return coerce(c, int64(1))
		}
		return coerce(c, int64(0))
	}
	return coerce(c, fmt.Sprint(v))
}

func (s *miniSession) query(st *selectStmt, ctx execCtx, status uint16, w *Reply) error {
	switch {
	case st.top > 0:
		cols := []tds.Column{IntColumn("id"), NVarCharColumn("payload")}
		pad := strings.Repeat("x", 486)
		w.Write((&tds.ColMetadata{Columns: cols}).Append(nil))
		var buf []byte
		for i := 1; i <= st.top; i++ {
			payload := fmt.Sprintf("row %09d ", i) + pad
			buf = (&tds.Row{Values: [][]byte{Int4(int32(i)), NVarChar(payload)}}).Append(buf[:0], cols)
			if w.Write(buf) != nil {
				return nil
			}
		}
		done(w, ctx, status, st.top)
		return nil
	case st.exprs != nil:
		var cols []tds.Column
		var vals [][]byte
		for _, e := range st.exprs {
			term, alias := e, ""
			if i := strings.LastIndex(strings.ToUpper(e), " AS "); i > 0 {
				term, alias = strings.TrimSpace(e[:i]), strings.Trim(strings.TrimSpace(e[i+4:]), "[]")
			}
			v, err := s.value(term, ctx)
			if err != nil {
				return errf(207, "%s", err.Error())
			}
			c, b := cell(alias, v)
			cols, vals = append(cols, c), append(vals, b)
		}
		w.Write(ResultSetNoDone(cols, [][][]byte{vals}))
		done(w, ctx, status, 1)
		return nil
	}
	t, match, unlock, err := s.filtered(st.table, st.where, ctx)
	if err != nil {
		return err
	}
	defer unlock()
	var rows [][]any
	for _, r := range t.rows {
		if match(r) {
			rows = append(rows, r)
		}
	}
	if st.count {
		w.Write(ResultSetNoDone([]tds.Column{IntColumn("")}, [][][]byte{{Int4(int32(len(rows)))}}))
		done(w, ctx, status, 1)
		return nil
	}
	idx, err := t.indexes(st.cols)
	if err != nil {
		return err
	}
	if st.orderBy != "" {
		if i := t.col(st.orderBy); i >= 0 {
			slices.SortStableFunc(rows, func(a, b []any) int { return strings.Compare(fmt.Sprintf("%020v", a[i]), fmt.Sprintf("%020v", b[i])) })
		}
	}
	var cols []tds.Column
	for _, i := range idx {
		if t.cols[i].int {
			cols = append(cols, IntColumn(t.cols[i].name))
		} else {
			cols = append(cols, NVarCharColumn(t.cols[i].name))
		}
	}
	var out [][][]byte
	for _, r := range rows {
		var vals [][]byte
		for j, i := range idx {
			if r[i] == nil {
				vals = append(vals, nil)
			} else if cols[j].Type.Type == tds.TypeIntN {
				vals = append(vals, Int4(int32(r[i].(int64))))
			} else {
				vals = append(vals, NVarChar(fmt.Sprint(r[i])))
			}
		}
		out = append(out, vals)
	}
	w.Write(ResultSetNoDone(cols, out))
	done(w, ctx, status, len(out))
	return nil
}

// cell types one computed value: INT for integers that fit, NVARCHAR else.
func cell(name string, v any) (tds.Column, []byte) {
	switch x := v.(type) {
	case nil:
		return IntColumn(name), nil
	case int64:
		if x >= -1<<31 && x < 1<<31 {
			return IntColumn(name), Int4(int32(x))
		}
	}
	return NVarCharColumn(name), NVarChar(fmt.Sprint(v))
}

// ResultSetNoDone returns COLMETADATA and one ROW per row, without the DONE
// (the caller writes it with its own status).
func ResultSetNoDone(cols []tds.Column, rows [][][]byte) []byte {
	out := (&tds.ColMetadata{Columns: cols}).Append(nil)
	for _, r := range rows {
		out = (&tds.Row{Values: r}).Append(out, cols)
	}
	return out
}
