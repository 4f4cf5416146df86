package analyzer

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	if os.Getenv("PROBE") == "" {
		t.Skip()
	}
	t0 := time.Now()
	Warm()
	t.Log("warm", time.Since(t0))
	for _, s := range strings.Split(os.Getenv("PROBE"), "\n|\n") {
		t0 := time.Now()
		r := Analyze(s, "Prod")
		d := time.Since(t0)
		t.Logf("%q (%v) err=%v ll=%d", s, d, r.Err, llParses.Load())
		for _, st := range r.Statements {
			t.Logf("   %q %v T=%v F=%v use=%q tx=%q xa=%v", st.Text, st.Analysis.Actions, st.Analysis.Targets, st.Analysis.Functions, st.UseDB, st.Transaction, st.XactAbort)
		}
	}
}
