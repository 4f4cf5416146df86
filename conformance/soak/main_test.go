package soak

import (
	"testing"

	"github.com/hoophq/sidecar/conformance/harness"
)

// TestMain lets the harness pick and stop the upstreams.
func TestMain(m *testing.M) { harness.Main(m) }
