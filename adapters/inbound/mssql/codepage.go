package mssql

import (
	"encoding/binary"
	"fmt"

	"github.com/hoophq/sidecar/domain/masking"
	"github.com/hoophq/sidecar/internal/tds"
)

// maskCodePage masks a varchar, char or text value, whose bytes are in its
// collation's code page (MS-TDS 2.2.5.1.2). A value of ASCII bytes only is
// the same text in every code page SQL Server uses, and a UTF-8 collation
// (SQL Server 2019's _UTF8) is read as it is; other bytes are decoded with
// the single-byte Windows code page of the collation (tds.CollationCharmap)
// and the masked text encoded back. A code page this listener does not
// decode (the double-byte ones: Japanese, Chinese, Korean) leaves such a
// value Unreadable.
func maskCodePage(f *masking.Field, ti tds.TypeInfo, v []byte) ([]byte, bool, error) {
	if tds.CollationUTF8(ti.Collation) || ascii(v) {
		out, changed := f.Text(nil, v)
		if !changed {
			return v, false, nil
		}
		return out, !fits(ti, len(out)), nil
	}
	cm := tds.CollationCharmap(ti.Collation)
	if cm == nil {
		lcid := binary.LittleEndian.Uint32(ti.Collation[:4]) & 0xFFFFF
		return unreadable(f, v, fmt.Sprintf("varchar text in the code page of collation LCID 0x%05X sort id %d, which the listener does not decode", lcid, ti.Collation[4]))
	}
	text, err := cm.NewDecoder().Bytes(v)
	if err != nil {
		return unreadable(f, v, "varchar text that does not decode in its collation's code page")
	}
	m, changed := f.Text(nil, text)
	if !changed {
		return v, false, nil
	}
	out, err := cm.NewEncoder().Bytes(m)
	if err != nil { // cannot happen for masked text; never send it in clear
		return v, true, nil
	}
	return out, !fits(ti, len(out)), nil
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
