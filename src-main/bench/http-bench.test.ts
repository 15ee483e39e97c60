import { describe, expect, it } from 'vitest';
import { parseWrk } from './http-bench';

const OUTPUT = `Running 3s test @ http://127.0.0.1:18080/v1/jobs/llm-instance
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.98ms    3.55ms    1.20s   91.99%
    Req/Sec     4.85k     1.23k    7.12k    61.90%
  Latency Distribution
     50%    4.17ms
     75%    5.60ms
     90%    7.50ms
     99%  850.00us
  10455 requests in 3.00s, 3.08MB read
  Socket errors: connect 0, read 1, write 0, timeout 16
  Non-2xx or 3xx responses: 3
Requests/sec:   3485.20
Transfer/sec:      1.03MB
`;

describe('parseWrk', () => {
  it('reads the rate, the p99 and the longest wait in their units, and the errors', () => {
    expect(parseWrk(OUTPUT)).toEqual({ rps: 3485.2, p99ms: 0.85, maxMs: 1200, non2xx: 3, socketErrors: 17 });
  });

  it('leaves what wrk did not print as NaN or 0', () => {
    expect(parseWrk('Requests/sec:   10.00\n')).toEqual({ rps: 10, p99ms: NaN, maxMs: NaN, non2xx: 0, socketErrors: 0 });
  });
});
