import { AxeBuilder } from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './support';

/** Where lookAt's screenshots go (git-ignored): screenshots/look/<name>-<width>-<theme>.png. */
export const LOOK_DIR = path.join(ROOT, 'screenshots', 'look');
export const WIDTHS = [1024, 1920] as const;
const THEMES = ['light', 'dark'] as const;

/** Two animation frames: the page has laid out and painted what the last change asked for (no timer). */
export async function painted(page: Page): Promise<void> {
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
}

/** axe-core's serious and critical violations on the page as it is now, one line each (empty = clean). */
export async function axeBlocking(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/**
 * The page as it is, at 1024 and 1920 px in the light and the dark theme, switched in place (one
 * browser, one page, no reload): a full-page screenshot of each and axe on each. Returns the axe
 * findings, prefixed with where they were found (empty = clean everywhere).
 */
export async function lookAt(page: Page, name: string, options: { height?: number; axe?: boolean } = {}): Promise<string[]> {
  mkdirSync(LOOK_DIR, { recursive: true });
  const found: string[] = [];
  const before = page.viewportSize();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: options.height ?? 900 });
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await page.locator(`html[data-theme="${theme}"]`).waitFor({ state: 'attached' });
      await painted(page);
      await page.screenshot({ path: path.join(LOOK_DIR, `${name}-${width}-${theme}.png`), fullPage: true });
      if (options.axe !== false) for (const v of await axeBlocking(page)) found.push(`${name} ${width}px ${theme}: ${v}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (before) await page.setViewportSize(before);
  return found;
}
