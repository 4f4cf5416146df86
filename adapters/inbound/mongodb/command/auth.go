package command

import (
	"bytes"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Auth is an authentication step: what the listener relays to the upstream
// and the identity the fingerprint takes (the SCRAM user).
type Auth struct {
	// Command is the command as sent: saslStart, saslContinue,
	// authenticate, logout, getnonce; for speculative authentication the
	// command inside hello's speculativeAuthenticate.
	Command string
	// Mechanism as sent: SCRAM-SHA-1, SCRAM-SHA-256, MONGODB-X509, PLAIN…
	// Empty for saslContinue and logout.
	Mechanism string
	// User is the user name the client claims: the SCRAM client-first
	// message's "n=" (RFC 5802 section 5.1, =2C and =3D unescaped), PLAIN's
	// authcid (RFC 4616), authenticate's "user" (X.509; empty when the
	// server takes it from the certificate). Empty when the step names
	// none (saslContinue). No password or proof is ever kept.
	User string
	// Database is the authentication database: the command's $db, or the
	// "db" of a speculativeAuthenticate document.
	Database string
	// Speculative is true when the step rode in hello's
	// speculativeAuthenticate.
	Speculative bool
}

// parseAuth reads an authentication command document.
func parseAuth(d bsoncore.Document, db string) *Auth {
	first, err := d.IndexErr(0)
	if err != nil {
		return nil
	}
	a := &Auth{Command: first.Key(), Database: db}
	if s, ok := d.Lookup("db").StringValueOK(); ok {
		a.Database = s
	}
	if s, ok := d.Lookup("$db").StringValueOK(); ok {
		a.Database = s
	}
	a.Mechanism, _ = d.Lookup("mechanism").StringValueOK()
	if u, ok := d.Lookup("user").StringValueOK(); ok {
		a.User = u
	}
	if strings.EqualFold(a.Command, "saslStart") {
		var payload []byte
		pv := d.Lookup("payload")
		if _, b, ok := pv.BinaryOK(); ok {
			payload = b
		} else if s, ok := pv.StringValueOK(); ok {
			payload = []byte(s)
		}
		switch {
		case strings.HasPrefix(strings.ToUpper(a.Mechanism), "SCRAM-"):
			a.User = scramUser(payload)
		case strings.EqualFold(a.Mechanism, "PLAIN"):
			if parts := bytes.SplitN(payload, []byte{0}, 3); len(parts) == 3 {
				a.User = string(parts[1])
			}
		}
	}
	return a
}

// scramUser returns the user name of a SCRAM client-first message
// (RFC 5802 section 7: gs2-header "n,," or "y,," or "p=…," with an
// optional "a=authzid", then optional "m=…", then "n=saslname"), with =2C
// and =3D unescaped. Empty when there is none.
func scramUser(msg []byte) string {
	parts := strings.Split(string(msg), ",")
	if len(parts) < 3 {
		return ""
	}
	for _, p := range parts[2:] {
		if strings.HasPrefix(p, "m=") {
			continue
		}
		if name, ok := strings.CutPrefix(p, "n="); ok {
			return strings.NewReplacer("=2C", ",", "=3D", "=").Replace(name)
		}
		return ""
	}
	return ""
}
