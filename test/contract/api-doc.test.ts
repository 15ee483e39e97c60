import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../shared';
import { renderApiReference } from '../../src-main/docs/api-reference';

const DOC = path.resolve(import.meta.dirname, '..', '..', 'docs', 'api.md');

describe('docs/api.md', () => {
  it('names every operation and is what the operation table renders (UPDATE_API_DOC=1 rewrites it)', async () => {
    const rendered = renderApiReference();
    for (const name of OPERATION_NAMES) expect(rendered).toContain(`### \`${name}\``);
    if (process.env.UPDATE_API_DOC === '1') await writeFile(DOC, rendered);
    const onDisk = await readFile(DOC, 'utf8').catch(() => '');
    expect(onDisk, 'docs/api.md is out of date: run `npm run docs:api`').toBe(rendered);
  });
});
