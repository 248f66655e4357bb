/**
 * axe-core inside a page: its source is evaluated in the page (page.evaluate runs outside the
 * page's Content-Security-Policy, so the service's strict CSP stays as it is), then axe.run checks
 * the document against WCAG 2.0, 2.1 and 2.2 at levels A and AA.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Frame, Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface Violation {
  id: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

/** The page's violations, one line each: id, impact, what it asks for, and the elements' selectors. */
async function axeViolations(page: Page | Frame): Promise<Violation[]> {
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (tags) => (window as unknown as { axe: { run(context: Document, options: unknown): Promise<AxeResults> } }).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    TAGS,
  );
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    targets: v.nodes.map((n) => n.target.map(String).join(' ')),
  }));
}

/** Fails, listing every violation (id, impact, target selectors), when axe finds any on the page as it is now. */
export async function expectNoAxeViolations(page: Page | Frame, label: string): Promise<void> {
  const violations = await axeViolations(page);
  if (violations.length === 0) return;
  const report = violations.map((v) => `${label}: ${v.id} (${v.impact ?? 'no impact'}): ${v.help}\n    ${v.targets.join('\n    ')}`);
  throw new Error(`axe found ${violations.length} violation(s) on ${label}:\n${report.join('\n')}`);
}
