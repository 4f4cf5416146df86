package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ApproveWhilePending approves every PENDING request of the Control Plane
// at cpURL (through the approver API, with ApproverToken) every 200 ms
// until stop is closed, and returns how many it approved. A Control Plane
// that does not answer (restarting) is asked again at the next tick. Safe
// to run in its own goroutine: it never calls testing's Fatal.
func ApproveWhilePending(cpURL string, stop <-chan struct{}) int {
	n := 0
	call := func(method, path string, v any) error {
		req, _ := http.NewRequest(method, cpURL+path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+ApproverToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: %d", method, path, resp.StatusCode)
		}
		if v != nil {
			return json.NewDecoder(resp.Body).Decode(v)
		}
		return nil
	}
	for {
		select {
		case <-stop:
			return n
		case <-time.After(200 * time.Millisecond):
		}
		var list struct {
			Reviews []struct {
				ID string `json:"id"`
			} `json:"reviews"`
		}
		if call("GET", "/api/reviews?status=PENDING&limit=200", &list) != nil {
			continue
		}
		for _, r := range list.Reviews {
			if call("POST", "/api/reviews/"+r.ID+"/approve", nil) == nil {
				n++
			}
		}
	}
}
