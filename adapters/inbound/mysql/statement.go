package mysql

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	gm "github.com/go-mysql-org/go-mysql/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/wire"
	"github.com/hoophq/sidecar/app"
)

// The canonical bytes of a statement are what the fingerprint covers (with
// the login user and the current database, app.Statement.IdentityValues):
// the COM_QUERY text as sent, or a prepared statement's text with the
// values bound to one COM_STMT_EXECUTE, each rendered as text so that the
// same value sent with another integer width is the same statement.

// canonicalQuery returns the canonical bytes of a COM_QUERY text.
func canonicalQuery(sql string) []byte {
	return append(append(make([]byte, 0, 6+len(sql)), "query\x00"...), sql...)
}

// displayQuery renders a COM_QUERY for the approver.
func displayQuery(sql, db string) string { return sql + onDatabase(db) }

func onDatabase(db string) string {
	if db == "" {
		return ""
	}
	return "\n-- database: " + db
}

// canonicalExecute returns the canonical bytes of a prepared statement's
// text executed with params (rendered values; NULL distinct from 'NULL').
func canonicalExecute(sql string, params []string) []byte {
	b := append([]byte("execute\x00"), sql...)
	for _, v := range params {
		b = binary.BigEndian.AppendUint32(append(b, 0), uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

// displayExecute renders a COM_STMT_EXECUTE for the approver: the text and
// its bound values in order.
func displayExecute(sql string, params []string, db string) string {
	return app.WithParameters(sql, params) + onDatabase(db)
}

// decodeParams reads the values of a COM_STMT_EXECUTE payload after its
// first ten bytes (command, statement id, flags, iteration count), for a
// statement with n parameters: the NULL bitmap, new-params-bound flag, the
// types (or types, the last bound ones) and the binary values (MySQL
// Client/Server Protocol, "COM_STMT_EXECUTE"). Parameters whose value came
// with COM_STMT_SEND_LONG_DATA (long) are not in the packet. It returns the
// rendered values and the types used.
func decodeParams(p []byte, n int, types []byte, long map[int][]byte) ([]string, []byte, error) {
	if n == 0 {
		return nil, types, nil
	}
	nb := (n + 7) / 8
	if len(p) < nb+1 {
		return nil, nil, wire.Errorf("COM_STMT_EXECUTE too short for its parameters")
	}
	nulls, p := p[:nb], p[nb:]
	bound := p[0]
	p = p[1:]
	if bound == 1 {
		if len(p) < 2*n {
			return nil, nil, wire.Errorf("COM_STMT_EXECUTE too short for its parameter types")
		}
		types, p = append([]byte(nil), p[:2*n]...), p[2*n:]
	}
	if len(types) != 2*n {
		return nil, nil, wire.Errorf("COM_STMT_EXECUTE without parameter types")
	}
	out := make([]string, n)
	for i := range n {
		if v, ok := long[i]; ok { // the server uses long data even when the NULL bit is set
			out[i] = quote(v)
			continue
		}
		if nulls[i/8]&(1<<(i%8)) != 0 {
			out[i] = "NULL"
			continue
		}
		v, rest, err := paramValue(types[2*i], p)
		if err != nil {
			return nil, nil, err
		}
		out[i], p = renderParam(types[2*i], types[2*i+1]&0x80 != 0, v), rest
	}
	return out, types, nil
}

// paramValue splits one binary-protocol value of type t off p: its
// content (without a length prefix) and what follows. The value's extent is
// read as a row's value is (wire.BinaryValueLen).
func paramValue(t byte, p []byte) (v, rest []byte, err error) {
	start, n, ok := wire.BinaryValueLen(t, p)
	if !ok {
		return nil, nil, wire.Errorf("COM_STMT_EXECUTE: short or bad value of type %d", t)
	}
	return p[start:n], p[n:], nil
}

// renderParam renders one bound value as SQL-like text.
func renderParam(t byte, unsigned bool, v []byte) string {
	switch t {
	case gm.MYSQL_TYPE_NULL:
		return "NULL"
	case gm.MYSQL_TYPE_TINY, gm.MYSQL_TYPE_SHORT, gm.MYSQL_TYPE_YEAR, gm.MYSQL_TYPE_LONG, gm.MYSQL_TYPE_INT24, gm.MYSQL_TYPE_LONGLONG:
		var u uint64
		for i := len(v) - 1; i >= 0; i-- {
			u = u<<8 | uint64(v[i])
		}
		if unsigned {
			return strconv.FormatUint(u, 10)
		}
		shift := 64 - 8*len(v)
		return strconv.FormatInt(int64(u<<shift)>>shift, 10)
	case gm.MYSQL_TYPE_FLOAT:
		return strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), 'g', -1, 32)
	case gm.MYSQL_TYPE_DOUBLE:
		return strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(v)), 'g', -1, 64)
	case gm.MYSQL_TYPE_DATE, gm.MYSQL_TYPE_DATETIME, gm.MYSQL_TYPE_TIMESTAMP, gm.MYSQL_TYPE_TIME:
		return "temporal x'" + hex.EncodeToString(v) + "'"
	}
	return quote(v)
}

// quote renders a string value: 'text' with quotes doubled.
func quote(v []byte) string {
	return "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
}
