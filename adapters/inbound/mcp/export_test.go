package mcp

import "time"

// SetNoProgressCap shortens the cap on waits without a progress token, so a
// test need not wait 50 s.
func SetNoProgressCap(s *Server, d time.Duration) { s.noProgressCap = d }
