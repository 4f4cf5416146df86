// Package rulesdoc reads the effects table of docs/rules.md ("Which
// statements carry which effect"), so that each protocol's tests can check
// every row against that protocol's analyzer and the table cannot drift from
// the code. It is for tests; nothing in the Sidecar's binaries imports it.
package rulesdoc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Row is one example of the table: the protocol (postgres, mysql, mssql,
// mongodb, http, grpc), the statement as `sidecar explain` reads it, the
// effects the analyzer must report (upper case, the whole list, any order)
// and the row's note.
type Row struct {
	Protocol  string
	Statement string
	Effects   []string
	Note      string
	Line      int // 1-based line in docs/rules.md
}

// Path is docs/rules.md in this checkout, found from this source file.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "docs", "rules.md")
}

// Rows returns the rows of the effects table for protocol ("" for every
// protocol), in the order of the file. It fails on a row it cannot read
// (wrong number of cells, a statement not in backquotes, an empty effects
// cell) with the line's number, and when the table has no row for protocol.
func Rows(protocol string) ([]Row, error) {
	f, err := os.Open(Path())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []Row
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "| protocol | statement | effects |"):
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			in = false
			continue
		case strings.HasPrefix(line, "|---"):
			continue
		}
		r, err := parseRow(line, n)
		if err != nil {
			return nil, err
		}
		if protocol == "" || r.Protocol == protocol {
			rows = append(rows, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: the effects table has no row for protocol %q", Path(), protocol)
	}
	return rows, nil
}

// parseRow reads `| protocol | `statement` | A, B | note |`. The statement
// may hold a `|` only inside its backquotes.
func parseRow(line string, n int) (Row, error) {
	bad := func(why string) (Row, error) {
		return Row{}, fmt.Errorf("%s:%d: %s: %s", Path(), n, why, line)
	}
	rest := strings.TrimPrefix(line, "|")
	proto, rest, ok := strings.Cut(rest, "|")
	if !ok {
		return bad("want | protocol | `statement` | effects | note |")
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "`") {
		return bad("the statement must be in backquotes")
	}
	// The statement ends at the first backquote followed by optional
	// spaces and a `|`.
	end := -1
	for i := 1; i < len(rest); i++ {
		if rest[i] == '`' && strings.HasPrefix(strings.TrimLeft(rest[i+1:], " "), "|") {
			end = i
			break
		}
	}
	if end < 0 {
		return bad("the statement's closing backquote is missing")
	}
	stmt := rest[1:end]
	rest = strings.TrimLeft(rest[end+1:], " ")
	rest = strings.TrimPrefix(rest, "|")
	effects, rest, ok := strings.Cut(rest, "|")
	if !ok {
		return bad("want | protocol | `statement` | effects | note |")
	}
	note := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "|"))
	var list []string
	for _, e := range strings.Split(effects, ",") {
		if e = strings.Trim(strings.TrimSpace(e), "`"); e != "" {
			list = append(list, strings.ToUpper(e))
		}
	}
	if len(list) == 0 {
		return bad("the effects cell is empty")
	}
	return Row{Protocol: strings.TrimSpace(proto), Statement: stmt, Effects: list, Note: note, Line: n}, nil
}

// Check runs every row of protocol's effects table through effects (what
// that protocol's analyzer reports for a statement, or an error for one it
// cannot take) and fails t for each row whose effects differ from the
// table's (compared as sets), naming the line. It fails at once when the
// table has fewer than min rows for protocol, so a table cut short cannot
// pass.
func Check(t testing.TB, protocol string, min int, effects func(statement string) ([]string, error)) {
	t.Helper()
	rows, err := Rows(protocol)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < min {
		t.Fatalf("%s has %d %s rows, want at least %d", Path(), len(rows), protocol, min)
	}
	for _, r := range rows {
		got, err := effects(r.Statement)
		if err != nil {
			t.Errorf("docs/rules.md:%d: %s: %v", r.Line, r.Statement, err)
			continue
		}
		if g, w := asSet(got), asSet(r.Effects); !slices.Equal(g, w) {
			t.Errorf("docs/rules.md:%d: %s\n the analyzer reports %v\n the table says      %v", r.Line, r.Statement, g, w)
		}
	}
}

// asSet returns s sorted without repeats, upper case.
func asSet(s []string) []string {
	out := make([]string, 0, len(s))
	for _, e := range s {
		out = append(out, strings.ToUpper(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
