// Package cliconfig gives every command of the sidecar and controlplane
// binaries that reads one config file the same three spellings of it:
//
//	--config FILE   (also --config=FILE and -c FILE)
//	-config FILE    (the Go-flag spelling used across the docs; also -config=FILE)
//	FILE            (positional)
//
// Files: cliconfig.go (this file; AddFlag, Path, Normalize) and its test.
package cliconfig

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// AddFlag registers --config (short -c) on cmd and returns where its value
// lands. Pass that pointer to Path.
func AddFlag(cmd *cobra.Command) *string {
	var p string
	cmd.Flags().StringVarP(&p, "config", "c", "", "config file (YAML); -config FILE and a positional FILE work too")
	return &p
}

// Args is the cobra.PositionalArgs of a command that reads one config file:
// at most one positional argument (the FILE).
func Args(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return fmt.Errorf("%s takes one config file, got %d arguments: %s", cmd.Name(), len(args), strings.Join(args, " "))
	}
	return nil
}

// Path returns the config file that cmd was given, by --config (flag) or as
// its positional argument (args; nil for a command whose positional
// arguments are something else, which then takes the flag only). Both, when they differ, or neither is an error
// that shows the usage, e.g. "validate needs a config file: validate
// --config FILE (or validate FILE)".
func Path(cmd *cobra.Command, flag *string, args []string) (string, error) {
	var pos string
	if len(args) == 1 {
		pos = args[0]
	}
	switch {
	case *flag != "" && pos != "" && *flag != pos:
		return "", fmt.Errorf("%s got two config files (--config %s and %s); give one", cmd.Name(), *flag, pos)
	case *flag != "":
		return *flag, nil
	case pos != "":
		return pos, nil
	}
	if args == nil { // the command's positional arguments are not a file (explain)
		return "", fmt.Errorf("%s needs a config file: %s --config FILE", cmd.Name(), cmd.CommandPath())
	}
	return "", fmt.Errorf("%s needs a config file: %s --config FILE (or %s FILE)", cmd.Name(), cmd.CommandPath(), cmd.CommandPath())
}

// Normalize rewrites the single-dash long form -config (and -config=FILE) to
// --config, which pflag would otherwise read as -c "onfig". Arguments after
// "--" are left as they are.
func Normalize(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "-config" || strings.HasPrefix(a, "-config=") {
			a = "-" + a
		}
		out = append(out, a)
	}
	return out
}
