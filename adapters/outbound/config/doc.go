// Package config loads and validates the Sidecar's config file (YAML,
// config.yaml): the sidecar name, the Control Plane, listeners, approval and
// policy rules, the mcp block, audit, logging and the admin address.
//
// Files:
//   - types.go: File and its blocks, as written (yaml tags are the keys).
//   - load.go: Load and Parse; a text that is not YAML, a repeated key or a
//     value of the wrong type is an error, and every unknown key is returned
//     as a mistake (internal/yamldoc reads the YAML and finds those keys).
//   - validate.go: Validate returns every other mistake with its path
//     (e.g. "listeners[2].listen: …"), including each rule action that the
//     protocol of a listener using the rule never reports.
//   - settings.go: Settings turns a valid file into app.ListenerSettings.
//
// `sidecar validate` prints the mistakes of Parse and Validate together;
// docs/config.md describes the file.
package config
