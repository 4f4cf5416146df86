package config

import (
	"strings"
	"time"

	"github.com/hoophq/sidecar/app"
	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/ports"
)

// ShutdownGrace returns f's shutdown_grace (0 when unset: the supervisor's
// default applies).
func ShutdownGrace(f *File) time.Duration {
	d, _ := time.ParseDuration(f.ShutdownGrace)
	return d
}

// Settings turns a validated file into the core's listener settings, in file
// order, with each listener's rules resolved and compiled.
func Settings(f *File) []app.ListenerSettings {
	approvals := map[string]domain.ApprovalRule{}
	for _, r := range f.ApprovalRules {
		tl, _ := time.ParseDuration(r.TimeLimit)
		approvals[r.Name] = domain.ApprovalRule{Name: r.Name, Match: compile(r.Match), TimeLimit: tl, ReportOnly: r.ReportOnly}
	}
	policies := map[string]domain.PolicyRule{}
	for _, r := range f.PolicyRules {
		policies[r.Name] = domain.PolicyRule{Name: r.Name, Match: compile(r.Match), Message: r.Message, ReportOnly: r.ReportOnly}
	}
	out := make([]app.ListenerSettings, 0, len(f.Listeners))
	for _, l := range f.Listeners {
		s := app.ListenerSettings{Name: l.Name, Protocol: l.Protocol, Listen: l.Listen, Upstream: l.Upstream,
			Mode: app.ModeWait, SpendOn: ports.SpendOnSent}
		if l.Mode == "return" {
			s.Mode = app.ModeReturn
		}
		if l.SpendApprovalOn == "accepted" {
			s.SpendOn = ports.SpendOnAccepted
		}
		s.WaitTimeout, _ = time.ParseDuration(l.WaitTimeout)
		for _, k := range l.IdentityKeys {
			s.IdentityKeys = append(s.IdentityKeys, strings.ToLower(k))
		}
		for _, n := range l.ApprovalRules {
			s.Approvals = append(s.Approvals, approvals[n])
		}
		for _, n := range l.PolicyRules {
			s.Policies = append(s.Policies, policies[n])
		}
		s.Masking = maskingSet(f, l.MaskingRules)
		if l.TLS != nil {
			s.TLS = app.TLSServer{CertFile: l.TLS.CertFile, KeyFile: l.TLS.KeyFile, ClientCAFile: l.TLS.ClientCAFile}
		}
		for _, x := range l.X509Logins {
			s.X509Logins = append(s.X509Logins, app.X509Login{Subject: x.Subject, CertFile: x.CertFile, KeyFile: x.KeyFile})
		}
		if t := l.UpstreamTLS; t != nil {
			s.UpstreamTLS = app.TLSClient{Enabled: t.Enabled, CAFile: t.CAFile, ServerName: t.ServerName,
				InsecureSkipVerify: t.InsecureSkipVerify, CertFile: t.CertFile, KeyFile: t.KeyFile}
		}
		out = append(out, s)
	}
	return out
}

func compile(m Match) domain.Match {
	dm := m.domain()
	_ = dm.Compile() // Validate reported any error
	return dm
}

// domain returns m as the core's Match, not compiled yet.
func (m Match) domain() domain.Match {
	return domain.Match{Actions: m.Actions, Effects: m.Effects, Preset: m.Preset, Targets: m.Targets,
		Functions: m.Functions, Identities: m.Identities, Text: m.Text}
}
