package differential

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpus returns the string arguments of every seed file under the fuzz
// corpus folders dirs (testdata/fuzz/<Target>/ of an analyzer, relative to
// the repository root), in the `go test fuzz v1` encoding Go writes.
func corpus(t *testing.T, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join("..", "..", d, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("fuzz corpus %s: none found (%v)", d, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if !strings.HasPrefix(line, "string(") || !strings.HasSuffix(line, ")") {
					continue
				}
				if s, err := strconv.Unquote(line[len("string(") : len(line)-1]); err == nil && s != "" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
