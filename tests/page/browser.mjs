// Drives the approval page in headless Chromium (the system's, /usr/bin/chromium, through
// playwright-core, which downloads no browser of its own) along the steps a test gives, and
// prints what it saw as one JSON object.
//
// Usage: node browser.mjs STEPS_JSON
// Each step is an object with one key:
//   {"open": {"tab": "a", "url": "...", "width": 1000, "height": 900}}  a new tab (viewport optional)
//   {"choose": {"tab": "a", "run": "RUN", "call": 0, "verdict": "allow"}}  a radio button, clicked
//   (each step that names a run may leave it out: the page's first run)
//   {"write": {"tab": "a", "run": "RUN", "call": 0, "message": "..."}}  a denial's message, typed
//   {"edit": {"tab": "a", "run": "RUN", "call": 0, "arguments": "..."}}  edited arguments, typed
//   {"set": {"tab": "a", "run": "RUN", "name": "call.0.fingerprint", "value": "..."}}  a field changed
//   {"remove": {"tab": "a", "run": "RUN", "name": "csrf"}}  a field taken out of the form
//   {"submit": {"tab": "a", "run": "RUN"}}  the form's button clicked; waits for the next page
//   {"wait_for": {"tab": "a", "run": "RUN", "ms": 10000}}  until the run's section is shown
//   {"keys": {"tab": "a", "press": ["Tab", "Space"]}}  keys pressed, one after another
//   {"wait_url": {"tab": "a", "contains": "outcome", "ms": 10000}}  until the tab is there
//   {"poke": {"url": "http://127.0.0.1:PORT/"}}  a request from the script, not the page
//   {"read": {"tab": "a", "as": "label"}}  records the page: url, status, heading, text, html
//   {"eval": {"tab": "a", "js": "expression", "as": "label"}}  records an expression's value
//   {"screenshot": {"tab": "a", "path": "...", "full": false}}
import { chromium } from "playwright-core";

const steps = JSON.parse(process.argv[2]);
const browser = await chromium.launch({
  executablePath: process.env.TOOL_SDK_CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const context = await browser.newContext();
const tabs = new Map();
const statuses = new Map();
const seen = {};
const consoleErrors = [];

// The run's section; without a run, the page's first.
function section(tab, run) {
  const page = tabs.get(tab);
  return run ? page.locator(`section.run[data-run="${run}"]`) : page.locator("section.run").first();
}

try {
  for (const step of steps) {
    const [action, args] = Object.entries(step)[0];
    const page = tabs.get(args.tab);
    switch (action) {
      case "open": {
        const tab = await context.newPage();
        await tab.setViewportSize({ width: args.width || 1000, height: args.height || 900 });
        // The page's own style and script must load: a failure there is a fault, where a
        // refused form's status is not.
        tab.on("response", (response) => {
          if (response.status() >= 400 && /\/page\.(js|css)$/.test(response.url())) {
            consoleErrors.push(`${response.status()} for ${response.url()}`);
          }
        });
        tab.on("console", (message) => {
          // A refused form's answer (403, 409) is logged as a failed load: expected, not a fault.
          if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
            consoleErrors.push(message.text());
          }
        });
        tab.on("pageerror", (error) => consoleErrors.push(String(error)));
        tabs.set(args.tab, tab);
        const response = await tab.goto(args.url);
        statuses.set(args.tab, response ? response.status() : 0);
        break;
      }
      case "choose":
        await section(args.tab, args.run)
          .locator(`input[name="call.${args.call}.verdict"][value="${args.verdict}"]`)
          .check();
        break;
      case "write":
        await section(args.tab, args.run)
          .locator(`textarea[name="call.${args.call}.message"]`)
          .fill(args.message);
        break;
      case "edit": {
        // Types the arguments a call is to run with, as a person would (the page checks them).
        const field = section(args.tab, args.run)
          .locator(`textarea[name="call.${args.call}.arguments"]`);
        await field.evaluate((text) => { text.closest("details").open = true; });
        await field.fill(args.arguments);
        break;
      }
      case "set":
        await section(args.tab, args.run)
          .locator(`[name="${args.name}"]`)
          .evaluate((field, value) => { field.value = value; }, args.value);
        break;
      case "remove":
        await section(args.tab, args.run)
          .locator(`[name="${args.name}"]`)
          .evaluate((field) => field.remove());
        break;
      case "submit": {
        const [response] = await Promise.all([
          page.waitForNavigation(),
          // The form's main button, or the one named (`allow` or `deny`: "Allow all", "Deny all").
          section(args.tab, args.run)
            .locator(args.all ? `button[name="all"][value="${args.all}"]` : "button.decide")
            .click(),
        ]);
        statuses.set(args.tab, response ? response.status() : 0);
        break;
      }
      case "wait_for":
        await section(args.tab, args.run).waitFor({ timeout: args.ms || 10000 });
        break;
      case "wait_url": {
        await page.waitForURL((url) => url.href.includes(args.contains), {
          timeout: args.ms || 10000,
        });
        break;
      }
      case "poke":
        // Tells the test to go on (a request to a listener of its own), and waits for its answer.
        await fetch(args.url);
        break;
      case "keys":
        for (const key of args.press) {
          await page.keyboard.press(key);
        }
        break;
      case "read":
        seen[args.as] = {
          url: page.url(),
          status: statuses.get(args.tab),
          heading: await page.locator("h1").textContent(),
          text: await page.locator("main").innerText(),
          html: await page.content(),
        };
        break;
      case "eval":
        seen[args.as] = await page.evaluate(args.js);
        break;
      case "screenshot":
        await page.screenshot({ path: args.path, fullPage: Boolean(args.full) });
        break;
      default:
        throw new Error(`unknown step ${action}`);
    }
  }
  seen.consoleErrors = consoleErrors;
  console.log(JSON.stringify(seen));
} catch (error) {
  // Where it stopped, for the test's failure message.
  for (const [name, tab] of tabs) {
    console.error(`tab ${name} at ${tab.url()}:\n${(await tab.content()).slice(0, 3000)}`);
  }
  throw error;
} finally {
  await browser.close();
}
