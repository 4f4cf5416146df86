package mysql

import (
	"encoding/binary"
	"testing"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// The server uses a parameter's COM_STMT_SEND_LONG_DATA value even when the
// execute's NULL bitmap marks it NULL (MariaDB and MySQL insert_params), so
// the value the approval covers must be the long data, not NULL: else an
// approval of "… = NULL" would run with any long value sent for it.
func TestLongDataWinsOverTheNullBit(t *testing.T) {
	// one parameter: NULL bitmap 0x01, new-params-bound 1, type VAR_STRING.
	p := []byte{0x01, 0x01, 0xfd, 0x00}
	got, _, err := decodeParams(p, 1, nil, map[int][]byte{0: []byte("admin")})
	if err != nil || len(got) != 1 || got[0] != "'admin'" {
		t.Fatalf("long data 'admin' with the NULL bit set renders %q %v, want 'admin'", got, err)
	}
}

// stmtHandler prepares every text with one parameter and answers every
// execute with OK.
type stmtHandler struct{ oneHandler }

func (stmtHandler) HandleStmtPrepare(string) (int, int, any, error) { return 1, 0, nil, nil }
func (stmtHandler) HandleStmtExecute(any, string, []any) (*gm.Result, error) {
	return gm.NewResultReserveResultset(0), nil
}

// The parameter types an execute binds reach the server only when the
// execute is forwarded: a denied execute must not change the types a later
// execute without types (new-params-bound 0) is read with, or the approval
// would cover values the server reads with other types.
func TestDeniedExecuteKeepsTheServersTypes(t *testing.T) {
	addr, _, _ := serveListener(t, upstreamStandInWith(t, stmtHandler{}), 0)
	c, err := gmclient.Connect(addr, "agent", "pw", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Prepare("DELETE FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(body ...byte) []byte {
		p := binary.LittleEndian.AppendUint32([]byte{gm.COM_STMT_EXECUTE}, st.ID)
		p = append(append(p, 0, 1, 0, 0, 0), body...)
		c.ResetSequence()
		if err := c.WritePacket(append(make([]byte, 4), p...)); err != nil {
			t.Fatal(err)
		}
		r, err := c.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// bound with LONGLONG 1: held (rule DELETE), never reaches the server.
	if r := exec(0x00, 0x01, gm.MYSQL_TYPE_LONGLONG, 0, 1, 0, 0, 0, 0, 0, 0, 0); r[0] != 0xff || binary.LittleEndian.Uint16(r[1:]) != 1227 {
		t.Fatalf("first execute: %q, want ERR 1227", r)
	}
	// no types: the server has none, so the listener must not read the value as a LONGLONG.
	r := exec(0x00, 0x00, 1, 0, 0, 0, 0, 0, 0, 0)
	if r[0] != 0xff || binary.LittleEndian.Uint16(r[1:]) != gm.ER_MALFORMED_PACKET {
		t.Fatalf("an execute without types after a denied one: %q, want ERR 1835 (no types bound)", r)
	}
}
