package domain

import (
	"strings"
	"testing"
)

func TestBudgetMessageSaysWhetherToResend(t *testing.T) {
	full := BudgetMessage(8<<20, 256<<20)
	if !strings.Contains(full, "resend it shortly") || !strings.Contains(full, "limits.held_bytes") {
		t.Errorf("full budget: %q", full)
	}
	never := BudgetMessage(300<<20, 256<<20)
	if strings.Contains(never, "resend") || !strings.Contains(never, "smaller parts") {
		t.Errorf("payload over the whole budget: %q", never)
	}
}
