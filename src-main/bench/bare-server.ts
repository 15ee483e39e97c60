import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/**
 * The reference servers the API is compared with, measured by the same wrk in the same run:
 * - static: bare node:http answering every request with the same bytes benchdesk answered;
 * - group-commit: bare node:http that makes each POST durable the cheapest correct way (one
 *   append + fdatasync per batch of requests, like benchdesk's journal) and answers 202.
 */
export async function runBareServer(mode: string, arg: string): Promise<void> {
  let handler: http.RequestListener;
  if (mode === 'static') {
    const { status, body } = JSON.parse(fs.readFileSync(arg, 'utf8')) as { status: number; body: string };
    const bytes = Buffer.from(body);
    handler = (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
        res.end(bytes);
      });
    };
  } else {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'benchdesk-bare-'));
    const fh = await fsp.open(path.join(dir, 'journal.jsonl'), 'a');
    let batch: { line: string; done: () => void }[] = [];
    let flushing = false;
    const flush = async (): Promise<void> => {
      while (batch.length > 0) {
        const items = batch;
        batch = [];
        await fh.write(items.map((i) => i.line).join(''));
        await fh.datasync();
        for (const i of items) i.done();
      }
      flushing = false;
    };
    handler = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const jobId = randomUUID();
        const body = Buffer.from(JSON.stringify({ job_id: jobId, status: 'accepted' }));
        batch.push({
          line: `${JSON.stringify({ job_id: jobId, request: JSON.parse(Buffer.concat(chunks).toString() || '{}') as unknown })}\n`,
          done: () => {
            res.writeHead(202, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
            res.end(body);
          },
        });
        if (!flushing) {
          flushing = true;
          setImmediate(() => void flush());
        }
      });
    };
  }
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    console.log(`bare listening ${typeof addr === 'object' && addr ? addr.port : 0}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
