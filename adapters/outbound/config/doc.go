// Package config loads and validates the Sidecar's config file (YAML,
// config.yaml): the sidecar name, the Control Plane, listeners, approval and
// policy rules, the mcp block, audit, logging and the admin address.
//
// Load parses; Validate returns every mistake with its path
// (e.g. "listeners[2].listen: …") so `sidecar validate` can print them all;
// Settings turns a valid file into the core's app.ListenerSettings.
package config
