package mysql

import (
	"encoding/binary"
	"strings"
	"testing"

	gmclient "github.com/go-mysql-org/go-mysql/client"
	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// The rows of a COM_STMT_EXECUTE that opens a cursor come with the
// COM_STMT_FETCHes after it: they are masked with the execute's columns,
// in the local MariaDB (skipped without it).
func TestMaskCursorFetch(t *testing.T) {
	c, err := gmclient.Connect(serveMasked(t, maskSet(t)), "root", "", "")
	if err != nil {
		t.Skipf("no local MariaDB at 127.0.0.1:3306 (root): %v", err)
	}
	defer c.Close()
	st, err := c.Prepare("SELECT CONCAT('user', seq, '@example.com') AS contact, seq AS secret FROM test.seq_1_to_5")
	if err != nil {
		t.Fatal(err)
	}
	exec := binary.LittleEndian.AppendUint32([]byte{0, 0, 0, 0, gm.COM_STMT_EXECUTE}, st.ID)
	exec = append(exec, gm.CURSOR_TYPE_READ_ONLY, 1, 0, 0, 0)
	c.ResetSequence()
	if err := c.WritePacket(exec); err != nil {
		t.Fatal(err)
	}
	var defs [][]byte
	for { // column count, definitions, EOF with SERVER_STATUS_CURSOR_EXISTS
		p, err := c.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		if p[0] == 0xfe {
			break
		}
		defs = append(defs, p)
	}
	var fields []*gm.Field
	for _, d := range defs[1:] {
		f, _ := gm.FieldData(d).Parse()
		fields = append(fields, f)
	}
	fetch := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32([]byte{0, 0, 0, 0, gm.COM_STMT_FETCH}, st.ID), 10)
	c.ResetSequence()
	if err := c.WritePacket(fetch); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		p, err := c.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		if p[0] == 0xfe || p[0] == 0xff {
			break
		}
		v, err := gm.RowData(p).Parse(fields, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(v[0].AsString())+"|"+v[1].String())
	}
	if len(got) != 5 || strings.Contains(strings.Join(got, " "), "example.com") || got[0] != "*****@*******.***|NULL" {
		t.Errorf("fetched %q", got)
	}
}
