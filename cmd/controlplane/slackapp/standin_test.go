package slackapp_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// call is one Web API call the Slack stand-in received: the method
// (chat.postMessage, chat.update, views.open, chat.postEphemeral) and its
// arguments (form fields, or the JSON body's top-level keys as JSON text).
type call struct {
	Method string
	Args   map[string]string
}

// standIn plays Slack: it serves the Web API calls the app makes (answering
// ok, recording each) and sends signed interactivity payloads to the
// Control Plane the way Slack does.
type standIn struct {
	*httptest.Server
	secret string
	mu     sync.Mutex
	calls  []call
}

const (
	channel   = "C0APPROVALS"
	messageTS = "1700000000.000100"
)

func newStandIn(t *testing.T, secret string) *standIn {
	s := &standIn{secret: secret}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := call{Method: strings.TrimPrefix(r.URL.Path, "/api/"), Args: map[string]string{}}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			var m map[string]json.RawMessage
			b, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(b, &m)
			for k, v := range m {
				c.Args[k] = string(v)
			}
		} else {
			_ = r.ParseForm()
			for k := range r.PostForm {
				c.Args[k] = r.PostForm.Get(k)
			}
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch c.Method {
		case "views.open":
			_, _ = io.WriteString(w, `{"ok":true,"view":{"id":"V0001"}}`)
		case "chat.postEphemeral":
			_, _ = io.WriteString(w, `{"ok":true,"message_ts":"1700000001.000200"}`)
		default:
			_, _ = io.WriteString(w, `{"ok":true,"channel":"`+channel+`","ts":"`+messageTS+`"}`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// recorded returns the calls of method so far.
func (s *standIn) recorded(method string) []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []call
	for _, c := range s.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// waitFor polls until method was called n times and returns its last call;
// the bound is reached only when the app hangs.
func (s *standIn) waitFor(t *testing.T, method string, n int) call {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cs := s.recorded(method); len(cs) >= n {
			return cs[n-1]
		}
	}
	t.Fatalf("Slack's %s was not called %d times", method, n)
	return call{}
}

// click sends a block_actions payload: user pressed the button actionID
// (hoop_approve, hoop_reject) on the message of request id.
func (s *standIn) click(t *testing.T, cp, user, actionID, id string) int {
	code, _ := s.send(t, cp, map[string]any{
		"type": "block_actions", "trigger_id": "T-" + actionID, "user": map[string]any{"id": user},
		"channel":   map[string]any{"id": channel},
		"container": map[string]any{"type": "message", "message_ts": messageTS, "channel_id": channel},
		"message":   map[string]any{"ts": messageTS},
		"actions":   []any{map[string]any{"action_id": actionID, "block_id": "decide", "value": id, "type": "button"}},
	}, s.secret, time.Now())
	return code
}

// submit sends the view_submission of the reason modal opened by views.open
// (its private_metadata) with reason typed in; it returns the status code and body.
func (s *standIn) submit(t *testing.T, cp, user string, opened call, reason string) (int, string) {
	var view struct {
		CallbackID      string `json:"callback_id"`
		PrivateMetadata string `json:"private_metadata"`
	}
	if err := json.Unmarshal([]byte(opened.Args["view"]), &view); err != nil {
		t.Fatalf("views.open without a view: %v", opened.Args)
	}
	return s.send(t, cp, map[string]any{
		"type": "view_submission", "user": map[string]any{"id": user},
		"view": map[string]any{"id": "V0001", "callback_id": view.CallbackID, "private_metadata": view.PrivateMetadata,
			"state": map[string]any{"values": map[string]any{"reason": map[string]any{"reason": map[string]any{"type": "plain_text_input", "value": reason}}}}},
	}, s.secret, time.Now())
}

// send POSTs payload as Slack does (form field "payload"), signed with
// secret at time at, and returns the status code and the body.
func (s *standIn) send(t *testing.T, cp string, payload map[string]any, secret string, at time.Time) (int, string) {
	t.Helper()
	p, _ := json.Marshal(payload)
	body := url.Values{"payload": {string(p)}}.Encode()
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + ts + ":" + body))
	req, _ := http.NewRequest(http.MethodPost, cp+"/slack/interactivity", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
