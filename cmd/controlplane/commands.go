package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hoophq/sidecar/cmd/controlplane/server"
)

// review is the approver API's review object (server.Review) as the CLI reads
// it, plus previous_status, which approve, reject, revoke and reopen answer
// with.
type review struct {
	server.Review
	PreviousStatus  string `json:"previous_status"`
	AlreadyApproved bool   `json:"already_approved"`
}

// quorum says how far r's approvals are: "1 of 2 approvals", and the
// groups still missing under all_groups_must_approve.
func (r review) quorum() string {
	q := fmt.Sprintf("%d of %d approvals", len(r.Approvals), max(r.Required, 1))
	if len(r.MissingGroups) > 0 {
		q += ", none yet from " + strings.Join(r.MissingGroups, ", ")
	}
	return q
}

// decidedLine is what approve, reject and revoke print: an approve below
// its policy's quorum is kept and the request stays PENDING.
func decidedLine(action, past string, r review) string {
	if action == "approve" && r.Status == "PENDING" {
		if r.AlreadyApproved {
			return fmt.Sprintf("you approved %s already (it counts once): %s; it stays PENDING", r.ID, r.quorum())
		}
		return fmt.Sprintf("recorded your approval of %s: %s; it stays PENDING", r.ID, r.quorum())
	}
	line := fmt.Sprintf("%s %s (was %s)", past, r.ID, r.PreviousStatus)
	if action == "approve" && r.Required > 1 {
		line += ": " + r.quorum()
	}
	if r.RejectionReason != "" {
		line += ": " + strconv.Quote(r.RejectionReason)
	}
	return line
}

// newDecideCmds returns approve, reject and revoke.
func newDecideCmds() []*cobra.Command {
	type spec struct{ action, past, short string }
	var cmds []*cobra.Command
	for _, s := range []spec{
		{"approve", "approved", "Approve a PENDING approval request (it is APPROVED once its policy's approvals are met)"},
		{"reject", "rejected", "Reject a PENDING approval request, with an optional --reason"},
		{"revoke", "revoked", "Revoke an APPROVED approval request before it is used"},
	} {
		var cf clientFlags
		var reason string
		cmd := &cobra.Command{
			Use:   s.action + " ID",
			Short: s.short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := cf.client()
				if err != nil {
					return err
				}
				var body any
				if s.action != "revoke" && reason != "" {
					body = map[string]string{"reason": reason}
				}
				var r review
				if err := c.call(cmd.Context(), "POST", "/api/reviews/"+url.PathEscape(args[0])+"/"+s.action, body, &r); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), decidedLine(s.action, s.past, r))
				return nil
			},
		}
		cf.add(cmd)
		switch s.action {
		case "reject":
			cmd.Flags().StringVar(&reason, "reason", "", "why (shown to the agent as rejection_reason)")
		case "approve":
			cmd.Flags().StringVar(&reason, "reason", "", "why (kept with the approval; a policy's require_reason may need it)")
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

// newReopenCmd returns reopen: a person asking again for a REJECTED or
// REVOKED request (docs/controlplane.md, "Reopen"). It prints the refused
// id, its status and the new PENDING request's id, which the identical
// statement then finds.
func newReopenCmd() *cobra.Command {
	var cf clientFlags
	cmd := &cobra.Command{
		Use:   "reopen ID",
		Short: "Ask again: file a new PENDING request for a REJECTED or REVOKED one",
		Long: `reopen asks again for a statement a person refused. A REJECTED or REVOKED
request is reused by every resend of its statement, so nothing else can ask
again. reopen files a new PENDING request with the same statement, listener,
rule and time limit; the identical resend finds it, and it is approved or
rejected like any other. The refused request keeps its decision.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.client()
			if err != nil {
				return err
			}
			var r review
			if err := c.call(cmd.Context(), "POST", "/api/reviews/"+url.PathEscape(args[0])+"/reopen", nil, &r); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "reopened %s (was %s) as %s (%s)\n", r.ReopenedFrom, r.PreviousStatus, r.ID, r.Status)
			return nil
		},
	}
	cf.add(cmd)
	return cmd
}

func newListCmd() *cobra.Command {
	var cf clientFlags
	var status string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--status S] [--limit N]",
		Short: "List approval requests of every Sidecar, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cf.client()
			if err != nil {
				return err
			}
			q := url.Values{"limit": {strconv.Itoa(limit)}}
			if status != "" {
				q.Set("status", strings.ToUpper(status))
			}
			var out struct {
				Reviews []json.RawMessage `json:"reviews"`
			}
			if err := c.call(cmd.Context(), "GET", "/api/reviews?"+q.Encode(), nil, &out); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return printJSON(w, out)
			}
			if len(out.Reviews) == 0 {
				fmt.Fprintln(w, "no approval requests")
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tSIDECAR\tLISTENER\tRULE\tCREATED\tSTATEMENT")
			for _, raw := range out.Reviews {
				var r review
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				status := string(r.Status)
				if r.Status == "PENDING" && (r.Required > 1 || len(r.Approvals) > 0) {
					status += fmt.Sprintf(" (%d of %d)", len(r.Approvals), max(r.Required, 1))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", oneLine(r.ID, 64), status, oneLine(r.Sidecar, 64),
					oneLine(r.ListenerName, 64), oneLine(r.ApprovalRule, 64), r.CreatedAt.UTC().Format(time.RFC3339),
					oneLine(r.Statement, 60))
			}
			return tw.Flush()
		},
	}
	cf.add(cmd)
	cmd.Flags().StringVar(&status, "status", "", "only this status: PENDING APPROVED REJECTED REVOKED PROCESSING EXECUTED EXPIRED")
	cmd.Flags().IntVar(&limit, "limit", 20, "at most this many (1-200)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON")
	return cmd
}

func newShowCmd() *cobra.Command {
	var cf clientFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one approval request with its statement",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := cf.client()
			if err != nil {
				return err
			}
			var raw json.RawMessage
			if err := c.call(cmd.Context(), "GET", "/api/reviews/"+url.PathEscape(args[0]), nil, &raw); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return printJSON(w, raw)
			}
			var r review
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
			row := func(k, v string) {
				if v != "" {
					fmt.Fprintf(tw, "%s:\t%s\n", k, oneLine(v, 1<<20))
				}
			}
			row("id", r.ID)
			row("status", string(r.Status))
			row("sidecar", r.Sidecar)
			row("listener", r.ListenerName)
			row("protocol", r.Protocol)
			row("rule", r.ApprovalRule)
			row("client", r.ClientIdentity)
			row("created_at", r.CreatedAt.UTC().Format(time.RFC3339))
			row("decided_at", when(r.DecidedAt))
			if r.DecidedBy != nil {
				row("decided_by", *r.DecidedBy)
			}
			row("expires_at", when(r.ExpiresAt))
			if r.Required > 1 || len(r.MissingGroups) > 0 {
				row("approvals", r.quorum())
			}
			for _, a := range r.Approvals {
				v := a.Approver
				if a.Group != "" {
					v += " (" + a.Group + ")"
				}
				v += " at " + a.At.UTC().Format(time.RFC3339)
				if a.Reason != "" {
					v += ": " + strconv.Quote(a.Reason)
				}
				row("  approved by", v)
			}
			row("rejection_reason", r.RejectionReason)
			row("reopened_as", r.ReopenedAs)
			row("reopened_from", r.ReopenedFrom)
			row("reopened_by", r.ReopenedBy)
			row("sidecar_reads", strconv.FormatInt(r.SidecarReads, 10))
			row("fingerprint", r.Fingerprint)
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(w, "statement:\n%s\n", printable(r.Statement))
			return nil
		},
	}
	cf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON")
	return cmd
}

func when(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// oneLine flattens s to one line of at most n runes, control characters
// written as visible escapes (printable).
func oneLine(s string, n int) string {
	s = printable(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
