package analyzer

import (
	"strings"
	"testing"
	"time"
)

func TestZZDeep(t *testing.T) {
	for _, n := range []int{100, 1000, 5000, 20000, 100000} {
		q := "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n)
		st := time.Now()
		r := Analyze(q)
		t.Logf("parens %d: %v err=%v %v", n, r.Statements[0].Analysis.Actions, r.Err, time.Since(st))
		q = "SELECT " + strings.Repeat("-", n) + "1"
		st = time.Now()
		r = Analyze(q)
		t.Logf("minus %d: %v err=%v %v", n, r.Statements[0].Analysis.Actions, r.Err, time.Since(st))
		q = "SELECT 1" + strings.Repeat(" + 1", n)
		st = time.Now()
		r = Analyze(q)
		t.Logf("plus %d: %v err=%v %v", n, r.Statements[0].Analysis.Actions, r.Err, time.Since(st))
		q = strings.Repeat("SELECT * FROM (", n) + "SELECT 1" + strings.Repeat(") x", n)
		st = time.Now()
		r = Analyze(q)
		t.Logf("subq %d: %v err=%v %v", n, r.Statements[0].Analysis.Actions, r.Err, time.Since(st))
		q = "SELECT " + strings.Repeat("ARRAY[", n) + "1" + strings.Repeat("]", n)
		st = time.Now()
		r = Analyze(q)
		t.Logf("array %d: %v err=%v %v", n, r.Statements[0].Analysis.Actions, r.Err, time.Since(st))
	}
}
