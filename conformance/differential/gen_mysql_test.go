package differential

import (
	"math/rand/v2"
	"strings"
)

// The MySQL/MariaDB generator: statements of held and read kinds, joined
// into multi-statement texts and dressed with the tricks of issue 32 and
// the earlier bypass reports (comments of every kind, bytes a character set
// reads as space, multibyte characters whose second byte is a quote or a
// backslash, SET NAMES and sql_mode changes inside the text, executable
// comments, quoting, prepared statements, procedures).

// mysqlCollations are the login collations a session starts in; the first
// is the usual one, so it is picked most.
var mysqlCollations = []string{
	"utf8mb4_general_ci", "latin1_swedish_ci", "gbk_chinese_ci", "sjis_japanese_ci", "big5_chinese_ci",
	"cp932_japanese_ci", "cp1250_general_ci", "cp850_general_ci", "latin7_general_ci", "macroman_general_ci",
	"hebrew_general_ci", "hp8_english_ci", "latin2_general_ci", "koi8r_general_ci", "euckr_korean_ci",
	"gb2312_chinese_ci", "ujis_japanese_ci", "binary", "ascii_general_ci", "utf8_general_ci", "cp1251_general_ci",
	"greek_general_ci", "tis620_thai_ci", "armscii8_general_ci", "geostd8_general_ci", "eucjpms_japanese_ci",
}

// mysqlHeld are statements of kinds the listener's rules hold; each runs
// on the worker's tables (t with rows, victim, procedure p).
var mysqlHeld = []string{
	"DELETE FROM t", "DELETE FROM t WHERE id=1", "DROP TABLE victim", "UPDATE t SET v='x'", "INSERT INTO t VALUES (9,'z')",
	"TRUNCATE t", "TRUNCATE TABLE t", "CREATE TABLE differential_n (a INT)", "ALTER TABLE t ADD COLUMN differential_c INT",
	"RENAME TABLE victim TO differential_v2", "REPLACE INTO t VALUES (1,'r')", "CALL p()", "CALL p", "DELETE t FROM t",
	"INSERT INTO t SELECT 7,'s'", "CREATE INDEX differential_i ON t(v)", "DO 1", "DROP PROCEDURE p",
	"CREATE VIEW differential_view AS SELECT 1", "DELETE FROM `t`", "DELETE FROM {db}.t", "DROP TABLE IF EXISTS victim",
	"INSERT t VALUES (8,'y')", "UPDATE `t` SET `v`=\"q\"", "CREATE PROCEDURE differential_q() SELECT 1",
	"HANDLER t OPEN", "DELETE LOW_PRIORITY FROM t", "DELETE FROM t RETURNING id", "INSERT INTO t VALUES (10,'a') RETURNING id",
	"DROP DATABASE {db}", "ALTER TABLE t ENGINE=InnoDB", "OPTIMIZE TABLE t", "LOCK TABLES t WRITE",
	"CREATE TEMPORARY TABLE differential_tmp (a INT)",
}

// mysqlReads are statements of kinds the rules let through.
var mysqlReads = []string{
	"SELECT 1", "SELECT * FROM t", "SELECT v FROM t WHERE id=1", "SHOW TABLES", "SET @a=1", "SELECT 'a;b'", `SELECT "x;y"`,
	"SELECT `id` FROM `t`", "USE {db}", "BEGIN", "COMMIT", "ROLLBACK", "SELECT @@version", "SELECT 1 FROM DUAL",
	"SHOW VARIABLES LIKE 'sql_mode'", "SELECT 'it''s'", `SELECT 'a\'b'`, "SELECT _latin1'x'", "SELECT N'x'", "SELECT X'41'",
	"SELECT 1 /* c */", "SELECT 2 -- c", "SELECT 3 # c", "SELECT CONCAT('DEL','ETE')", "EXPLAIN SELECT * FROM t",
	"SELECT 'DELETE FROM t'", "SELECT `DELETE FROM t` FROM (SELECT 1 AS `DELETE FROM t`) x", "SAVEPOINT s1",
}

// mysqlStateChanges change how the server reads what follows in the same
// text or session.
var mysqlStateChanges = []string{
	"SET NAMES latin1", "SET NAMES gbk", "SET NAMES sjis", "SET NAMES big5", "SET NAMES cp932", "SET NAMES utf8mb4",
	"SET NAMES binary", "SET CHARACTER SET latin1", "SET CHARACTER SET gbk", "SET character_set_client=gbk",
	"SET character_set_client=latin1", "SET NAMES 'cp1250'", "SET CHARSET sjis", "SET sql_mode='ANSI_QUOTES'",
	"SET sql_mode='NO_BACKSLASH_ESCAPES'", "SET sql_mode='PIPES_AS_CONCAT'", "SET sql_mode='ORACLE'",
	"SET sql_mode='IGNORE_SPACE'", "SET sql_mode='ANSI'", "SET SESSION sql_mode='HIGH_NOT_PRECEDENCE'",
	"SET @@sql_mode='ANSI_QUOTES,NO_BACKSLASH_ESCAPES'", "SET sql_mode=''", "SET NAMES latin1 COLLATE latin1_bin",
}

// oddBytes are single bytes some character set reads as space, control,
// a multibyte lead, or part of a word.
func oddByte(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return string([]byte{pick(r, byte(0xa0), 0x85, 0x81, 0x8d, 0x8f, 0x90, 0x9d, 0xff, 0xad, 0x95, 0xa1, 0xe0)})
	case 1:
		return string([]byte{byte(r.IntN(0x20))})
	case 2:
		return string([]byte{0x80 + byte(r.IntN(0x80))})
	default:
		return pick(r, "\xc2\xa0", "\xe3\x80\x80", "\xc2\x85", "\x7f", "\xe2\x80\xa8", "\xef\xbb\xbf")
	}
}

// leadByte is a byte that starts a two-byte character in gbk, sjis, big5,
// cp932 or euckr (their second byte may be 0x5c or a quote).
func leadByte(r *rand.Rand) string {
	return string([]byte{pick(r, byte(0x95), 0x81, 0x8e, 0xa1, 0xbf, 0xe0, 0xfe, 0x8f, 0xa4)})
}

// sep is what goes between two statements of a text.
func mysqlSep(r *rand.Rand) string {
	return pick(r, ";", "; ", ";\n", " ;", ";"+oddByte(r), ";/* s */", ";-- s\n", ";#s\n", "\n;\n", ";\t")
}

// mysqlSpace is what goes between two words.
func mysqlSpace(r *rand.Rand) string {
	if chance(r, 0.8) {
		return " "
	}
	return pick(r, "\t", "\n", "\r", "\f", "\v", "/**/", "/* x */", "\x00", "\xa0", "\xc2\xa0", "-- x\n", "#x\n", "/*!*/", "--"+oddByte(r)+"\n")
}

// respace puts random separators between words of s.
func respace(r *rand.Rand, s string) string {
	if !chance(r, 0.2) {
		return s
	}
	parts := strings.Split(s, " ")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(mysqlSpace(r))
		}
		b.WriteString(p)
	}
	return b.String()
}

// mysqlVersion is the number of an executable comment, some under the
// server's version (run) and some over it (skipped).
func mysqlVersion(r *rand.Rand) string {
	return pick(r, "", "00000", "32302", "40101", "50000", "50700", "80000", "99999", "100100", "110000", "999999", "5000", "1")
}

// mysqlTrick hides held statement h where a reader that differs from the
// server may not see it, or shows it where the server does not run it.
func mysqlTrick(r *rand.Rand, h string) string {
	b, l := oddByte(r), leadByte(r)
	switch r.IntN(24) % 21 { // 0-2 and 18-20: the kinds issue 32 found, picked more often
	case 0: // issue 32 point 1: -- followed by a byte latin1 reads as space
		return "SELECT 1 --" + b + " /*\n; " + h + "; SELECT 2 --" + b + " */"
	case 1: // issue 32 point 1, second kind: a charset change earlier in the text
		return pick(r, "SET NAMES gbk", "SET NAMES sjis", "SET NAMES big5", "SET NAMES cp932", "SET CHARACTER SET gbk") +
			";SELECT 1 AS `a" + l + "`, 2 AS `;" + h + ";-- `"
	case 2: // a string whose last byte before the quote is a multibyte lead
		return "SELECT 'a" + l + "\\';" + h + ";#'"
	case 3:
		return "SELECT 1 /*!" + mysqlVersion(r) + " ; " + h + " */"
	case 4:
		return "/*M!" + mysqlVersion(r) + " " + h + " */"
	case 5:
		return "/*!" + mysqlVersion(r) + h + "*/"
	case 6:
		return "SELECT 1 /* /* */ ; " + h + " -- */"
	case 7:
		return "SELECT 1--" + b + h
	case 8:
		return "SELECT 1 -- x" + pick(r, "\r", "\n", "\r\n", "\v", "\f") + "; " + h
	case 9:
		return pick(r, mysqlStateChanges...) + ";SELECT \"a\\\";" + h + ";-- \""
	case 10:
		return "SET sql_mode='NO_BACKSLASH_ESCAPES';SELECT 'a\\';" + h + ";-- '"
	case 11:
		return "PREPARE s FROM '" + strings.ReplaceAll(h, "'", "''") + "'; EXECUTE s"
	case 12:
		return "SET @q='" + strings.ReplaceAll(h, "'", "\\'") + "'; PREPARE s FROM @q; EXECUTE s"
	case 13:
		return "CREATE PROCEDURE differential_pp() BEGIN " + h + "; END; CALL differential_pp()"
	case 14:
		return "SELECT `a" + l + "`" + h
	case 15:
		return "SELECT _" + pick(r, "gbk", "sjis", "big5", "latin1", "binary", "utf8mb4") + "'" + l + "\\';" + h + ";#'"
	case 16:
		return "SELECT 1 #" + b + "\n" + h
	case 17:
		return "SELECT '" + b + "'" + mysqlSep(r) + h
	case 18:
		return "SELECT 1 --" + b + " /*\n; " + h + "; SELECT 2 --" + b + " */"
	case 19:
		return pick(r, "SET NAMES gbk", "SET NAMES sjis", "SET NAMES big5") + ";SELECT 1 AS `a" + l + "`, 2 AS `;" + h + ";-- `"
	default:
		return "SELECT 'a" + l + "\\';" + h + ";#'"
	}
}

// mysqlPiece is one statement or trick of a text.
func mysqlPiece(r *rand.Rand, seeds []string) string {
	switch x := r.IntN(100); {
	case x < 35:
		return respace(r, randomCase(r, pick(r, mysqlReads...)))
	case x < 50:
		return respace(r, randomCase(r, pick(r, mysqlHeld...)))
	case x < 60:
		return pick(r, mysqlStateChanges...)
	case x < 85:
		return mysqlTrick(r, randomCase(r, pick(r, mysqlHeld...)))
	default:
		s := pick(r, seeds...)
		if chance(r, 0.5) { // a byte put somewhere in it
			i := r.IntN(len(s) + 1)
			s = s[:i] + oddByte(r) + s[i:]
		}
		return s
	}
}

// genMySQL makes one text: one to four pieces, sent as a text query or,
// when it is one statement, sometimes as a prepared statement.
func genMySQL(r *rand.Rand, seeds []string) testCase {
	c := testCase{Session: mysqlCollations[0], Via: "query"}
	switch x := r.IntN(10); {
	case x < 2:
		c.Session = "latin1_swedish_ci" // issue 32's first finding
	case x < 5:
		c.Session = pick(r, mysqlCollations...)
	}
	n := 1 + r.IntN(4)
	var b strings.Builder
	if chance(r, 0.1) {
		b.WriteString(pick(r, "/* lead */ ", "-- lead\n", "#lead\n", "\n", oddByte(r)))
	}
	for i := range n {
		if i > 0 {
			b.WriteString(mysqlSep(r))
		}
		b.WriteString(mysqlPiece(r, seeds))
	}
	if chance(r, 0.15) {
		b.WriteString(pick(r, ";", " -- tail", " #", " /*", " /*!", "'", "\"", "`", oddByte(r)))
	}
	c.SQL = b.String()
	if n == 1 && chance(r, 0.2) && !strings.Contains(c.SQL, "?") {
		c.Via = "prepare"
	}
	return c
}
