package cliconfig

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestNormalize(t *testing.T) {
	got := strings.Join(Normalize([]string{"serve", "-config=a.yaml", "-config", "b", "-c", "x", "--", "-config"}), " ")
	if got != "serve --config=a.yaml --config b -c x -- -config" {
		t.Fatal(got)
	}
}

// Every spelling names the same file; two different files or none is a clear error.
func TestPath(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		err  string
	}{
		{args: []string{"--config", "a.yaml"}, want: "a.yaml"},
		{args: []string{"--config=a.yaml"}, want: "a.yaml"},
		{args: []string{"-config", "a.yaml"}, want: "a.yaml"},
		{args: []string{"-config=a.yaml"}, want: "a.yaml"},
		{args: []string{"-c", "a.yaml"}, want: "a.yaml"},
		{args: []string{"a.yaml"}, want: "a.yaml"},
		{args: []string{"a.yaml", "--config", "a.yaml"}, want: "a.yaml"},
		{args: []string{"a.yaml", "--config", "b.yaml"}, err: "validate got two config files (--config b.yaml and a.yaml); give one"},
		{args: nil, err: "validate needs a config file: validate --config FILE (or validate FILE)"},
		{args: []string{"a.yaml", "b.yaml"}, err: "validate takes one config file, got 2 arguments: a.yaml b.yaml"},
	} {
		var got string
		cmd := &cobra.Command{Use: "validate", Args: Args, RunE: nil}
		flag := AddFlag(cmd)
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			p, err := Path(cmd, flag, args)
			got = p
			return err
		}
		cmd.SetArgs(Normalize(tc.args))
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}
