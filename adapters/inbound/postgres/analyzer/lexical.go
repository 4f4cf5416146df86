package analyzer

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/hoophq/sidecar/internal/analyzerkit"
)

// Risk says which session settings a text's meaning depends on. The
// analyzer reads SQL as PostgreSQL does with standard_conforming_strings on
// and an encoding whose multibyte characters never hold an ASCII byte. Only a
// backslash can make the server read a text differently from that: escaped
// quotes in plain strings (standard_conforming_strings off), or a backslash
// that is the second byte of a character (client encodings SJIS, BIG5, GBK,
// UHC, GB18030, JOHAB, SHIFT_JIS_2004). Quotes, dollar signs and comment
// starters are never such second bytes.
type Risk struct {
	// PlainStringBackslash: a '…' string (not E'…') holds a backslash.
	PlainStringBackslash bool
	// MultibyteBackslash: the text holds a backslash and bytes ≥ 0x80.
	MultibyteBackslash bool
}

// Any reports whether the text depends on a setting at all.
func (r Risk) Any() bool { return r.PlainStringBackslash || r.MultibyteBackslash }

// LexicalRisk returns the text's Risk. A text without a backslash has none.
// A text the scanner refuses counts as depending on both settings.
func LexicalRisk(sql string) Risk {
	if strings.IndexByte(sql, '\\') < 0 || len(sql) > MaxSize {
		return Risk{} // over MaxSize: Analyze refuses the text anyway
	}
	// Analyze, which follows, refuses a text whose client left.
	return analyzerkit.WithBudget(context.Background(), budget, int64(len(sql)), func() Risk { return lexicalRisk(sql) }, func(error) Risk { return Risk{} })
}

func lexicalRisk(sql string) Risk {
	var r Risk
	for i := 0; i < len(sql); i++ {
		if sql[i] >= 0x80 {
			r.MultibyteBackslash = true
			break
		}
	}
	res, err := pg.Scan(sql)
	if err != nil {
		return Risk{PlainStringBackslash: true, MultibyteBackslash: true}
	}
	for _, tok := range res.Tokens {
		if tok.Token != pg.Token_SCONST || tok.Start < 0 || tok.End > int32(len(sql)) || tok.Start >= tok.End {
			continue
		}
		raw := sql[tok.Start:tok.End]
		if raw[0] == '\'' && strings.IndexByte(raw, '\\') >= 0 {
			r.PlainStringBackslash = true
			break
		}
	}
	return r
}
