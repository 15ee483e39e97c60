import { describe, expect, it } from 'vitest';
import { logLineTime } from './log-time';

const REC = Date.parse('2026-11-20T09:30:00Z');
const at = (iso: string) => Date.parse(iso);

describe('logLineTime: the stamp a log line carries', () => {
  it('RFC 3339 and its cousins (Postgres, Python, log4j), with or without a zone', () => {
    expect(logLineTime('2026-11-20T09:29:58.123Z INFO started', REC)).toBe(at('2026-11-20T09:29:58.123Z'));
    expect(logLineTime('2026-11-20 09:29:58.123 UTC [1] FATAL:  password authentication failed', REC)).toBe(at('2026-11-20T09:29:58.123Z'));
    expect(logLineTime('2026-11-20 09:29:58,401 ERROR worker: boom', REC)).toBe(at('2026-11-20T09:29:58.401Z'));
    expect(logLineTime('[2026-11-20T10:29:58+01:00] ready', REC)).toBe(at('2026-11-20T09:29:58Z'));
    expect(logLineTime('2026-11-20T09:29:58.123456789-0500 x', REC)).toBe(at('2026-11-20T14:29:58.123Z'));
  });

  it('klog (no year: the recording year, or the one before for a December line read in January)', () => {
    expect(logLineTime('E1120 09:29:58.123456       1 reflector.go:158] failed to list', REC)).toBe(at('2026-11-20T09:29:58.123Z'));
    expect(logLineTime('I1231 23:59:00.000000 1 main.go:1] x', Date.parse('2027-01-01T00:10:00Z'))).toBe(at('2026-12-31T23:59:00Z'));
  });

  it('JSON lines (ISO text or epoch seconds), logfmt and the common log format', () => {
    expect(logLineTime('{"level":"error","ts":1795167000.25,"msg":"x"}', REC)).toBe(1795167000250);
    expect(logLineTime('{"time":"2026-11-20T09:29:58Z","msg":"x"}', REC)).toBe(at('2026-11-20T09:29:58Z'));
    expect(logLineTime('time="2026-11-20T09:29:58Z" level=info msg="serving"', REC)).toBe(at('2026-11-20T09:29:58Z'));
    expect(logLineTime('10.0.1.5 - - [20/Nov/2026:09:29:58 +0000] "GET /healthz HTTP/1.1" 200 2', REC)).toBe(at('2026-11-20T09:29:58Z'));
  });

  it('a line without a stamp has none: continuations, bare messages, broken JSON', () => {
    for (const line of ['\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)', 'listening on :8080', '{"msg": ', '', '   ', 'v2026-11-20T09:29:58Z']) {
      expect(logLineTime(line, REC), line).toBeNull();
    }
  });
});
