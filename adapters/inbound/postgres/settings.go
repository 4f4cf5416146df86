package postgres

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/hoophq/sidecar/adapters/inbound/postgres/analyzer"
)

// CodeUnanalysable is a statement the Sidecar cannot read the way the
// server will (see refusal): 0A000 feature_not_supported.
const CodeUnanalysable = "0A000"

// unsafeEncodings are the client encodings whose multibyte characters may
// end in a backslash byte (PostgreSQL's client-only encodings).
var unsafeEncodings = map[string]bool{"SJIS": true, "SHIFT_JIS_2004": true, "BIG5": true, "GBK": true,
	"UHC": true, "GB18030": true, "JOHAB": true}

// followSetting records a ParameterStatus the analysis depends on (under mu).
func (s *session) followSetting(name, value string) {
	switch name {
	case "standard_conforming_strings":
		s.scsOff = !strings.EqualFold(value, "on")
	case "client_encoding":
		s.clientEncoding = strings.ToUpper(value)
	}
}

// refusal returns an error for a text whose meaning depends on a session
// setting that makes the analyzer's reading wrong (analyzer.LexicalRisk):
// standard_conforming_strings off with a backslash in a plain string, or a
// client encoding that can hide a backslash in a multibyte character. To
// know the setting the server will parse the text with, it first waits for
// every statement sent before to be answered; afterExec is true when
// unanswered Executes of the same pipeline precede the text, and then it
// refuses. It returns nil for the many texts without such a dependency.
func (s *session) refusal(sql string, afterExec bool) *pgproto3.ErrorResponse {
	risk := analyzer.LexicalRisk(sql)
	if !risk.Any() {
		return nil
	}
	if afterExec {
		return unanalysable("it holds a backslash that session settings give meaning to, and statements before it in the same pipeline may change those settings; send it after a Sync")
	}
	if err := s.uw.Flush(); err != nil {
		return unanalysable("the upstream connection failed")
	}
	s.mu.Lock()
	n := s.pushed
	s.mu.Unlock()
	s.waitDrained(n)
	s.mu.Lock()
	scsOff, enc := s.scsOff, s.clientEncoding
	s.mu.Unlock()
	switch {
	case risk.PlainStringBackslash && scsOff:
		return unanalysable("standard_conforming_strings is off and a '…' string holds a backslash; use E'…' strings or SET standard_conforming_strings = on")
	case risk.MultibyteBackslash && unsafeEncodings[enc]:
		return unanalysable("client_encoding " + enc + " can hide a backslash inside a multibyte character; use client_encoding UTF8")
	}
	return nil
}

// uncheckable refuses a text the analyzer could not read though PostgreSQL
// might run it (too large or too deep: analyzer.ErrUncheckable).
func (s *session) uncheckable(res analyzer.Result) *pgproto3.ErrorResponse {
	if !errors.Is(res.Err, analyzer.ErrUncheckable) {
		return nil
	}
	s.log.Warn("postgres statement refused: it cannot be checked", "error", res.Err)
	return unanalysable(res.Err.Error())
}

func unanalysable(why string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: CodeUnanalysable,
		Message: "hoop sidecar: this statement cannot be checked, so nothing was run: " + why}
}
