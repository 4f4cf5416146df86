package mysql

import (
	"testing"

	gmclient "github.com/go-mysql-org/go-mysql/client"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// HANDLER customers OPEN AS h; HANDLER h READ FIRST reads the table's rows,
// but the parser refuses HANDLER, so the statement is UNKNOWN and names no
// target: a masking rule whose match names the table did not apply, and
// the ssn column came back in clear (local MariaDB; skipped without it).
func TestMaskBreakHandler(t *testing.T) {
	m := &domain.Match{Targets: []string{"hoopmaskbreak.customers"}}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	set, err := masking.Compile([]masking.Rule{{Name: "cust", Match: m, Columns: []string{"ssn"}, Strategy: masking.Redact}})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveMasked(t, set)
	d, err := gmclient.Connect("127.0.0.1:3306", "root", "", "")
	if err != nil {
		t.Skipf("no local MariaDB at 127.0.0.1:3306 (root): %v", err)
	}
	defer d.Close()
	for _, q := range []string{"DROP DATABASE IF EXISTS hoopmaskbreak", "CREATE DATABASE hoopmaskbreak",
		"CREATE TABLE hoopmaskbreak.customers(id int, ssn varchar(20))", "INSERT INTO hoopmaskbreak.customers VALUES (1, '123456789')"} {
		if _, err := d.Execute(q); err != nil {
			t.Fatal(q, err)
		}
	}
	t.Cleanup(func() { d.Execute("DROP DATABASE IF EXISTS hoopmaskbreak") })
	c, err := gmclient.Connect(addr, "root", "", "hoopmaskbreak")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	read := 0
	for _, q := range []string{"SELECT ssn FROM customers", "HANDLER customers OPEN AS h", "HANDLER h READ FIRST"} {
		r, err := c.Execute(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		read += len(r.Values)
		for i := range r.Values {
			if v, _ := r.GetStringByName(i, "ssn"); v != "<REDACTED>" {
				t.Errorf("%s: ssn %q", q, v)
			}
		}
	}
	if read != 2 { // the SELECT's row and HANDLER READ's: else nothing was checked
		t.Errorf("read %d rows, want 2", read)
	}
}
