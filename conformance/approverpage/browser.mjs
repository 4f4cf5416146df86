// What script.mjs and oidc.mjs share: reading their input, recording checks
// and printing them as the one JSON line the Go tests read, and launching
// Debian's chromium headless in a fresh profile.
import { chromium } from "playwright-core";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// env returns the environment variable k, or throws when it is not set.
export const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v; };

// result collects the checks; print it last with JSON.stringify.
export const result = { checks: [] };
export const check = (name, ok, detail) => { result.checks.push({ name, ok: !!ok, detail: detail ?? "" }); };

// launch starts chromium with options (playwright's persistent-context
// options, e.g. httpCredentials) beside the ones every test needs.
export const launch = (options = {}) => chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "hoop-chromium-")), {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1280, height: 900 },
  ...options,
});
