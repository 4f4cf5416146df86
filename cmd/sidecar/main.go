// Command sidecar is the hoop Sidecar: an approval gate between AI agents and
// the systems they touch. See README.md and docs/.
//
//	sidecar run -config config.yaml   serve the listeners (SIGHUP reloads)
//	sidecar validate config.yaml      print every mistake with its path
//	sidecar version                   print the version
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hoophq/sidecar/internal/version"
)

func main() {
	root := rootCmd()
	root.SetArgs(singleDashLong(os.Args[1:]))
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "sidecar:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "sidecar",
		Short: "hoop Sidecar: holds risky statements from AI agents for a person's approval",
		Long: `The hoop Sidecar proxies agents' connections (PostgreSQL, HTTP, gRPC, …) to their upstreams.
Statements that an approval rule matches are held for a person; in return mode the agent is
denied at once with an approval id and resends the identical statement once it is approved.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd(), validateCmd(), versionCmd())
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

// singleDashLong lets "-config FILE" (the Go-flag spelling used across the
// docs) mean "--config FILE": pflag would otherwise read it as -c "onfig".
func singleDashLong(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "-config" || strings.HasPrefix(a, "-config=") {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}
