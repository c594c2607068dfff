// A real browser for the page tests: the system's Chromium (Debian package `chromium`) driven by playwright-core,
// which ships no browser of its own. No browser is a failing test, never a silent pass.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './index.js';

const CANDIDATES = process.env.PO_NODE_CHROMIUM ? [process.env.PO_NODE_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
export const CHROMIUM = CANDIDATES.find((p) => existsSync(p));
export const NO_BROWSER =
  `no Chromium found (${CANDIDATES.join(', ')}): install the Debian package \`chromium\` (apt-get install chromium), ` +
  'or set PO_NODE_CHROMIUM to a Chromium binary';

/** Screenshots for people (not committed; .gitignore). */
export const RESULTS = join(ROOT, 'test-results');

/**
 * Headless Chromium; playwright gives each launch a fresh temporary profile (--user-data-dir) and removes it on close.
 * Background traffic is off, so a page's requests are its own.
 */
export function launch() {
  if (!CHROMIUM) throw new Error(NO_BROWSER);
  mkdirSync(RESULTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A page that records what should never happen on ours: console errors, uncaught exceptions, dialogs (a script
 * injected through a name would open one), failed requests.
 */
export async function watchedPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()} (${m.location().url})`));
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  return { page, problems };
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** axe-core's violations on the page (evaluated through the DevTools protocol: the page's CSP does not apply). */
export async function axeViolations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    // @ts-ignore: injected above
    const r = await globalThis.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5),
    }));
  });
}
