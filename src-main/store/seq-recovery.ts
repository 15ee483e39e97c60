import fsp from 'node:fs/promises';
import path from 'node:path';
import { forEachLimit } from './atomic-file';
import { parseJsonl } from './jsonl';
import { shardListings } from './layout';
import { parseStoredEvent } from './records';

/**
 * Highest seq in any event log: the floor when store-meta.json (the seq reservation) was lost.
 * Reads every event file, so it only runs on that rare recovery path.
 */
export async function scanMaxSeq(dataDir: string): Promise<number> {
  let max = 0;
  for await (const { dir, names } of shardListings(dataDir)) {
    await forEachLimit(
      names.filter((n) => n.endsWith('.events.jsonl')),
      16,
      async (name) => {
        const parsed = parseJsonl(await fsp.readFile(path.join(dir, name)), parseStoredEvent);
        for (const ev of parsed.values) if (ev.seq > max) max = ev.seq;
      },
    );
  }
  return max;
}
