package httplistener

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hoophq/sidecar/domain"
	"github.com/hoophq/sidecar/domain/masking"
)

// BenchmarkMaskJSONBody is the cost of masking one 2.2 KB JSON body of 20
// users (an email, a card and a note each) with all nine entities: the
// body bench/masking.sh serves.
func BenchmarkMaskJSONBody(b *testing.B) {
	type u struct {
		ID    int    `json:"id"`
		Name  string `json:"name"`
		Email string `json:"email"`
		Card  string `json:"card"`
		Note  string `json:"note"`
	}
	var us []u
	for i := 0; i < 20; i++ {
		us = append(us, u{i, fmt.Sprintf("user %d", i), fmt.Sprintf("user%d@example.com", i), "4111 1111 1111 1111", fmt.Sprintf("ordered %d items on 2024-01-%02d", i, i+1)})
	}
	body, _ := json.Marshal(map[string]any{"users": us})
	s, _ := masking.Compile([]masking.Rule{{Name: "pii", Entities: masking.EntityNames(), Strategy: masking.Mask}})
	if _, changed, err := maskBody(s.For(domain.Analysis{}, domain.Facts{}), "application/json", "", body); !changed || err != nil {
		b.Fatalf("the body was not masked (changed %v, err %v): the benchmark would time a copy", changed, err)
	}
	for b.Loop() {
		p := s.For(domain.Analysis{}, domain.Facts{})
		maskBody(p, "application/json", "", body)
	}
}
