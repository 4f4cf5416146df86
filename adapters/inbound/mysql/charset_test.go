package mysql

import "testing"

// mayChangeCharset finds its words in any ASCII case, as the lower-case
// copy it once made of every text did.
func TestMayChangeCharsetAnyCase(t *testing.T) {
	for sql, want := range map[string]bool{
		"SET NAMES gbk": true, "set character set sjis": true, "SeT CharSet big5": true, "cAlL p()": true,
		"PREPARE s FROM 'set names gbk'": true, "SELECT c FROM sbtest WHERE id = 500": false, "SELECT 'ÑAMES'": false, "": false,
	} {
		if got := mayChangeCharset(sql); got != want {
			t.Errorf("mayChangeCharset(%q) = %v, want %v", sql, got, want)
		}
	}
}
