package differential

import (
	"regexp"
	"strings"
)

// knownBypasses are the bypass kinds issue 32 reports and that are being
// fixed (branch charset): a text of one of these kinds that runs a held
// statement is logged as "known, tracked by issue 32" and does not fail the
// run. Each entry names the issue's point and matches texts of its kind.
// Once the fix lands this list must be empty, so that the run fails on any
// bypass again.
var knownBypasses = []struct {
	issue string
	match func(testCase) bool
}{
	{"issue 32 point 1: a byte the session's character set reads as space after --", func(c testCase) bool {
		return dashDashOdd.MatchString(c.SQL)
	}},
	{"issue 32 point 1: a character set change earlier in the same text", func(c testCase) bool {
		return charsetChange.MatchString(c.SQL)
	}},
	{"issue 32 point 1: a multibyte character set read as another", func(c testCase) bool {
		return !strings.HasPrefix(c.Session, "utf8") && hasHighByte(c.SQL)
	}},
	{"issue 32 point 2: an sql_mode change earlier in the same text", func(c testCase) bool {
		return sqlModeChange.MatchString(c.SQL)
	}},
}

var (
	dashDashOdd   = regexp.MustCompile(`--[^ \t\n\r]`)
	charsetChange = regexp.MustCompile(`(?i)(NAMES|CHARACTER\s+SET|CHARSET|character_set_client)[\s\S]*;`)
	sqlModeChange = regexp.MustCompile(`(?i)sql_mode[\s\S]*;`)
)

func hasHighByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// knownMySQL returns the knownBypasses entry c is of, or "".
func knownMySQL(c testCase) string {
	for _, k := range knownBypasses {
		if k.match(c) {
			return k.issue
		}
	}
	return ""
}
