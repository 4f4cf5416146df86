package mysql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
	"github.com/hoophq/sidecar/domain"
)

// beforeRun are the ERR numbers MySQL and MariaDB raise while they parse a
// statement, resolve its names or check its privileges, before executing
// any of it (MariaDB error reference). An ERR raised while executing (1051
// after DROP TABLE dropped the tables before the missing one, 1062, 1213,
// 1205, a SIGNAL) is no proof.
var beforeRun = map[uint16]bool{
	1044: true, // ER_DBACCESS_DENIED_ERROR
	1046: true, // ER_NO_DB_ERROR
	1049: true, // ER_BAD_DB_ERROR
	1054: true, // ER_BAD_FIELD_ERROR
	1064: true, // ER_PARSE_ERROR
	1142: true, // ER_TABLEACCESS_DENIED_ERROR
	1143: true, // ER_COLUMNACCESS_DENIED_ERROR
	1146: true, // ER_NO_SUCH_TABLE
	1149: true, // ER_SYNTAX_ERROR
	1210: true, // ER_WRONG_ARGUMENTS (COM_STMT_EXECUTE)
	1227: true, // ER_SPECIFIC_ACCESS_DENIED_ERROR
	1243: true, // ER_UNKNOWN_STMT_HANDLER
	1290: true, // ER_OPTION_PREVENTS_STATEMENT (--read-only)
	1295: true, // ER_UNSUPPORTED_PS
	1370: true, // ER_PROCACCESS_DENIED_ERROR
	1792: true, // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
}

// proof returns the proof that nothing of a forwarded command ran
// (domain.NothingRan; spend_approval_on: accepted), or the zero value,
// which spends. a is the relayed answer, res the analysis of the command's
// text (a COM_QUERY, or the prepared text of a COM_STMT_EXECUTE).
//
// The proof is an answer that is one ERR from its first packet, with a
// number in beforeRun, to a text of exactly one statement that cannot run
// part of itself: not a CALL or an EXECUTE (a procedure or a prepared text
// runs statement by statement), naming at most one object (DROP TABLE a,
// missing drops a, then answers ERR 1051), calling no function (a stored
// function can write before it fails), and not LOAD DATA LOCAL (its ERR
// comes after the transfer). A multi-statement text runs up to its first
// ERR, so an ERR to it is no proof either. docs/mysql-listener.md.
func proof(a answer, res analyzer.Result) domain.NothingRan {
	if a.first != 0xff || !beforeRun[a.code] || res.Err != nil || len(res.Statements) != 1 {
		return domain.NothingRan{}
	}
	x := res.Statements[0]
	an := x.Analysis
	if x.Execute != "" || x.Prepare != nil || x.LoadLocal || objects(an.Targets) > 1 || len(an.Functions) > 0 ||
		slices.Contains(an.Actions, "CALL") || slices.Contains(an.Actions, domain.ActionUnknown) {
		return domain.NothingRan{}
	}
	return domain.RefusedBeforeRun(fmt.Sprintf("ERR %d (%s)", a.code, a.state))
}

// objects counts the objects a statement names: the analyzer lists a table
// both as db.table and as table, and a database or a user bare.
func objects(targets []string) int {
	n := 0
	for _, t := range targets {
		if strings.Contains(t, ".") {
			n++
		}
	}
	if n == 0 {
		return len(targets)
	}
	return n
}
