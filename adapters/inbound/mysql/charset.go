package mysql

import (
	"fmt"
	"strings"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
)

// The analyzer reads a text as the server does only in the session's
// client character set and sql_mode (analyzer.Mode): which bytes are
// whitespace outside a literal (latin1 0xA0), whether a character may end
// in a backslash (gbk), whether "…" is a string (ANSI_QUOTES). The session
// follows them from what the server says:
//   - at login it asks SELECT @@character_set_client, @@sql_mode (the
//     handshake's collation only when that fails: the server may ignore
//     it);
//   - after a text that sets them with constants (SET NAMES latin1,
//     SET sql_mode='ANSI_QUOTES') and ran whole, it takes the analyzer's
//     reading of the text's end (analyzer.Result.Leaves);
//   - after a text that may change them in a way only the server knows
//     (CALL, EXECUTE, SET from an expression, a text that failed part-way,
//     a text the parser refused that names them), after COM_CHANGE_USER and
//     COM_RESET_CONNECTION, it asks again (which, like any statement,
//     resets the warnings and ROW_COUNT() the client could read next);
//   - NO_BACKSLASH_ESCAPES comes from the status flags of every answer.
//
// A COM_STMT_EXECUTE of a statement prepared from a text naming them is
// followed by an ask too.

// readingQuery asks the upstream for what decides how it reads a text.
const readingQuery = "SELECT @@character_set_client, @@sql_mode"

// handshakeReading is the reading a handshake's collation id names, for a
// session whose server could not be asked.
func handshakeReading(id byte) analyzer.Mode {
	cs := analyzer.CollationCharset(id)
	if cs == "" {
		cs = fmt.Sprintf("collation %d", id)
	}
	return analyzer.Mode{Charset: cs}
}

// refreshReading asks the upstream for its client character set and
// sql_mode (answered to the listener only) and reads later texts in them.
// An ERR answer leaves the reading strict: an unknown character set, every
// sql_mode reading tried (analyzer.Mode.Exact false).
func (s *session) refreshReading() error {
	row, err := s.askRow(readingQuery, 2)
	if err != nil {
		return err
	}
	if row == nil || row[0] == nil || row[1] == nil {
		s.readingUnsure()
		return nil
	}
	m := analyzer.Mode{Charset: strings.ToLower(string(row[0])), Exact: true}
	s.reading = m.WithSQLMode(string(row[1]))
	return nil
}

// readingUnsure makes the session read strictly until the server is asked
// again: a character set the analyzer does not know, sql_mode not exact.
func (s *session) readingUnsure() {
	s.reading = analyzer.Mode{Charset: "unknown (not asked of the server)", MultiByte: true}
}

// followReading records how the upstream reads texts after it ran sql
// (analysed as res); ran: the whole text ran without an ERR.
func (s *session) followReading(sql string, res analyzer.Result, ran bool) error {
	switch {
	case res.Changes && ran && res.LeavesKnown:
		m := res.Leaves
		m.MultiByte = s.reading.MultiByte
		m.Exact = s.reading.Exact
		s.reading = m
		return nil
	case res.Changes, res.Err != nil && mayChangeCharset(sql):
		return s.refreshReading()
	}
	return nil
}

// executeAndFollow runs a COM_STMT_EXECUTE (prepared.go) and then, when
// the statement was prepared from a text that may change the reading
// (mayChangeCharset: SET NAMES, CALL, …), asks the upstream again.
func (s *session) executeAndFollow(p []byte, seq byte) error {
	change := false
	if len(p) >= 10 { // shorter: execute refuses it as malformed
		_, st := s.stmtID(p)
		change = st != nil && mayChangeCharset(st.text)
	}
	if err := s.execute(p, seq); err != nil || !change {
		return err
	}
	return s.refreshReading()
}

// analysisMode is the mode a text is read in now: the session's reading
// with NO_BACKSLASH_ESCAPES from the last answer's status flags.
func (s *session) analysisMode() analyzer.Mode {
	m := s.reading
	m.NoBackslashEscapes = s.status&gm.SERVER_STATUS_NO_BACKSLASH_ESCAPED != 0
	return m
}

// mayChangeCharset reports whether a text may change how the upstream
// reads later texts: it names NAMES, CHARSET, CHARACTER (SET NAMES, SET
// CHARACTER SET, character_set_client) or sql_mode anywhere, even in a
// string (a PREPARE text), or calls a procedure. The check is by words,
// not by the analysis.
func mayChangeCharset(sql string) bool {
	return containsWord(sql, "names") || containsWord(sql, "charset") ||
		containsWord(sql, "character") || containsWord(sql, "call") || containsWord(sql, "sql_mode")
}

// containsWord reports whether sql holds word (lower-case ASCII) in any mix
// of ASCII case, without the copy strings.ToLower makes of every text.
func containsWord(sql, word string) bool {
	for i := 0; i+len(word) <= len(sql); i++ {
		j := 0
		for j < len(word) && lowerASCII(sql[i+j]) == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
