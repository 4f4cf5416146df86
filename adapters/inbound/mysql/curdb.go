package mysql

import (
	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"

	gm "github.com/go-mysql-org/go-mysql/mysql"
)

// refreshDatabase asks the upstream for its current database (SELECT
// DATABASE(), answered to the listener only) and makes it the session's:
// after a text that failed part-way, only the upstream knows whether its
// USE ran. A NULL answer is no current database.
func (s *session) refreshDatabase() error {
	row, err := s.askRow("SELECT DATABASE()", 1)
	if err != nil {
		return err
	}
	if row == nil {
		return wire.Errorf("upstream refused SELECT DATABASE()")
	}
	s.database = string(row[0]) // NULL: none
	return nil
}

// askRow sends q, a SELECT of cols values, to the upstream as the
// listener's own COM_QUERY (the client sees nothing of it) and returns its
// one row's values (nil for NULL), or a nil row when the upstream answered
// ERR or with another number of columns or rows. The status flags of its
// terminator become the session's.
func (s *session) askRow(q string, cols int) ([][]byte, error) {
	if err := s.forward(append([]byte{gm.COM_QUERY}, q...), 0); err != nil {
		return nil, err
	}
	var row []byte
	got, rows := 0, 0
	for n := 0; ; n++ {
		p, _, err := wire.Read(s.ur, maxCommand)
		if err != nil {
			return nil, err
		}
		if len(p) == 0 {
			return nil, wire.Errorf("upstream sent an empty packet")
		}
		switch {
		case p[0] == 0xff:
			return nil, nil
		case n == 0 && p[0] == 0x00: // an OK: no result set
			s.status = wire.OKStatus(p)
			return nil, nil
		case n == 0:
			c, _, ok := wire.LenencInt(p)
			if !ok || c > 1<<16 {
				return nil, wire.Errorf("upstream answered %s with a bad column count", q)
			}
			got = int(c)
		case n <= got: // the column definitions
		case n == got+1 && !s.deprecateEOF(): // the EOF after them
		case s.terminator(p):
			s.status = wire.OKOrEOFStatus(p, s.deprecateEOF())
			if got != cols || rows != 1 {
				return nil, nil
			}
			out := make([][]byte, 0, cols)
			for range cols {
				if len(row) > 0 && row[0] == 0xfb {
					out, row = append(out, nil), row[1:]
					continue
				}
				v, rest, ok := wire.LenencString(row)
				if !ok {
					return nil, wire.Errorf("upstream sent a bad row for %s", q)
				}
				out, row = append(out, v), rest
			}
			return out, nil
		default:
			rows++
			row = append([]byte(nil), p...)
		}
	}
}
