// Drives the approver page in Debian's chromium with playwright-core, as a
// person would: sign in, read, approve, reject with a reason, see a new
// request appear without reloading, filter, and the same page at 375 px.
// Input (environment): CP_URL, APPROVER, TOKEN, SIDECAR_TOKEN, APPROVE_ID,
// REJECT_ID, LONG_ID, OUT (folder for the screenshots). Prints one JSON line.
import { join } from "node:path";
import { env, result, check, launch } from "./browser.mjs";

const [url, approver, token, sidecarToken] = [env("CP_URL"), env("APPROVER"), env("TOKEN"), env("SIDECAR_TOKEN")];
const [approveID, rejectID, longID, out] = [env("APPROVE_ID"), env("REJECT_ID"), env("LONG_ID"), env("OUT")];

const ctx = await launch({ httpCredentials: { username: approver, password: token } });
try {
  const page = ctx.pages()[0] ?? await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));

  await page.goto(url + "/");
  check("signed in", (await page.locator("header").innerText()).includes(`Signed in as ${approver}`));
  const pendingTab = page.getByRole("link", { name: /^Pending \d+/ });
  check("pending tab counts 3", (await pendingTab.innerText()).replace(/\s+/g, " ").trim() === "Pending 3", await pendingTab.innerText());
  const long = page.locator(`#r-${longID}`);
  check("long statement folded", await long.locator("details.full summary").isVisible() && !(await long.locator("details.full pre").isVisible()));
  check("time left shown on pending", /expires in \d+ min/.test(await page.locator(`#r-${approveID} .left`).innerText()));
  await page.screenshot({ path: join(out, "desktop.png"), fullPage: true });
  // Keyboard: the first Tab lands on the skip link, the next on the first filter.
  await page.keyboard.press("Tab");
  check("skip link first in focus order", (await page.evaluate(() => document.activeElement?.textContent)) === "Skip to the requests");
  await page.keyboard.press("Tab");
  check("then the filters", (await page.evaluate(() => document.activeElement?.textContent?.trim())) === "All 5");

  // Approve through the page.
  await page.locator(`#r-${approveID}`).getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(/done=approve/);
  check("approve notice", (await page.getByRole("status").first().innerText()).includes(`approved ${approveID}`));
  const approved = page.locator(`#r-${approveID}`);
  check("approved badge", (await approved.locator(".badge").innerText()) === "Approved");
  check("decided by shown", (await approved.innerText()).includes(approver));
  check("no time left on decided", (await approved.locator(".left").count()) === 0);

  // Reject with a reason, typed into the reason box of that request's Reject.
  const rej = page.locator(`#r-${rejectID}`);
  await rej.getByLabel("Reason (optional; the agent reads it)").fill("not during the freeze");
  await rej.getByRole("button", { name: "Reject" }).click();
  await page.waitForURL(/done=reject/);
  const rejected = page.locator(`#r-${rejectID}`);
  check("rejected badge", (await rejected.locator(".badge").innerText()) === "Rejected");
  check("reason shown", (await rejected.innerText()).includes("not during the freeze"));
  check("reopen offered", await rejected.getByRole("button", { name: "Reopen" }).isVisible());

  // A new request appears without a reload by this script.
  const filed = await fetch(url + "/api/sidecars/reviews", {
    method: "POST",
    headers: { Authorization: `Bearer ${sidecarToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ fingerprint: "v1:live", listener_name: "payments", approval_rule: "db-destructive",
      statement: "TRUNCATE audit_log", protocol: "postgres", client_identity: "agent", time_limit_seconds: 600 }),
  }).then((r) => r.json());
  await page.locator(`#r-${filed.id}`).waitFor({ timeout: 20000 });
  check("new request appeared without a reload", true, filed.id);

  // Filter per status.
  await page.getByRole("link", { name: /^Pending \d+/ }).click();
  await page.waitForURL(/status=PENDING/);
  const badges = await page.locator("article .badge").allInnerTexts();
  check("pending filter shows only pending", badges.length === 2 && badges.every((b) => b === "Pending"), badges.join(","));
  await page.goto(url + "/");

  // The phone.
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto(url + "/");
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check("no sideways scrolling at 375 px", width <= 375, String(width));
  const box = await page.locator(`#r-${filed.id}`).getByRole("button", { name: "Approve" }).boundingBox();
  check("approve button full width and tall enough on a phone", box && box.width > 300 && box.height >= 44, JSON.stringify(box));
  await page.screenshot({ path: join(out, "phone.png"), fullPage: true });
  await page.screenshot({ path: join(out, "phone-first-screen.png") });
  check("no console errors", errors.length === 0, errors.join("; "));
} finally {
  await ctx.close();
}
console.log(JSON.stringify(result));
