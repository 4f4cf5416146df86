package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hoophq/sidecar/adapters/outbound/config"
	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/internal/cliconfig"
)

func explainCmd() *cobra.Command {
	var identity string
	var asJSON bool
	var flag *string
	cmd := &cobra.Command{
		Use:   "explain --config FILE --listener NAME [--identity USER] [--json] [STATEMENT]",
		Short: "Show how a listener reads one statement and what its rules decide",
		Long: `explain reads STATEMENT (or, without one, standard input) as the listener NAME of the config
FILE reads what its clients send, and prints one line each:

  actions:   the protocol's own statement kinds
  effects:   the protocol-blind effects (docs/rules.md)
  targets:   the names it acts on
  functions: the functions it calls
  decision:  allow, or the rule that denies or holds it; report-only rules that
             match are named after "report-only:" (they would deny or hold it)

STATEMENT is written as the listener reads it: SQL text on postgres, mysql and mssql
listeners; a command in extended JSON on mongodb ($db defaults to "test"); METHOD /path on
http; /package.Service/Method on grpc. --identity is the client identity rules'
identities match: the database login user, or the value of an identity_keys header on http
and grpc. A text pattern is tried on STATEMENT as given. explain has no session: no
current database, and an EXECUTE of a statement prepared before the text reads as UNKNOWN.
It contacts nothing (no Control Plane, no upstream) and exits 0 whatever the decision; 1
when the config has mistakes or the statement is not in the listener's form. What the
listener could not read of the statement, if anything, ends the decision line ("unread:").
--json prints the same as one object.

Example:
  sidecar explain --config examples/config.yaml --listener payments 'DELETE FROM t'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := cliconfig.Path(cmd, flag, nil)
			if err != nil {
				return err
			}
			listener, _ := cmd.Flags().GetString("listener")
			text := strings.Join(args, " ")
			if len(args) == 0 {
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				text = strings.TrimSpace(string(b))
			}
			if strings.TrimSpace(text) == "" {
				return fmt.Errorf("explain needs a statement, as an argument or on standard input")
			}
			ex, err := explain(path, listener, identity, text)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(ex)
			}
			fmt.Fprintln(out, "actions:", strings.Join(ex.Actions, ", "))
			fmt.Fprintln(out, "effects:", strings.Join(ex.Effects, ", "))
			fmt.Fprintln(out, "targets:", strings.Join(ex.Targets, ", "))
			fmt.Fprintln(out, "functions:", strings.Join(ex.Functions, ", "))
			line := ex.Decision.line()
			if ex.Unread != "" && ex.Decision.Verdict != "deny_uncheckable" { // that one says why already
				line += "; unread: " + ex.Unread
			}
			fmt.Fprintln(out, "decision:", line)
			return nil
		},
	}
	flag = cliconfig.AddFlag(cmd)
	cmd.Flags().Lookup("config").Usage = "config file (YAML); -config FILE works too (the positional argument is the statement)"
	cmd.Flags().String("listener", "", "the listener whose reading and rules apply (its name in the config)")
	cmd.Flags().StringVar(&identity, "identity", "", "the client's identity (login user, or identity_keys value)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of lines")
	return cmd
}

// explanation is what explain prints (--json: as this object).
type explanation struct {
	Listener  string   `json:"listener"`
	Protocol  string   `json:"protocol"`
	Actions   []string `json:"actions"`
	Effects   []string `json:"effects"`
	Targets   []string `json:"targets"`
	Functions []string `json:"functions"`
	// Unread is what the listener could not read of the statement.
	Unread   string   `json:"unread,omitempty"`
	Decision decision `json:"decision"`
}

// decision is the rules' verdict: Verdict is allow, deny (a policy rule),
// hold (an approval rule) or deny_uncheckable (the listener could not read
// the statement and no rule decides it: domain.FailsClosed).
type decision struct {
	Verdict    string     `json:"verdict"`
	Rule       string     `json:"rule,omitempty"`
	ReportOnly []reported `json:"report_only,omitempty"`
	Why        string     `json:"why,omitempty"`
}

// reported is a report-only rule that matched: decision would_deny or
// would_hold (domain.Reported).
type reported struct {
	Rule     string `json:"rule"`
	Decision string `json:"decision"`
}

func (d decision) line() string {
	s := d.Verdict
	switch d.Verdict {
	case "deny":
		s += " by policy rule " + d.Rule
	case "hold":
		s += " by approval rule " + d.Rule
	case "deny_uncheckable":
		s += " (" + d.Why + ")"
	}
	if len(d.ReportOnly) > 0 {
		var r []string
		for _, x := range d.ReportOnly {
			r = append(r, x.Decision+" by "+x.Rule)
		}
		s += "; report-only: " + strings.Join(r, ", ")
	}
	return s
}

// explain reads text as the listener named listener of the config at path
// reads it and applies that listener's rules, with identity as the
// client's identity. It contacts nothing.
func explain(path, listener, identity, text string) (*explanation, error) {
	f, errs, err := loadConfig(path)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s has %d mistake(s) (sidecar validate prints them), the first: %v", path, len(errs), errs[0])
	}
	var s *app.ListenerSettings
	var names []string
	for _, ls := range config.Settings(f) {
		names = append(names, ls.Name)
		if ls.Name == listener {
			s = &ls
		}
	}
	if s == nil {
		return nil, fmt.Errorf("no listener is named %q: the listeners are %s", listener, strings.Join(names, ", "))
	}
	var read explainFunc
	keyed := false // the identity is an identity_keys value (http, grpc), not a login
	for _, r := range registry {
		if r.build(slog.Default()).Name() == s.Protocol {
			read, keyed = r.explain, r.keys.IdentityKeys
		}
	}
	rd, err := read(text)
	if err != nil {
		return nil, err
	}
	ex := &explanation{Listener: s.Name, Protocol: s.Protocol, Unread: rd.unread,
		Actions: []string{}, Effects: []string{}, Targets: []string{}, Functions: []string{}}
	for _, p := range rd.parts {
		ex.Actions = domain.AddEffects(ex.Actions, p.Actions...)
		ex.Effects = domain.AddEffects(ex.Effects, p.Effects...)
		if slices.Contains(p.Actions, domain.ActionUnknown) {
			ex.Effects = domain.AddEffects(ex.Effects, domain.EffectUnknown)
		}
		ex.Targets = domain.AddEffects(ex.Targets, p.Targets...)
		ex.Functions = domain.AddEffects(ex.Functions, p.Functions...)
	}
	a := domain.Analysis{}
	if len(rd.parts) == 1 {
		a = rd.parts[0]
	} else if len(rd.parts) > 1 {
		a.Parts = rd.parts
	}
	// On http and grpc the identity is the value of the listener's first
	// identity_keys header, as the listener reads it; a listener that names
	// none gives no request an identity, whatever --identity says.
	var values map[string][]string
	ids := identity
	if keyed {
		ids = ""
		if len(s.IdentityKeys) > 0 && identity != "" {
			values = map[string][]string{s.IdentityKeys[0]: {identity}}
		}
	}
	facts := domain.Facts{Identities: app.Identities(s, ids, values), Text: func() string { return text }}
	ev := domain.EvaluateWith(a, facts, s.Policies, s.Approvals)
	for _, r := range ev.Reported {
		ex.Decision.ReportOnly = append(ex.Decision.ReportOnly, reported(r))
	}
	switch {
	case rd.unread != "" && domain.FailsClosed(domain.Unread{Why: rd.unread}, ev, domain.Enforces(s.Policies, s.Approvals)):
		ex.Decision.Verdict, ex.Decision.Why = "deny_uncheckable", rd.unread
	case ev.Verdict == domain.VerdictPolicy:
		ex.Decision.Verdict, ex.Decision.Rule = "deny", ev.Policy.Name
	case ev.Verdict == domain.VerdictApproval:
		ex.Decision.Verdict, ex.Decision.Rule = "hold", ev.Approval.Name
	default:
		ex.Decision.Verdict = "allow"
	}
	return ex, nil
}
