package mysql

import (
	"strings"
	"testing"
)

// sidecar validate accepts the analyzer's actions in any case and names the
// doc for a typo.
func TestCheckAction(t *testing.T) {
	p := New(nil)
	for _, a := range []string{"DROP_TABLE", "delete", "LOAD_DATA", "UNKNOWN", "KILL"} {
		if err := p.CheckAction(a); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	if err := p.CheckAction("DORP"); err == nil || !strings.Contains(err.Error(), "docs/mysql-listener.md") {
		t.Fatalf("DORP: %v", err)
	}
}

// Bound values are rendered as text: the same number in another integer
// width is the same statement, a string is not a number, NULL is not 'NULL'.
func TestExecuteCanonicalBytes(t *testing.T) {
	exec := func(typ byte, flags byte, v []byte, null bool) []byte {
		bitmap := byte(0)
		if null {
			bitmap = 1
		}
		p := append([]byte{bitmap, 1, typ, flags}, v...)
		params, _, err := decodeParams(p, 1, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return canonicalExecute("DELETE FROM t WHERE id = ?", params)
	}
	tiny := exec(0x01, 0, []byte{1}, false)
	long := exec(0x08, 0, []byte{1, 0, 0, 0, 0, 0, 0, 0}, false)
	str := exec(0xfd, 0, []byte{1, '1'}, false)
	null := exec(0x06, 0, nil, true)
	nullStr := exec(0xfd, 0, []byte{4, 'N', 'U', 'L', 'L'}, false)
	neg := exec(0x01, 0, []byte{0xff}, false)
	unsigned := exec(0x01, 0x80, []byte{0xff}, false)
	if string(tiny) != string(long) {
		t.Error("1 as TINY and as LONGLONG differ")
	}
	for _, pair := range [][2][]byte{{tiny, str}, {null, nullStr}, {neg, unsigned}} {
		if string(pair[0]) == string(pair[1]) {
			t.Errorf("%q and %q are the same statement", pair[0], pair[1])
		}
	}
	if d := displayExecute("SELECT ?", []string{"-1"}, "db"); d != "SELECT ?\n-- parameters: -1\n-- database: db" {
		t.Errorf("display %q", d)
	}
}
