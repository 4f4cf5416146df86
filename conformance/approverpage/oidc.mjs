// Signs in to the approver page at an OpenID provider in Debian's chromium,
// as a person would: open the page, land on the provider's login form, sign
// in, come back signed in, approve, sign out; then a person who is no
// approver signs in at the provider and is refused.
// Input (environment): CP_URL, ISSUER, IDP_USER, IDP_PASSWORD, APPROVER,
// APPROVE_ID, STRANGER_USER, STRANGER_EMAIL (same password). Prints one JSON line: {"checks": [{name, ok, detail}]}.
import { env, result, check, launch } from "./browser.mjs";

const [url, issuer, user, password, approver, approveID] =
  [env("CP_URL"), env("ISSUER"), env("IDP_USER"), env("IDP_PASSWORD"), env("APPROVER"), env("APPROVE_ID")];

const ctx = await launch();
try {
  const page = ctx.pages()[0] ?? await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  await page.goto(url + "/");
  check("sent to the provider's login", page.url().startsWith(issuer), page.url());
  await page.locator("#username").fill(user);
  await page.locator("#password").fill(password);
  await page.getByRole("button", { name: "Login" }).click();
  await page.waitForURL((u) => u.href.startsWith(url + "/"), { timeout: 20000 });
  const header = await page.locator("header").innerText();
  check("back on the page, signed in", header.includes(`Signed in as ${approver}`), header);

  await page.locator(`#r-${approveID}`).getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(/done=approve/);
  check("approve notice", (await page.getByRole("status").first().innerText()).includes(`approved ${approveID}`));
  const approved = page.locator(`#r-${approveID}`);
  check("approved badge", (await approved.locator(".badge").innerText()) === "Approved");
  check("decided by the signed-in approver", (await approved.innerText()).includes(approver));

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/signed-out/);
  check("signed out", (await page.locator("h1").innerText()) === "Signed out");
  const r = await page.request.get(url + "/ui/pending", { maxRedirects: 0 });
  check("the page refuses after signing out", r.status() === 401, String(r.status()));

  // Someone the provider knows but the config does not: refused, and told why.
  await page.goto(url + "/");
  await page.locator("#username").fill(process.env.STRANGER_USER);
  await page.locator("#password").fill(password);
  await page.getByRole("button", { name: "Login" }).click();
  await page.waitForURL((u) => u.href.startsWith(url + "/ui/oidc/callback"), { timeout: 20000 });
  const refusal = await page.locator("main").innerText();
  check("a stranger is refused", refusal.includes("Sign-in failed") && refusal.includes(`${process.env.STRANGER_EMAIL} signed in at the identity provider, but is no approver here`), refusal);
  const after = await page.request.get(url + "/ui/pending", { maxRedirects: 0 });
  check("the stranger has no session", after.status() === 401, String(after.status()));
  check("no script errors", errors.length === 0, errors.join(" | "));
} catch (e) {
  check("script ran to the end", false, String(e?.stack ?? e));
} finally {
  await ctx.close();
}
process.stdout.write(JSON.stringify(result) + "\n");
