package analyzer

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A text the parser refuses is logged by the listener (slog, which prints
// an error value with %+v) and sent to the client: both get the parser's
// one-line message, never the parser library's stack trace.
func TestParseErrorIsOneLine(t *testing.T) {
	for _, sql := range []string{"XA RECOVER", "DELETE FROM t RETURNING id", "SELEC 1"} {
		res := Analyze(sql, "db")
		if res.Err == nil {
			t.Fatalf("%q: parsed; want the parser's refusal", sql)
		}
		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Warn("refused", "error", res.Err)
		line := strings.TrimSuffix(buf.String(), "\n")
		if strings.Contains(line, "\n") || strings.Contains(line, ".go:") {
			t.Errorf("%q: log line spans lines or names Go files:\n%s", sql, buf.String())
		}
		if msg := res.Err.Error(); msg != strings.TrimSpace(msg) || !strings.Contains(msg, "line 1 column") {
			t.Errorf("%q: error %q: want the parser's position, without surrounding spaces", sql, msg)
		}
	}
}
