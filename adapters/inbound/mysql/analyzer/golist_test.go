package analyzer

import (
	"os/exec"
	"strings"
)

func goList(pkg string) (string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	return strings.TrimSpace(string(out)), err
}
