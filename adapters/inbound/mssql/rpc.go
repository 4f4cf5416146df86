package mssql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/hoophq/sidecar/adapters/inbound/mssql/analyzer"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/tds"
)

// prepared is one prepared statement of a session, as the upstream
// returned its handle (sp_prepare, sp_prepexec).
type prepared struct {
	decl, text string
}

// rpc decides an RPC request (MS-TDS 2.2.6.6): every call in it is one
// unit. A call that runs a text with values (sp_executesql, sp_prepexec,
// sp_execute, sp_cursoropen) is analysed as that text; a call to any other
// procedure by name goes to the analyzer's AnalyzeProc; sp_prepare,
// sp_unprepare and the cursor calls that run no new statement are not
// decided. A prepared handle the upstream returns is remembered with its
// text, so sp_execute is decided on the prepared statement and its values.
func (s *session) rpc(m tds.Message) error {
	r, err := tds.DecodeRPC(m.Data)
	var ut *tds.UnknownTypeError
	if errors.As(err, &ut) {
		s.log.Warn("mssql RPC refused: a parameter type the listener does not read", "type", fmt.Sprintf("0x%02X", ut.Type))
		return s.refuse(errUnsupportedType.with(fmt.Sprintf("hoop sidecar: this RPC has a parameter of data type 0x%02X (a table-valued or CLR user-defined type parameter), which the listener cannot check, so nothing was run", ut.Type)), tds.TokenDoneProc)
	}
	var ur *tds.UnreadableError
	if errors.As(err, &ur) {
		s.log.Warn("mssql RPC refused: bytes the server may frame otherwise than the listener reads them", "why", ur.Why)
		return s.refuse(errUnsupportedType.with("hoop sidecar: this RPC has "+ur.Why+", which the listener cannot check, so nothing was run"), tds.TokenDoneProc)
	}
	if err != nil {
		return protoErr("RPC: %v", err)
	}
	s.learnTx(r.Headers)
	if s.doomed {
		word := ""
		if len(r.Calls) == 1 {
			if text, _, ok := r.Calls[0].Statement(); ok {
				word = txWordOf(text)
			}
		}
		if done, err := s.afterDoomed(word, tds.TokenDoneProc); done {
			return err
		}
	}
	set := s.l.Settings()
	db := s.currentDB()
	u := &unit{}
	var renders []string
	var prep *prepared // the statement whose handle the answer returns
	// Handles this message unprepares are forgotten at once, whether it
	// runs and whatever its answer says (an error later in it, an
	// Attention; a handle forgotten too soon is only UNKNOWN later): the
	// server may hand a freed handle to the next statement prepared, and an
	// sp_execute of it must not be decided on the old text. An sp_execute
	// of one later in the same message is UNKNOWN.
	unprepared := map[int32]bool{}
	for _, c := range r.Calls {
		switch c.Proc() {
		case tds.ProcExecuteSQL, tds.ProcPrepExec, tds.ProcCursorOpen:
			text, values, ok := c.Statement()
			if !ok {
				s.unknownCall(u, &renders, c, "its statement parameter is missing or not text")
				continue
			}
			decl := declOf(c)
			s.execCall(u, &renders, decl, text, values, db)
			u.cursorOpen = u.cursorOpen || c.Proc() == tds.ProcCursorOpen
			if c.Proc() == tds.ProcPrepExec && len(r.Calls) == 1 && handleOut(c) {
				prep = &prepared{decl: decl, text: text}
			}
		case tds.ProcExecute:
			h, ok := handleOf(c)
			p := s.prepared[h]
			if !ok || p == nil || unprepared[h] {
				s.unknownCall(u, &renders, c, "sp_execute of a prepared handle the listener did not see prepared")
				continue
			}
			s.execCall(u, &renders, p.decl, p.text, c.Params[1:], db)
		case tds.ProcPrepare:
			if text, _, ok := c.Statement(); ok && len(r.Calls) == 1 && handleOut(c) {
				prep = &prepared{decl: declOf(c), text: text}
			}
		case tds.ProcUnprepare:
			if h, ok := handleOf(c); ok {
				unprepared[h] = true
				s.forget(h)
			} else { // which handle it frees is unknown: forget them all
				s.forgetAll()
			}
		case tds.ProcCursorFetch, tds.ProcCursorOption, tds.ProcCursorClose, tds.ProcCursorUnprepare, tds.ProcCursorPrepare:
			// Runs no new statement. A fetch returns the rows of the
			// cursor's statement, for the masking (maskPlan).
			u.cursorFetch = u.cursorFetch || c.Proc() == tds.ProcCursorFetch
		case 0:
			if c.ProcName == "" {
				s.unknownCall(u, &renders, c, fmt.Sprintf("a call to procedure id %d", c.ProcID))
				continue
			}
			res := analyzer.AnalyzeProc(c.ProcName, db)
			s.addResult(u, res)
			u.canonical = appendProc(u.canonical, c.ProcName, c.Params)
			renders = append(renders, displayProc(c.ProcName, c.Params))
		default: // sp_cursor, sp_cursorprepexec, sp_cursorexecute, sp_prepexecrpc
			s.unknownCall(u, &renders, c, "a server-cursor call whose statement the listener does not follow")
		}
	}
	u.render = func() string { return strings.Join(renders, "\n") + onDatabase(db) }
	if s.ctx.Err() != nil { // the client left while a text waited: uncheckable, nothing forwarded
		return errGoneUnread
	}
	return s.decideAndRun(set, u, m, tds.TokenDoneProc, exchangeOpts{wantHandle: prep != nil}, func(resp response) {
		if resp.failed || resp.attn {
			return
		}
		if prep != nil && resp.handle != nil {
			s.remember(*resp.handle, prep)
		}
	})
}

// maxPreparedBytes bounds the text the listener keeps for one session's
// prepared handles: a client that prepares without end must not exhaust
// the process's memory. Past it a handle is not remembered, and an
// sp_execute of it is UNKNOWN (fail closed).
const maxPreparedBytes = 16 << 20

// remember records the statement of handle h (the decider's).
func (s *session) remember(h int32, p *prepared) {
	s.forget(h)
	n := len(p.decl) + len(p.text)
	if s.preparedBytes+n > maxPreparedBytes {
		s.log.Warn("mssql prepared statement not remembered: the session's prepared texts are at their bound; an sp_execute of it is UNKNOWN", "bound", maxPreparedBytes)
		return
	}
	s.prepared[h] = p
	s.preparedBytes += n
}

// forget drops handle h.
func (s *session) forget(h int32) {
	if p := s.prepared[h]; p != nil {
		s.preparedBytes -= len(p.decl) + len(p.text)
		delete(s.prepared, h)
	}
}

// forgetAll drops every handle.
func (s *session) forgetAll() {
	clear(s.prepared)
	s.preparedBytes = 0
}

// execCall adds a call that runs text with values to u.
func (s *session) execCall(u *unit, renders *[]string, decl, text string, values []tds.Param, db string) {
	s.addResult(u, s.p.cache.AnalyzeContext(s.ctx, text, db))
	u.canonical = appendExec(u.canonical, decl, text, values)
	*renders = append(*renders, displayExec(text, values))
}

// addResult adds the analyzer's statements to u.
func (s *session) addResult(u *unit, res analyzer.Result) {
	for _, st := range res.Statements {
		u.parts = append(u.parts, st.Analysis)
	}
	if res.Err != nil && u.why == "" {
		u.why = res.Err.Error()
	}
	if errors.Is(res.Err, analyzer.ErrUncheckable) {
		u.uncheckable = true
	}
	u.last = res
}

// unknownCall adds a call the listener cannot read as UNKNOWN (fail
// closed), with why.
func (s *session) unknownCall(u *unit, renders *[]string, c tds.RPCCall, why string) {
	// It runs a text the listener does not see: UNKNOWN, and a body
	// nobody read (docs/rules.md, RUNS_CODE).
	u.parts = append(u.parts, domain.UnreadRun())
	if u.why == "" {
		u.why = why
	}
	name := c.ProcName
	if name == "" {
		name = fmt.Sprintf("procedure id %d", c.ProcID)
	}
	u.canonical = appendProc(u.canonical, name, c.Params)
	*renders = append(*renders, displayProc(name, c.Params))
}

// declOf returns the parameter declaration (@params) of sp_executesql,
// sp_prepare or sp_prepexec: the text parameter before the statement's
// values ("" when absent or not text).
func declOf(c tds.RPCCall) string {
	i := 1
	if c.Proc() == tds.ProcCursorOpen {
		return ""
	}
	if i >= len(c.Params) {
		return ""
	}
	p := c.Params[i]
	switch p.Type.Type {
	case tds.TypeNVarChar, tds.TypeNChar, tds.TypeNText:
		return tds.DecodeUCS2(p.Value)
	case tds.TypeBigVarChar, tds.TypeBigChar, tds.TypeVarChar, tds.TypeChar, tds.TypeText:
		return string(p.Value)
	}
	return ""
}

// handleOf reads the prepared handle, the first parameter of sp_execute
// and sp_unprepare (an int). SQL Server binds it by position whatever its
// name (tds.RPCCall.Statement), so a value of the statement's own named
// @handle is a value, not the handle.
func handleOf(c tds.RPCCall) (int32, bool) {
	if len(c.Params) == 0 || len(c.Params[0].Value) != 4 {
		return 0, false
	}
	return int32(binary.LittleEndian.Uint32(c.Params[0].Value)), true
}

// handleOut reports whether the call's first parameter is @handle OUTPUT:
// only then is the answer's RETURNVALUE of ordinal 0 the handle the server
// prepared (an OUTPUT value of the statement's own would carry whatever
// the statement put in it).
func handleOut(c tds.RPCCall) bool {
	return len(c.Params) > 0 && c.Params[0].Status&tds.ParamByRef != 0
}
