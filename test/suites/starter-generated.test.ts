import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderStarterFiles, STARTER_DIR } from '../../scripts/starter/generate';
import { snapshotIdOf } from '../../scripts/starter/scenario';
import { STARTER_SCENARIOS } from '../../scripts/starter/scenarios';

/**
 * The committed starter files written by the builder (scripts/starter) are exactly what it
 * generates now: a change to a scenario or to the builder shows up here until
 * `npm run starter:generate` rewrites them. With UPDATE_STARTER=1 this test writes them.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const UPDATE = process.env.UPDATE_STARTER === '1';

describe('the generated starter files', () => {
  const files = renderStarterFiles();

  it(UPDATE ? 'are written' : 'equal the builder output (npm run starter:generate rewrites them)', async () => {
    for (const [rel, text] of files) {
      const file = path.join(ROOT, rel);
      if (UPDATE) await writeFile(file, text);
      const committed = await readFile(file, 'utf8').catch(() => null);
      expect(committed, `${rel} differs from the builder's output: run npm run starter:generate`).toBe(text);
    }
  });

  it('leave no file of a scenario that is gone', async () => {
    const scenarios = (await readdir(path.join(ROOT, STARTER_DIR, 'scenarios'))).map((f) => `${STARTER_DIR}/scenarios/${f}`);
    expect(scenarios.filter((f) => !files.has(f))).toEqual([]);
    const ids = new Set(STARTER_SCENARIOS.map((s) => snapshotIdOf(s.scenario.scenario_id)));
    expect(ids.size).toBe(STARTER_SCENARIOS.length);
  });
});
