package mysql

import gm "github.com/go-mysql-org/go-mysql/mysql"

// refreshDatabase asks the upstream for its current database (SELECT
// DATABASE(), answered to the listener only) and makes it the session's:
// after a text that failed part-way, only the upstream knows whether its
// USE ran. A NULL answer is no current database.
func (s *session) refreshDatabase() error {
	if err := s.forward(append([]byte{gm.COM_QUERY}, "SELECT DATABASE()"...), 0); err != nil {
		return err
	}
	var row []byte
	for n := 0; ; n++ {
		p, _, err := readPacket(s.ur, maxCommand)
		if err != nil {
			return err
		}
		if len(p) == 0 {
			return protoErr("upstream sent an empty packet")
		}
		switch {
		case p[0] == 0xff:
			return protoErr("upstream refused SELECT DATABASE()")
		case n > 1 && s.terminator(p) && (row != nil || !s.deprecateEOF() && n == 2):
			if row == nil { // the EOF after the column definition
				continue
			}
			s.status = okOrEOFStatus(p, s.deprecateEOF())
			if row[0] == 0xfb {
				s.database = ""
			} else if v, _, ok := lenencString(row); ok {
				s.database = string(v)
			}
			return nil
		case n >= 2:
			row = p
		}
	}
}
