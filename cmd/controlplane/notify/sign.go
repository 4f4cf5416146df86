package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks (https://www.standardwebhooks.com, spec/standard-webhooks.md,
// "Signature scheme"): every POST carries webhook-id (the notification's
// id, the same on every try), webhook-timestamp (Unix seconds of this try)
// and, for a webhook with a secret, webhook-signature: "v1," followed by the
// base64 of HMAC-SHA256(key, id + "." + timestamp + "." + body).

// SecretPrefix starts a Standard Webhooks secret; the rest is the base64
// of the key (24 to 64 random bytes).
const SecretPrefix = "whsec_"

// ParseSecret returns the HMAC key of a "whsec_" + base64 secret. Errors
// say what is wrong without repeating the secret.
func ParseSecret(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return nil, errors.New(`is not a Standard Webhooks secret: it must start with "whsec_"`)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, errors.New(`is not "whsec_" followed by base64`)
	}
	if len(key) < 24 || len(key) > 64 {
		return nil, fmt.Errorf("holds a %d-byte key; Standard Webhooks wants 24 to 64 bytes", len(key))
	}
	return key, nil
}

// Sign returns the webhook-signature value ("v1,<base64>") of body sent as
// notification id at ts (Unix seconds) under key.
func Sign(key []byte, id string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Verify is what a receiver does: it checks that one of the
// space-separated signatures in sig is body's, sent as id at ts (the
// webhook-timestamp header), and that ts is within tolerance of now.
func Verify(key []byte, id, ts, sig string, body []byte, now time.Time, tolerance time.Duration) error {
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not Unix seconds")
	}
	if d := now.Sub(time.Unix(t, 0)); d > tolerance || d < -tolerance {
		return errors.New("webhook-timestamp is outside the tolerance")
	}
	want := Sign(key, id, t, body)
	for _, s := range strings.Fields(sig) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("no valid webhook-signature")
}
