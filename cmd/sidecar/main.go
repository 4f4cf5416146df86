// Command sidecar is the hoop Sidecar: an approval gate between AI agents and
// the systems they touch. See README.md and docs/.
//
//	sidecar run --config config.yaml       serve the listeners (SIGHUP reloads)
//	sidecar validate --config config.yaml  print every mistake with its path
//	sidecar explain --config config.yaml --listener NAME STATEMENT
//	                                       how a listener reads one statement, what its rules decide
//	sidecar version                        print the version
//
// run and validate take the config as --config FILE, -config FILE or a
// positional FILE (internal/cliconfig); explain as --config or -config only,
// since its positional argument is the statement.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/hoophq/sidecar/internal/cliconfig"
	"github.com/hoophq/sidecar/internal/version"
)

func main() {
	root := rootCmd()
	root.SetArgs(cliconfig.Normalize(os.Args[1:]))
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "sidecar:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "sidecar",
		Short: "hoop Sidecar: holds risky statements from AI agents for a person's approval",
		Long: `The hoop Sidecar proxies agents' connections (PostgreSQL, MySQL/MariaDB, SQL Server, MongoDB, HTTP, gRPC) to their upstreams.
Statements that an approval rule matches are held for a person; in return mode the agent is
denied at once with an approval id and resends the identical statement once it is approved.

` + firstConfigHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd(), validateCmd(), explainCmd(), versionCmd())
	return root
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Sidecar's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "hoop sidecar", version.Version)
		},
	}
}
