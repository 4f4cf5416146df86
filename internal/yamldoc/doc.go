// Package yamldoc decodes a YAML config file into a Go struct with
// gopkg.in/yaml.v3 and finds every key the struct has no field for, each with
// its path, line and column. It is the one YAML reader of both binaries: the
// Sidecar's config (adapters/outbound/config) and the reference Control
// Plane's (cmd/controlplane/cpconfig), so merge keys, duplicate keys and
// anchors mean the same in both (docs/config.md, "YAML").
//
// Files:
//   - decode.go: Decode (one document, merge keys, duplicate keys) and its
//     errors.
//   - keys.go: the unknown-key walk over yaml.v3's nodes against the struct's
//     yaml tags.
package yamldoc
