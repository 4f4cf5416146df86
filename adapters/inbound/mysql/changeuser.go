package mysql

import (
	"encoding/binary"
	"errors"
	"fmt"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/domain"
)

// changeUser re-identifies the session on COM_CHANGE_USER: the command is
// relayed to the upstream, which checks the new user's credentials (the
// client computed its scramble over the upstream's nonce, as at login),
// and the auth exchange is relayed as at login (auth.go). Once the upstream
// answers OK, the new user is the identity, its database the current one
// and its program_name decides return mode; prepared statements are gone,
// as in the server. A refused COM_CHANGE_USER ends the connection, as the
// server ends it.
func (s *session) changeUser(p []byte, seq byte) error {
	cu, err := parseChangeUser(p[1:], s.caps)
	if err != nil {
		return err
	}
	if _, err := wire.Write(s.uw, seq, p); err != nil {
		return err
	}
	a := &authExchange{s: s, cseq: seq + 1, useq: seq + 1, nonce: s.nonce, plugin: cu.Plugin}
	status, err := a.run()
	if errors.Is(err, errLoginRefused) {
		s.log.Info("mysql COM_CHANGE_USER refused by the upstream", "user", cu.User)
		return errQuit
	}
	if err != nil {
		return err
	}
	s.log.Info("mysql session changed user", "from", s.user, "to", cu.User)
	s.user, s.database, s.status = cu.User, cu.Database, status
	s.returnMode = domain.WantsReturnMode(cu.Attributes["program_name"])
	for _, st := range s.stmts {
		st.clearLong()
	}
	s.stmts, s.sqlPrepared, s.txFailed = map[uint32]*prepared{}, map[string]domain.Analysis{}, false
	return s.refreshReading() // its character set field may name any (charset.go)
}

// parseChangeUser decodes a COM_CHANGE_USER payload after its command byte
// (MySQL Client/Server Protocol, "COM_CHANGE_USER").
func parseChangeUser(p []byte, caps uint32) (*wire.HandshakeResponse41, error) {
	h := &wire.HandshakeResponse41{}
	user, p, _ := wire.CString(p)
	h.User = user
	if len(p) < 1 || len(p)-1 < int(p[0]) {
		return nil, wire.Errorf("COM_CHANGE_USER: bad auth response length")
	}
	h.AuthResponse, p = p[1:1+int(p[0])], p[1+int(p[0]):]
	h.Database, p, _ = wire.CString(p)
	if len(p) >= 2 {
		p = p[2:] // character set
	}
	if caps&gm.CLIENT_PLUGIN_AUTH != 0 && len(p) > 0 {
		h.Plugin, p, _ = wire.CString(p)
	}
	if caps&gm.CLIENT_CONNECT_ATTRS != 0 && len(p) > 0 {
		v, _, ok := wire.LenencString(p)
		if !ok {
			return nil, wire.Errorf("COM_CHANGE_USER: bad attributes length")
		}
		attrs, err := wire.ParseAttributes(v)
		if err != nil {
			return nil, err
		}
		h.Attributes = attrs
	}
	return h, nil
}

// processKill decides the deprecated COM_PROCESS_KILL as the statement it
// means, KILL CONNECTION <id>, sent as a COM_QUERY.
func (s *session) processKill(p []byte, seq byte) error {
	if len(p) < 5 {
		return wire.Errorf("COM_PROCESS_KILL of %d bytes", len(p))
	}
	id := binary.LittleEndian.Uint32(p[1:])
	return s.query(fmt.Appendf([]byte{gm.COM_QUERY}, "KILL CONNECTION %d", id), seq)
}
