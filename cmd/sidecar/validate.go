package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	mcpserver "github.com/hoophq/sidecar/adapters/inbound/mcp"
	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/internal/cliconfig"
)

func validateCmd() *cobra.Command {
	var flag *string
	cmd := &cobra.Command{
		Use:   "validate --config FILE",
		Short: "Check a config file and print every mistake with its path",
		Long: `validate parses FILE (given as --config FILE, -config FILE or a positional FILE) and prints each mistake on its own line as "path: message"
(for example "listeners[2].listen: is required (host:port)"). It exits 0 when the file is valid
and 1 otherwise. A warning (a line starting "warning:") is something valid that likely lets
through what the rule's author meant to hold, such as a rule on DELETE or DROP on a listener whose
statements can run bodies the analyzer does not read (DO, CALL, EXEC, $where) while no rule
holds RUNS_CODE; warnings are printed for a file without mistakes, and exit 0. It does not contact the Control Plane, bind any address or read the files the
config names (tls and upstream_tls certificates and keys, token_file): run does, and refuses to
start when one is missing or unreadable.`,
		Args: cliconfig.Args,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := cliconfig.Path(cmd, flag, args)
			if err != nil {
				return err
			}
			f, errs, err := loadConfig(path)
			if err != nil {
				return err
			}
			if len(errs) == 0 { // a file with mistakes gets them alone
				for _, w := range config.Warnings(f, protocolChecks()) {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w.Error())
				}
			}
			if len(errs) > 0 {
				for _, e := range errs {
					fmt.Fprintln(cmd.ErrOrStderr(), e.Error())
				}
				return fmt.Errorf("%s: %d mistake(s)", path, len(errs))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid\n", path)
			return nil
		},
	}
	flag = cliconfig.AddFlag(cmd)
	return cmd
}

// loadConfig parses and validates path against the protocols this binary
// serves. errs holds every mistake: unknown keys first, in file order, then
// Validate's; err is a file that cannot be read or parsed at all.
func loadConfig(path string) (*config.File, config.Errors, error) {
	f, keys, err := config.Load(path)
	if err != nil {
		return nil, nil, err
	}
	errs := append(keys, config.Validate(f, protocolChecks())...)
	if f.MCP != nil {
		if err := mcpserver.CheckAllowedHosts(f.MCP.AllowedHosts); err != nil {
			errs = append(errs, config.FieldError{Path: "mcp.allowed_hosts",
				Message: strings.TrimPrefix(err.Error(), "mcp.allowed_hosts: ")})
		}
	}
	return f, errs, nil
}
