package differential

import (
	"math/rand/v2"
	"strings"
)

// The PostgreSQL generator: held and read statements joined into
// multi-statement texts (simple query) or sent alone through the extended
// protocol, dressed with the ways PostgreSQL reads a text that a lexer may
// not: nested block comments, -- ended by CR, dollar quoting with tags,
// E'' and U&'' strings, standard_conforming_strings, client encodings whose
// second byte may be a backslash or a quote (SJIS, BIG5, GBK), and DO
// bodies, procedures and prepared statements that run a held statement.

// pgEncodings are the client encodings a session starts in (the first most).
var pgEncodings = []string{"UTF8", "LATIN1", "SQL_ASCII", "WIN1252", "SJIS", "BIG5", "GBK", "EUC_JP", "UHC", "GB18030", "WIN866", "LATIN9", "KOI8R", "EUC_KR", "WIN1251"}

var pgHeld = []string{
	"DELETE FROM t", "DELETE FROM t WHERE id=1", "DROP TABLE victim", "UPDATE t SET v='x'", "INSERT INTO t VALUES (9,'z')",
	"TRUNCATE t", "CREATE TABLE differential_n (a int)", "ALTER TABLE t ADD COLUMN differential_c int", "CALL p()",
	"DO $$BEGIN DELETE FROM t; END$$", "WITH x AS (DELETE FROM t RETURNING 1) SELECT * FROM x", "SELECT * INTO differential_s FROM t",
	"EXPLAIN ANALYZE DELETE FROM t", "MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
	"CREATE INDEX differential_i ON t(v)", "DROP PROCEDURE p", "GRANT SELECT ON t TO PUBLIC", "ALTER TABLE victim RENAME TO differential_v2",
	"CREATE FUNCTION differential_f() RETURNS int LANGUAGE sql AS 'SELECT 1'", "DELETE FROM public.t", `DELETE FROM "t"`,
	"INSERT INTO t SELECT 7, 's'", "CREATE VIEW differential_view AS SELECT 1", "COMMENT ON TABLE t IS 'x'", "VACUUM t",
	"DROP TABLE IF EXISTS victim", "UPDATE ONLY t SET v = v", "TABLE t; DELETE FROM t", "CREATE TEMP TABLE differential_tmp (a int)",
}

var pgReads = []string{
	"SELECT 1", "SELECT * FROM t", "SELECT v FROM t WHERE id=1", "SHOW client_encoding", "SET search_path = public",
	"SELECT 'a;b'", `SELECT "id" FROM "t"`, "BEGIN", "COMMIT", "ROLLBACK", "SELECT $$x;y$$", "SELECT $q$ ; $q$",
	"SELECT E'a\\'b'", "SELECT U&'d\\0061t'", "EXPLAIN SELECT 1", "SELECT 'DELETE FROM t'", "TABLE t", "VALUES (1)",
	"SELECT 1 /* c */", "SELECT 2 -- c", "SELECT current_setting('standard_conforming_strings')", "SELECT 1 AS \"DELETE FROM t\"",
	"SET client_encoding = 'SJIS'",
	"SET client_encoding = 'LATIN1'", "SET client_encoding = 'UTF8'", "SET escape_string_warning = off", "SELECT B'101'",
}

func pgOddByte(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return string([]byte{pick(r, byte(0xa0), 0x85, 0x81, 0x95, 0xe0, 0xff, 0xa4, 0x8e)})
	case 1:
		return string([]byte{byte(1 + r.IntN(0x1f))})
	default:
		return pick(r, "\xc2\xa0", "\xe3\x80\x80", "\xc2\x85", "\x7f", "\xef\xbb\xbf")
	}
}

func pgSep(r *rand.Rand) string {
	return pick(r, ";", "; ", ";\n", " ;", ";/* s */", ";-- s\n", ";-- s\r", "\n;\n", ";\t", ";"+pgOddByte(r))
}

// pgTrick hides held statement h where a reader that differs from the
// server may not see it, or shows it where the server does not run it.
func pgTrick(r *rand.Rand, h string) string {
	l := string([]byte{pick(r, byte(0x95), 0x81, 0xa4, 0xe0, 0x8e)})
	switch r.IntN(16) {
	case 0:
		return "SELECT 1 /* a /* b */ ; " + h + " -- */"
	case 1:
		return "SELECT 1 -- x\r" + h
	case 2:
		return "SELECT 1 --" + pgOddByte(r) + "\n" + h
	case 3:
		return "SELECT $a$ ; $a$; " + h
	case 4:
		return "SELECT $a$ $b$ ; " + h + " $b$ $a$"
	case 5:
		return "SELECT 'a\\'; " + h + "; --'"
	case 6: // PostgreSQL parses the whole text before the SET runs
		return "SET escape_string_warning = off; SELECT 'a\\'; " + h + "; --'"
	case 7:
		return "SELECT E'a\\'; " + h + "; --'"
	case 8:
		return "SELECT 'a" + l + "\\'; " + h + "; --'"
	case 9:
		return "SET client_encoding = '" + pick(r, "SJIS", "BIG5", "GBK") + "'; SELECT 'a" + l + "\\'; " + h + "; --'"
	case 10:
		return "DO $$BEGIN EXECUTE 'DEL' || 'ETE FROM t'; END$$"
	case 11:
		return "DO LANGUAGE plpgsql $x$ BEGIN " + h + "; END $x$"
	case 12:
		return "PREPARE s AS " + h + "; EXECUTE s"
	case 13:
		return "CREATE PROCEDURE differential_pp() LANGUAGE sql AS $b$" + h + "$b$; CALL differential_pp()"
	case 14:
		return "SELECT U&'\\0027'; " + h
	default:
		return "SELECT \"a" + l + "\"; " + h
	}
}

func pgPiece(r *rand.Rand, seeds []string) string {
	switch x := r.IntN(100); {
	case x < 40:
		return randomCase(r, pick(r, pgReads...))
	case x < 55:
		return randomCase(r, pick(r, pgHeld...))
	case x < 85:
		return pgTrick(r, pick(r, pgHeld...))
	default:
		s := pick(r, seeds...)
		if chance(r, 0.5) {
			i := r.IntN(len(s) + 1)
			s = s[:i] + pgOddByte(r) + s[i:]
		}
		return s
	}
}

// genPostgres makes one text: one to four pieces, sent as a simple query
// or, sometimes, through the extended protocol (Parse/Bind/Execute: one
// statement only).
func genPostgres(r *rand.Rand, seeds []string) testCase {
	c := testCase{Session: pgEncodings[0], Via: "query"}
	if chance(r, 0.5) {
		c.Session = pick(r, pgEncodings...)
	}
	// standard_conforming_strings is set for the session, never inside a
	// text: after an in-text SET, pg_stat_statements re-reads the text's
	// strings the new way and the backend crashes (PostgreSQL 15.20:
	// SET standard_conforming_strings = off; SELECT 'a\'; SELECT 2; --').
	if chance(r, 0.2) {
		c.Session += ",standard_conforming_strings=off"
	}
	n := 1 + r.IntN(4)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(pgSep(r))
		}
		b.WriteString(pgPiece(r, seeds))
	}
	c.SQL = b.String()
	if n == 1 && chance(r, 0.25) {
		c.Via = "extended"
	}
	return c
}
