// Package testcert writes throwaway TLS certificates for tests.
//
// Files:
//   - testcert.go: Write, a self-signed server certificate and key as PEM files.
package testcert
