// Package testcert writes throwaway TLS certificates for tests.
//
// Files:
//   - testcert.go: Write, a self-signed server certificate and key as PEM files.
//   - ca.go: NewCA, a certificate authority, and CA.Client, client
//     certificates it issues (for X.509 logins).
package testcert
