// Command controlplane is the reference Control Plane of the hoop Sidecar
// (docs/controlplane.md): `serve` runs the Sidecar API, the approver API and
// the approvers' web page, and notifies webhooks of new requests; approve,
// reject, revoke, reopen, list and show call the approver API of a running
// one.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hoophq/sidecar/cmd/controlplane/server"
	"github.com/hoophq/sidecar/internal/cliconfig"
	"github.com/hoophq/sidecar/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the CLI with args and returns the exit code (0 ok, 1 failed).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(cliconfig.Normalize(args))
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "controlplane: error:", err)
		return 1
	}
	return 0
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "controlplane",
		Short: "Reference Control Plane of the hoop Sidecar",
		Long: `controlplane keeps the approval requests that hoop Sidecars file, and lets
people approve, reject or revoke them, and reopen a refused one to ask again
(CLI, web page at /, or /api/reviews).

Run one with:   controlplane serve --config controlplane.yaml
Then approve:   export ` + envToken + `=…   (once)
                controlplane approve ID
Ask again:      controlplane reopen ID

approve, reject, revoke, reopen, list and show read the approver token from
` + envToken + ` and the URL from ` + envURL + ` (default ` + defaultURL + `).
--token overrides the variable, but a token on the command line shows in ps and
in the shell's history: prefer the variable. docs/controlplane.md describes
controlplane.yaml.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newServeCmd(), newVersionCmd())
	root.AddCommand(newDecideCmds()...)
	root.AddCommand(newReopenCmd(), newListCmd(), newShowCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the Control Plane API version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "hoop controlplane %s (Control Plane API %d)\n", version.Version, server.APIVersion)
			return nil
		},
	}
}
