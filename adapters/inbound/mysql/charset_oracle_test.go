package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"go/format"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/hoophq/sidecar/adapters/inbound/mysql/analyzer"
)

// localMariaDB returns a connection pool to the MariaDB this machine runs
// (127.0.0.1:3306, root without password; HOOP_TEST_MYSQL_URL's host is not
// used here), failing with how to start one when none answers.
func localMariaDB(t *testing.T, edit func(*mysql.Config)) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.Timeout = "root", "tcp", "127.0.0.1:3306", 5*time.Second
	if edit != nil {
		edit(cfg)
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("these tests read MariaDB itself: start it on 127.0.0.1:3306 with root and no password (%v)", err)
	}
	return db
}

// probeClasses asks the server how the session's character set reads each
// byte b outside a literal, one letter a byte: 's' whitespace
// (SELECT<b>2 runs), 'c' a control character ("SELECT 2 --<b>x" runs:
// -- then b starts a comment), 'w' a letter (SELECT 1 AS a<b>b runs), 'o'
// anything else. Byte 0 ends a text and is not probed ('o').
func probeClasses(t *testing.T, conn *sql.Conn) []byte {
	ctx := context.Background()
	ok := func(q string) bool { var v any; return conn.QueryRowContext(ctx, q).Scan(&v) == nil }
	out := make([]byte, 256)
	out[0] = 'o'
	for i := 1; i < 256; i++ {
		b := string([]byte{byte(i)})
		switch {
		case ok("SELECT" + b + "2"):
			out[i] = 's'
		case ok("SELECT 2 --" + b + "x"):
			out[i] = 'c'
		case ok("SELECT 1 AS a" + b + "b"):
			out[i] = 'w'
		default:
			out[i] = 'o'
		}
	}
	return out
}

// The analyzer's character set tables (analyzer/charsets_table.go) are
// what the server itself says: for every character set MariaDB accepts as
// a client character set, every byte is asked of the server (probeClasses)
// and compared, as a class, with utf8mb4, which the lexer was written for;
// whether a character may end in a backslash is asked with SELECT '<b>\'
// (it runs when <b>\ is one character). The collation ids a handshake may
// carry come from information_schema.COLLATIONS. HOOP_UPDATE_CHARSETS=1
// writes the table instead of comparing.
func TestCharsetTablesMatchTheServer(t *testing.T) {
	db := localMariaDB(t, nil)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	type set struct {
		name   string
		maxLen int
	}
	var sets []set
	rows, err := conn.QueryContext(ctx, "SELECT CHARACTER_SET_NAME, MAXLEN FROM information_schema.CHARACTER_SETS ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s set
		if err := rows.Scan(&s.name, &s.maxLen); err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s)
	}
	rows.Close()
	if _, err := conn.ExecContext(ctx, "SET NAMES utf8mb4"); err != nil {
		t.Fatal(err)
	}
	ref := probeClasses(t, conn)
	var b strings.Builder
	b.WriteString("package analyzer\n\n// Generated from a MariaDB server by TestCharsetTablesMatchTheServer\n// (adapters/inbound/mysql, HOOP_UPDATE_CHARSETS=1); do not edit.\n\n")
	b.WriteString("// charsetSpecs: the client character sets the server accepts, with the\n// bytes it reads otherwise than utf8mb4 outside a literal (charset.go).\n")
	b.WriteString("var charsetSpecs = map[string]charsetSpec{\n")
	for _, s := range sets {
		if _, err := conn.ExecContext(ctx, "SET NAMES "+s.name); err != nil {
			t.Logf("%s is not a client character set here: %v", s.name, err)
			continue
		}
		got := probeClasses(t, conn)
		var spaces, dashEnds, unmodelled []byte
		trail := false
		for i := 1; i < 256; i++ {
			c := byte(i)
			switch {
			case i < 0x80 && got[i] == ref[i]:
			case i < 0x80 && got[i] == 's':
				spaces = append(spaces, c)
			case i < 0x80:
				unmodelled = append(unmodelled, c)
			case got[i] != 's' && got[i] != 'c':
			case s.maxLen > 1: // whitespace that may also be part of a character
				unmodelled = append(unmodelled, c)
			case got[i] == 's':
				spaces = append(spaces, c)
			default:
				dashEnds = append(dashEnds, c)
			}
			if i >= 0x80 && s.maxLen > 1 {
				var v any
				if conn.QueryRowContext(ctx, "SELECT '"+string([]byte{c})+"\\'").Scan(&v) == nil {
					trail = true
				}
			}
		}
		fmt.Fprintf(&b, "%q: {spaces: %q, dashEnds: %q, unmodelled: %q, asciiTrail: %v},\n", s.name, spaces, dashEnds, unmodelled, trail)
	}
	b.WriteString("}\n\n// collationCharsets: the character set of each collation id below 256\n// (what a handshake can name), from information_schema.COLLATIONS.\n")
	b.WriteString("var collationCharsets = map[byte]string{\n")
	rows, err = conn.QueryContext(ctx, "SELECT ID, CHARACTER_SET_NAME FROM information_schema.COLLATIONS WHERE ID < 256 ORDER BY ID")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id int
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, strconv.Itoa(id)+": "+strconv.Quote(name)+",")
	}
	rows.Close()
	b.WriteString(strings.Join(ids, "\n") + "\n}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	const path = "analyzer/charsets_table.go"
	if os.Getenv("HOOP_UPDATE_CHARSETS") == "1" {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(have, src) {
		t.Fatalf("%s differs from what this server says; rerun with HOOP_UPDATE_CHARSETS=1 and review the diff", path)
	}
}

// Every sql_mode name the server accepts is sorted by the analyzer as
// followed, harmless or unmodelled (analyzer.ReadingModes): a name it does
// not list would be read as unmodelled, refusing every text.
func TestSQLModesAllSorted(t *testing.T) {
	db := localMariaDB(t, nil)
	var list string
	if err := db.QueryRow("SELECT ENUM_VALUE_LIST FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'SQL_MODE'").Scan(&list); err != nil {
		t.Fatal(err)
	}
	sorted := analyzer.ReadingModes()
	for _, name := range strings.Split(list, ",") {
		if _, ok := sorted[name]; !ok {
			t.Errorf("sql_mode %s is not sorted by the analyzer (analyzer/reading.go)", name)
		}
	}
}
