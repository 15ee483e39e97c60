import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src-main/agents/errors';
import { StdioDriverTransport } from '../../src-main/agents/stdio-transport';

const DRIVER = path.join(import.meta.dirname, 'fixtures', 'fake-driver.mjs');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-stdio-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function transport(mode: string, extra: Partial<ConstructorParameters<typeof StdioDriverTransport>[0]> = {}) {
  const { env, ...rest } = extra;
  return new StdioDriverTransport({
    command: [process.execPath, DRIVER],
    label: "driver 'fake'",
    ...rest,
    env: { ...process.env, FAKE_DRIVER_MODE: mode, ...env },
  });
}

async function failure(p: Promise<unknown>): Promise<AgentError> {
  const err = await p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgentError);
  return err as AgentError;
}

/** Alive and not a zombie (a container's PID 1 may not reap orphans). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe('StdioDriverTransport', () => {
  it('sends one request line and returns the result; stderr comes line by line', async () => {
    const lines: string[] = [];
    const result = await transport('ok').call('ask', { question: 'hi' }, { onStderr: (l) => lines.push(l) });
    expect(result).toMatchObject({ answer: 'echo: hi', params: { question: 'hi' } });
    expect(lines).toEqual(['thinking...', 'still thinking']);
  });

  it('spawn failure names the command', async () => {
    const t = new StdioDriverTransport({ command: ['benchdesk-no-such-driver', 'x'], label: "driver 'ghost'" });
    const err = await failure(t.call('ask', {}));
    expect(err.code).toBe('spawn_failed');
    expect(err.message).toBe("driver 'ghost': command not found: 'benchdesk-no-such-driver' (not installed or not on PATH)");
  });

  it('non-zero exit carries the stderr tail', async () => {
    const err = await failure(transport('exit3').call('ask', {}));
    expect(err.code).toBe('exit_nonzero');
    expect(err.message).toBe("driver 'fake' failed (exit code 3): fatal: cannot load model config");
    expect(err.details.exitCode).toBe(3);
  });

  it('no output', async () => {
    const err = await failure(transport('silent').call('ask', {}));
    expect(err.code).toBe('no_output');
    expect(err.message).toMatch(/exited without writing a response line/);
  });

  it('non-JSON output', async () => {
    const err = await failure(transport('garbage').call('ask', {}));
    expect(err.code).toBe('invalid_json');
    expect(err.message).toMatch(/not JSON: Hello, I am not JSON/);
  });

  it('a JSON line that is not a protocol response', async () => {
    const err = await failure(transport('not-protocol').call('ask', {}));
    expect(err.code).toBe('invalid_response');
  });

  it('mismatched id', async () => {
    const err = await failure(transport('wrong-id').call('ask', {}));
    expect(err.code).toBe('id_mismatch');
    expect(err.message).toMatch(/answered request id 'someone-else' instead of '[0-9a-f-]{36}'/);
  });

  it('status error carries the driver message', async () => {
    const err = await failure(transport('error').call('ask', {}));
    expect(err.code).toBe('driver_error');
    expect(err.message).toBe("driver 'fake' reported an error: model llama9 is not available");
  });

  it('the kind in an error line (`code`) is kept: not_installed, timeout, bad_output; failed or unknown is a driver error', async () => {
    const codes: Record<string, string> = { not_installed: 'not_installed', timeout: 'timeout', bad_output: 'invalid_response', failed: 'driver_error', 'from-the-future': 'driver_error' };
    for (const [wire, code] of Object.entries(codes)) {
      const err = await failure(transport('error-with-code', { env: { FAKE_DRIVER_ERROR_CODE: wire } }).call('ask', {}));
      expect(err.code, wire).toBe(code);
      expect(err.message).toBe("driver 'fake' reported an error: something went wrong");
    }
  });

  it('an answer followed by a failing exit is not trusted', async () => {
    const err = await failure(transport('ok-then-exit1').call('ask', {}));
    expect(err.code).toBe('exit_nonzero');
    expect(err.message).toMatch(/answered but then failed \(exit code 1\)/);
  });

  it('a driver that answers but does not exit is stopped after a grace and its answer kept', async () => {
    const result = await transport('ok-linger', { exitGraceMs: 300, killGraceMs: 300 }).call('ask', {});
    expect(result).toEqual({ answer: 'answered, then idles' });
  });

  it('oversize output kills the driver', async () => {
    const err = await failure(transport('huge', { maxStdoutBytes: 64 * 1024 }).call('ask', {}));
    expect(err.code).toBe('output_too_large');
    expect(err.message).toMatch(/more than 65536 bytes/);
  });

  it('timeout kills the whole process group, grandchild included, even if the driver ignores SIGTERM', async () => {
    const pidfile = path.join(dir, 'timeout.pid');
    const t = transport('hang-ignore-term', { timeoutMs: 700, killGraceMs: 300, env: { FAKE_DRIVER_PIDFILE: pidfile } });
    const err = await failure(t.call('ask', {}));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/did not finish within 700 ms; its processes were stopped/);
    const grandchild = Number(readFileSync(pidfile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitFor(() => !isAlive(grandchild))).toBe(true);
  });

  it('cancel via AbortSignal kills the group', async () => {
    const pidfile = path.join(dir, 'cancel.pid');
    const controller = new AbortController();
    const t = transport('hang', { env: { FAKE_DRIVER_PIDFILE: pidfile } });
    const p = t.call('ask', {}, { signal: controller.signal });
    expect(await waitFor(() => {
      try {
        return readFileSync(pidfile, 'utf8').length > 0;
      } catch {
        return false;
      }
    })).toBe(true);
    const grandchild = Number(readFileSync(pidfile, 'utf8'));
    controller.abort();
    const err = await failure(p);
    expect(err.code).toBe('cancelled');
    expect(await waitFor(() => !isAlive(grandchild))).toBe(true);
  });

  it('an already aborted signal does not spawn', async () => {
    const err = await failure(transport('ok').call('ask', {}, { signal: AbortSignal.abort() }));
    expect(err.code).toBe('cancelled');
  });
});
