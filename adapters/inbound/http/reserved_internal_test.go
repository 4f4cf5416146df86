package httplistener

import (
	"bufio"
	"strings"
	"testing"

	"net/http"
)

func TestIsReserved(t *testing.T) {
	cases := map[string]bool{
		"/.well-known/hoop/approvals/x": true, "/.well-known/hoop": true, "/.well-known/hoop/": true,
		"/.WELL-KNOWN/HOOP/x": true, "//.well-known/hoop/x": true, "/a/../.well-known/hoop/x": true,
		"/%2ewell-known/hoop/x": true, "/.well-known%2Fhoop/x": true, "/%252ewell-known/hoop/x": true,
		"/.well-known;a=b/hoop/x": true, "http://h/.well-known/hoop/x": true,
		"/.well-known/hoopla": false, "/v1/.well-known/hoop/x": false, "/.well-known/other": false,
		"/": false, "*": false, "/api/v1/pods": false,
	}
	for target, want := range cases {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if got := isReserved(r); got != want {
			t.Errorf("isReserved(%q) = %v, want %v", target, got, want)
		}
	}
}
