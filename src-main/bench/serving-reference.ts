import http from 'node:http';
import { percentile } from '../serving/stats';
import type { BenchApi } from './serving-fakes';

/**
 * The minimal reference client the serving bench measures beside the generator (design §10): a
 * closed loop of plain node:http requests on a keep-alive agent, each chunk timed on arrival, the
 * first line with text ending TTFT, nothing else on its event loop. What it measures is what a
 * careful hand-written client gets on this machine.
 */

const hasText = (api: BenchApi, line: string): boolean => {
  if (api === 'ollama') return line.includes('"content":"') && !line.includes('"content":""');
  return line.startsWith('data: ') && line.includes('"content":"') && !line.includes('"content":""');
};

export async function referenceRun(options: { api: BenchApi; url: string; model: string; concurrency: number; requests: number; outputTokens: number; prompt: string }): Promise<{ ttftP50: number; outputTokensPerS: number; failed: number }> {
  const { api, concurrency, requests, outputTokens } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const path = api === 'ollama' ? '/api/chat' : '/v1/chat/completions';
  const url = new URL(path, options.url);
  const messages = [{ role: 'user', content: options.prompt }];
  const body =
    api === 'ollama'
      ? JSON.stringify({ model: options.model, messages, stream: true, options: { num_predict: outputTokens } })
      : JSON.stringify({ model: options.model, messages, stream: true, max_tokens: outputTokens, ignore_eos: true, stream_options: { include_usage: true } });
  const one = () =>
    new Promise<{ ttft: number; end: number } | null>((resolve) => {
      const sent = performance.now();
      let first = 0;
      let rest = '';
      const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const t = performance.now();
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          if (first === 0 && lines.some((l) => hasText(api, l))) first = t;
        });
        res.on('end', () => resolve(first > 0 ? { ttft: first - sent, end: performance.now() } : null));
      });
      req.on('error', () => resolve(null));
      req.end(body);
    });
  // One unmeasured wave: `concurrency` connections open, as the generator's warm-up leaves them.
  await Promise.all(Array.from({ length: concurrency }, one));
  const ttfts: number[] = [];
  let failed = 0;
  let started = 0;
  let last = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < requests) {
        started++;
        const r = await one();
        if (!r) failed++;
        else {
          ttfts.push(r.ttft);
          last = Math.max(last, r.end);
        }
      }
    }),
  );
  agent.destroy();
  const seconds = (last - t0) / 1000;
  return { ttftP50: percentile(ttfts.sort((a, b) => a - b), 50), outputTokensPerS: seconds > 0 ? (ttfts.length * outputTokens) / seconds : 0, failed };
}
