package config

import (
	"testing"
)

// FuzzParse loads any bytes as a config file (the decoder and the unknown-key
// walk), then validates it and, when valid, turns it into listener settings.
// Every input ends in mistakes or settings, never a panic; a file without
// mistakes yields one setting per listener.
func FuzzParse(f *testing.F) {
	protocols := Protocols{"postgres": {}, "http": {IdentityKeys: true}, "grpc": {IdentityKeys: true}, "mongodb": {ClientCertificates: true}}
	f.Add([]byte("sidecar: s\napproval_rules: [{name: a, match: {preset: destructive, identities: [\"agent-*\"], text: \"(?i)x\"}, report_only: true}]\n" +
		"listeners: [{name: l, protocol: postgres, listen: \"127.0.0.1:1\", upstream: \"x:1\", approval_rules: [a]}]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, unknown, err := Parse(b)
		if err != nil || len(unknown) > 0 {
			return
		}
		if errs := Validate(file, protocols); len(errs) > 0 {
			return
		}
		if got := Settings(file); len(got) != len(file.Listeners) {
			t.Fatalf("%d listeners gave %d settings:\n%s", len(file.Listeners), len(got), b)
		}
		Warnings(file, protocols)
	})
}
