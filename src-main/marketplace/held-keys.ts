import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * The marketplace key each job rented with, kept until its machine is confirmed gone: a key changed
 * (or cleared) in Settings while a machine is held must not leave the machine without a key that can
 * release it. One 0600 file per job under `<dataDir>/secrets/` (0700), like the jobs' backend
 * credentials, so crash recovery and the orphan sweep find the key after a restart too. Written before
 * the rent call (an answer lost in a crash still leaves the key to look the machine up by label), and
 * deleted once the job's machine is confirmed gone, or the job ended without one.
 */

const HeldKeySchema = z.object({ key: z.string().min(1), held_since: z.string() });

export type HeldKey = { jobId: string; key: string };

const FILE_PREFIX = 'rent-key-';

export class HeldKeys {
  constructor(private readonly dir: string) {}

  fileOf(jobId: string): string {
    return path.join(this.dir, `${FILE_PREFIX}${jobId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  }

  /** Keeps the key a job is about to rent with. */
  async hold(jobId: string, key: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const body = JSON.stringify({ job_id: jobId, key, held_since: new Date().toISOString() });
    await writeFile(this.fileOf(jobId), `${body}\n`, { mode: 0o600 });
  }

  /** The key the job rented with, or null when none is held (or the file is unreadable). */
  async keyOf(jobId: string): Promise<string | null> {
    try {
      const parsed = HeldKeySchema.safeParse(JSON.parse(await readFile(this.fileOf(jobId), 'utf8')));
      return parsed.success ? parsed.data.key : null;
    } catch {
      return null;
    }
  }

  /** The job's machine is confirmed gone (or it never had one): its key is no longer needed. */
  async drop(jobId: string): Promise<void> {
    await rm(this.fileOf(jobId), { force: true });
  }

  /** Every held key, by job. An unreadable file is skipped (and named in `unreadable`). */
  async all(): Promise<{ held: HeldKey[]; unreadable: string[] }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return { held: [], unreadable: [] };
    }
    const held: HeldKey[] = [];
    const unreadable: string[] = [];
    for (const name of names) {
      if (!name.startsWith(FILE_PREFIX) || !name.endsWith('.json')) continue;
      try {
        const raw: unknown = JSON.parse(await readFile(path.join(this.dir, name), 'utf8'));
        const parsed = HeldKeySchema.extend({ job_id: z.string().min(1) }).safeParse(raw);
        if (parsed.success) held.push({ jobId: parsed.data.job_id, key: parsed.data.key });
        else unreadable.push(name);
      } catch {
        unreadable.push(name);
      }
    }
    return { held, unreadable };
  }
}
