package slackapp

import (
	"errors"
	"io"
	"net/http"

	"github.com/slack-go/slack"
)

// maxBody bounds an interactivity request (bytes); Slack's are a few KiB.
const maxBody = 1 << 20

// verified reads r's body and checks Slack's signature over it with secret
// (https://api.slack.com/authentication/verifying-requests-from-slack):
// X-Slack-Signature must be "v0=" + hex(HMAC-SHA256(secret,
// "v0:" + X-Slack-Request-Timestamp + ":" + body)), and the timestamp within
// 5 minutes of this machine's clock (slack.NewSecretsVerifier), so a
// recorded request cannot be replayed later. It returns the body, or an
// error for a missing, malformed, forged or stale signature.
func verified(r *http.Request, secret string) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxBody {
		return nil, errors.New("body too large")
	}
	sv, err := slack.NewSecretsVerifier(r.Header, secret)
	if err != nil {
		return nil, err
	}
	if _, err := sv.Write(body); err != nil {
		return nil, err
	}
	if err := sv.Ensure(); err != nil {
		return nil, err
	}
	return body, nil
}
