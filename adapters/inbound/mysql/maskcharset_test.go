package mysql

import (
	"testing"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
)

// TestWideCollationCharsetMatchesTable: the derived lookup reads every id
// of the table measured on MariaDB 10.11 as the same character set, and
// names no id the table lacks but a NO PAD twin (1024+x) of an id below 256.
func TestWideCollationCharsetMatchesTable(t *testing.T) {
	for id := 256; id < 1<<16; id++ {
		got, want := wideCollationCharset(uint16(id)), wideCollations[uint16(id)]
		if want == "" && id >= 1024 && id < 1280 {
			want = analyzer.CollationCharset(byte(id - 1024))
		}
		if got != want {
			t.Errorf("collation %d: got %q, want %q", id, got, want)
		}
	}
}
