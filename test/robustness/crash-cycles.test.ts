import http from 'node:http';
import fsp from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRecordSchema } from '../../shared';
import { openJobStore } from '../../src-main/store/job-store';
import { memoryLogger, tempDataDir } from '../helpers/store';
import { buildServer, request, startServer, startSilentBackend } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * SIGKILL the headless server 20 times in the middle of a flood of job submissions. Every job that
 * got its 202 must be stored exactly once after the last restart, and nothing stored may be torn.
 * Each kill comes after a given number of acceptances in that cycle (a different one each time),
 * not after a time: how many jobs a loaded machine accepts per second is a figure for
 * `npm run bench`, never a condition of this test.
 */
const CYCLES = 20;
const IN_FLIGHT = 16;

let backend: Awaited<ReturnType<typeof startSilentBackend>>;
let dir: string;
beforeAll(async () => {
  backend = await startSilentBackend();
  dir = await tempDataDir('benchdesk-crash-');
  await buildServer();
}, 60_000);
afterAll(async () => {
  await backend.close();
  await fsp.rm(dir, { recursive: true, force: true });
});

describe('crash cycles', () => {
  it(`keeps every accepted job exactly once across ${CYCLES} SIGKILLs mid-flood`, async () => {
    const accepted = new Set<string>();
    const refused = new Map<number, number>();
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const server = await startServer(dir);
      const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
      let killed = false;
      // Kill at a different point of each cycle's flood: after 1 to 40 acceptances.
      const killAfter = 1 + ((cycle * 17) % 40);
      let acceptedThisCycle = 0;
      let reached!: () => void;
      const enough = new Promise<void>((resolve) => (reached = resolve));
      const submitter = async (): Promise<void> => {
        while (!killed) {
          try {
            const res = await request(agent, server.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
            if (res.status === 202) {
              accepted.add(String(res.body.job_id));
              if (++acceptedThisCycle >= killAfter) reached();
            } else {
              refused.set(res.status, (refused.get(res.status) ?? 0) + 1);
            }
          } catch {
            return; // the server is gone mid-request: that submission was never acknowledged
          }
        }
      };
      const flood = Promise.all(Array.from({ length: IN_FLIGHT }, submitter));
      await enough;
      killed = true;
      await server.kill('SIGKILL');
      expect((await server.exited).signal).toBe('SIGKILL');
      await flood;
      agent.destroy();
    }
    // No error responses: every answered request was a 202.
    expect(Object.fromEntries(refused)).toEqual({});

    const logger = memoryLogger();
    const store = await openJobStore({ dataDir: dir, logger, releaseLockOnExit: false });
    try {
      const seen = new Map<string, number>();
      let cursor: string | undefined;
      do {
        const page = await store.listJobs({ tenant_id: 'default', limit: 1000, cursor });
        for (const job of page.jobs) {
          seen.set(job.job_id, (seen.get(job.job_id) ?? 0) + 1);
          // Not torn: every stored record is a whole, valid job record.
          expect(JobRecordSchema.safeParse(job).success).toBe(true);
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      const missing = [...accepted].filter((id) => !seen.has(id));
      const doubled = [...seen].filter(([, n]) => n > 1);
      expect(missing).toEqual([]);
      expect(doubled).toEqual([]);
      // Torn journal tails (a write the kill interrupted, never acknowledged) may be set aside;
      // a corrupt complete line or job file may not.
      expect(logger.warnings().filter((w) => /corrupt|unreadable|rebuilt/.test(w))).toEqual([]);
      console.log(`crash cycles: ${CYCLES} kills, ${accepted.size} accepted, ${seen.size} stored, 0 lost, 0 doubled`);
    } finally {
      await store.close();
    }
  }, 90_000);
});
