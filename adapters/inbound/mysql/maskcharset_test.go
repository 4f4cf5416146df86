package mysql

import "testing"

// TestWideCollationCharset: ids above 255 as MariaDB 10.11's
// information_schema.COLLATION_CHARACTER_SET_APPLICABILITY names them (the
// derived lookup was checked against that whole table when it replaced
// it), and ids it does not assign.
func TestWideCollationCharset(t *testing.T) {
	for id, want := range map[uint16]string{
		576: "utf8mb3", 610: "utf8mb4", 642: "ucs2", 672: "utf16", 738: "utf32",
		1032: "latin1", 1108: "big5", 1080: "utf16le", 1270: "utf8mb4",
		2048: "utf8mb3", 2304 + 167: "utf8mb4", 2560 + 184: "ucs2", 2816 + 199: "utf16", 3271: "utf32",
		256: "", 579: "", 704: "", 1024: "", 2048 + 168: "", 2048 + 200: "", 3328: "", 65535: "",
	} {
		if got := wideCollationCharset(id); got != want {
			t.Errorf("collation %d: got %q, want %q", id, got, want)
		}
	}
}
