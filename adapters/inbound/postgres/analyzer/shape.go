package analyzer

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// shapeKey returns a key under which sql shares its analysis with every text
// that differs from it only in constants (numbers, strings, bit strings) and
// comments, so that a cache can answer "SELECT … WHERE aid = 1" and "… = 2"
// with one parse. It uses PostgreSQL's own scanner, so it splits the text
// exactly as the parser does.
//
// ok is false unless sql is one statement that starts with SELECT, INSERT,
// UPDATE, DELETE, WITH, VALUES or TABLE: in those, no constant changes the
// analysis (statement kinds, relation names and function names are never
// constants), except the constant after UESCAPE, which decodes a U&"…"
// identifier: a text with UESCAPE is not shaped. Other statements (EXPLAIN
// options, for one, are constants that matter) are keyed by their exact
// text only.
func shapeKey(sql string) (key string, ok bool) {
	res, err := pg.Scan(sql)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(sql) + 16)
	b.WriteString("\x00shape-v1")
	first, ended := true, false
	for _, tok := range res.Tokens {
		switch tok.Token {
		case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT:
			continue
		case pg.Token_UESCAPE:
			return "", false // its constant decides what a U& identifier names
		}
		if ended {
			return "", false // a second statement
		}
		if first {
			switch tok.Token {
			case pg.Token_SELECT, pg.Token_INSERT, pg.Token_UPDATE, pg.Token_DELETE_P, pg.Token_WITH, pg.Token_VALUES, pg.Token_TABLE:
			default:
				return "", false
			}
			first = false
		}
		b.WriteByte(0)
		switch tok.Token {
		case pg.Token_ICONST, pg.Token_FCONST, pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST:
			b.WriteString("\x01")
			b.WriteString(strconv.Itoa(int(tok.Token)))
		case pg.Token_ASCII_59:
			ended = true
		default:
			if tok.Start < 0 || tok.End > int32(len(sql)) || tok.Start > tok.End {
				return "", false
			}
			b.WriteString(sql[tok.Start:tok.End])
		}
	}
	if first {
		return "", false
	}
	return b.String(), true
}
