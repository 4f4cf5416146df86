package wire

import "encoding/binary"

// Column is what a result's ColumnDefinition41 packet says of one column
// (MySQL Client/Server Protocol, "Column Definition"): the names a masking
// rule matches and what the values are.
type Column struct {
	Table, OrgTable, Name, OrgName string
	Charset                        uint16 // collation id of the values as sent (63: binary)
	Type                           byte   // MYSQL_TYPE_*
	Flags                          uint16 // UNSIGNED_FLAG (32), BINARY_FLAG (128), …
}

// ParseColumn decodes a ColumnDefinition41 payload; ok is false when p is
// not one.
func ParseColumn(p []byte) (c Column, ok bool) {
	var f [6][]byte // catalog, schema, table, org_table, name, org_name
	for i := range f {
		if f[i], p, ok = LenencString(p); !ok {
			return c, false
		}
	}
	n, k, ok := LenencInt(p) // length of the fixed fields, 0x0c
	if !ok || n < 10 || uint64(len(p)-k) < n {
		return c, false
	}
	p = p[k:]
	c.Table, c.OrgTable, c.Name, c.OrgName = string(f[2]), string(f[3]), string(f[4]), string(f[5])
	c.Charset = binary.LittleEndian.Uint16(p)
	c.Type = p[6]
	c.Flags = binary.LittleEndian.Uint16(p[7:])
	return c, true
}
