import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { idOfFile, LoadOnce, namesIn, newRecordId, readRecordFile } from './id-files';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bd-id-files-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const Rec = z.object({ rec_id: z.string(), n: z.number() });

describe('id files', () => {
  it('a record file is <id>.json with a lower-case id; anything else is not one', () => {
    expect(idOfFile('starter-oom.json')).toBe('starter-oom');
    expect(idOfFile('a.json.tmp')).toBeNull();
    expect(idOfFile('Upper.json')).toBeNull();
    expect(idOfFile('-lead.json')).toBeNull();
    expect(idOfFile(`${'x'.repeat(65)}.json`)).toBeNull();
  });

  it('a new id from a name: its words, dashed, at most 40 characters, a random suffix; a record file takes it', () => {
    const id = newRecordId('OOM in Prod — café!', 'suite');
    expect(id).toMatch(/^oom-in-prod-cafe-[0-9a-f]{6}$/);
    expect(idOfFile(`${id}.json`)).toBe(id);
    expect(newRecordId('***', 'snapshot')).toMatch(/^snapshot-[0-9a-f]{6}$/);
    const long = newRecordId('a'.repeat(39) + ' b', 'suite');
    expect(long).toMatch(/^a{39}-[0-9a-f]{6}$/);
    expect(newRecordId('x', 'suite')).not.toBe(newRecordId('x', 'suite'));
  });

  it('a folder never created holds nothing; another error is thrown', async () => {
    const dir = await tempDir();
    expect(await namesIn(path.join(dir, 'missing'))).toEqual([]);
    await writeFile(path.join(dir, 'file'), '');
    await expect(namesIn(path.join(dir, 'file'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('reads a record against its schema and id, and says why one does not read', async () => {
    const dir = await tempDir();
    const at = (name: string) => path.join(dir, name);
    await writeFile(at('ok.json'), JSON.stringify({ rec_id: 'ok', n: 1 }));
    await writeFile(at('other.json'), JSON.stringify({ rec_id: 'ok', n: 1 }));
    await writeFile(at('bad.json'), JSON.stringify({ rec_id: 'bad', n: 'one' }));
    await writeFile(at('torn.json'), '{"rec_id": "to');
    const read = (name: string, id: string) => readRecordFile(at(name), Rec, (r) => r.rec_id, id);
    expect(await read('ok.json', 'ok')).toEqual({ record: { rec_id: 'ok', n: 1 } });
    expect(await read('other.json', 'other')).toEqual({ reason: 'its id is ok' });
    expect(await read('bad.json', 'bad')).toMatchObject({ reason: expect.stringMatching(/number/) });
    expect(await read('torn.json', 'torn')).toEqual({ reason: 'not JSON' });
    expect(await read('gone.json', 'gone')).toMatchObject({ reason: expect.stringMatching(/ENOENT/) });
  });

  it('loads once: calls made during the load share it, and peek sees nothing before it ends', async () => {
    let loads = 0;
    let finish: (v: Map<string, number>) => void = () => undefined;
    const once = new LoadOnce(() => {
      loads++;
      return new Promise<Map<string, number>>((resolve) => (finish = resolve));
    });
    const a = once.get();
    const b = once.get();
    expect(once.peek()).toBeUndefined();
    const map = new Map([['x', 1]]);
    finish(map);
    expect(await a).toBe(map);
    expect(await b).toBe(map);
    expect(await once.get()).toBe(map);
    expect(once.peek()).toBe(map);
    expect(loads).toBe(1);
  });
});
