import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { BenchdeskClient, JobEvent, JobRecord, JobStreamItem } from '../../shared';
import type { Connection } from '../../src-main/cli/connection';
import { followJob } from '../../src-main/cli/follow';
import { buildCli } from '../../src-main/cli/main';
import { defaultKubeconfig, expandPath, parsePercentage } from '../../src-main/cli/parsers';
import { applyEvent, costNow, initialState } from '../../src-main/cli/progress';
import { closest } from '../../src-main/cli/suggest';
import { printJob } from '../../src-main/cli/render';
import { firstOf } from '../../src-main/cli/output';
import { makeJob } from '../helpers/store';

/** The CLI's pure parts, in-process (the child-process tests cover the behaviour end to end). */

describe('--marketplace-reliability', () => {
  it('takes a percentage and gives the API a fraction', () => {
    expect(parsePercentage('99')).toBe(0.99);
    expect(parsePercentage('99.9')).toBe(0.999);
    expect(parsePercentage('97%')).toBe(0.97);
    expect(parsePercentage('0')).toBe(0);
    expect(parsePercentage('100')).toBe(1);
  });

  it('rejects values outside 0–100 and non-numbers', () => {
    for (const bad of ['-1', '100.5', '150', 'high', '', '0x10']) expect(() => parsePercentage(bad), bad).toThrow(/percentage from 0 to 100/);
  });
});

describe('--kubeconfig', () => {
  it('expands ~ and defaults to $KUBECONFIG, else ~/.kube/config', () => {
    expect(expandPath('~/k/config', '/home/u')).toBe('/home/u/k/config');
    expect(expandPath('~', '/home/u')).toBe('/home/u');
    expect(defaultKubeconfig({ KUBECONFIG: '/etc/kube/a:/etc/kube/b' })).toBe('/etc/kube/a');
    expect(defaultKubeconfig({})).toMatch(/\/\.kube\/config$/);
  });
});

describe('help', () => {
  function walk(cmd: CommandUnknownOpts, path: string[] = []): [string, CommandUnknownOpts][] {
    return cmd.commands.flatMap((c) => [[[...path, c.name()].join(' '), c] as [string, CommandUnknownOpts], ...walk(c, [...path, c.name()])]);
  }

  it('every command has a worked example', () => {
    const program = buildCli(() => undefined) as unknown as CommandUnknownOpts;
    const commands = walk(program);
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining(['run-llmserver-instance', 'run-agentic-agent', 'run-benchmark', 'marketplace-list-models', 'llmserver-list-models', 'estimate', 'jobs list', 'jobs show', 'jobs events', 'jobs cancel', 'jobs watch', 'instances', 'instances release', 'serve', 'driver', 'snapshot record', 'snapshot list', 'snapshot show', 'snapshot export', 'snapshot import', 'snapshot delete', 'snapshot serve', 'agents', 'templates']),
    );
    for (const [name, cmd] of commands) {
      let text = '';
      cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      cmd.exitOverride();
      try {
        cmd.parse(['--help'], { from: 'user' });
      } catch {
        // exitOverride: --help "fails" with exit code 0 after printing.
      }
      const examples = text.split('Examples:\n')[1] ?? '';
      expect(examples, name).toMatch(new RegExp(`^ {2}.*benchdesk ${name.split(' ')[0]}`, 'm'));
    }
  });

  it('suggests the closest command', () => {
    const names = ['run-llmserver-instance', 'run-llm-instance', 'run-agentic-agent', 'run-benchmark', 'estimate', 'jobs'];
    expect(closest('run-benchmrk', names)).toBe('run-benchmark');
    expect(closest('run-agent', names)).toBe('run-agentic-agent');
    expect(closest('estimat', names)).toBe('estimate');
  });
});

describe('live cost', () => {
  const job = { job_id: 'j1', kind: 'benchmark', created_at: '2026-01-01T00:00:00.000Z', progress: null, status: 'running', resources: null } as unknown as JobRecord;
  const event = (over: Partial<JobEvent>): JobEvent => ({ seq: 1, job_id: 'j1', event: 'x', status: 'info', message: null, duration_ms: null, error_type: null, labels: {}, recorded_at: '2026-01-01T00:00:00.000Z', ...over });

  it('runs at $/h from the rent and stops at the release; named phases win', () => {
    const s = initialState(job);
    applyEvent(s, event({ event: 'phase.provision', status: 'started' }));
    applyEvent(s, event({ event: 'marketplace.instance.create', status: 'started', labels: { dph_total: 0.36 } }));
    applyEvent(s, event({ event: 'marketplace.instance.create', status: 'ok', recorded_at: '2026-01-01T00:00:10.000Z' }));
    expect(s.phase).toBe('provision');
    expect(costNow(s, Date.parse('2026-01-01T00:10:10.000Z'))).toBeCloseTo(0.06, 6);
    applyEvent(s, event({ event: 'agent.ask', status: 'started' }));
    expect(s.phase).toBe('provision');
    applyEvent(s, event({ event: 'marketplace.instance.destroy', status: 'ok', recorded_at: '2026-01-01T00:20:10.000Z' }));
    expect(costNow(s, Date.parse('2026-01-01T05:00:00.000Z'))).toBeCloseTo(0.12, 6);
  });

  it('prefers the engine-reported cost.update figure', () => {
    const s = initialState(job);
    applyEvent(s, event({ event: 'cost.update', labels: { cost_usd: 1.5, dph_total: 0.6 }, recorded_at: '2026-01-01T01:00:00.000Z' }));
    expect(costNow(s, Date.parse('2026-01-01T01:30:00.000Z'))).toBeCloseTo(1.8, 6);
  });
});

describe('following a job', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('on a reset (the server lost its place in the stream) asks for the job again instead of waiting for events that will not come', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const base = { job_id: 'j1', kind: 'llm-instance', created_at: '2026-01-01T00:00:00.000Z', progress: null, resources: null, error: null, error_code: null, message: '' };
    let gets = 0;
    const client = {
      getJob: async () => {
        gets++;
        // Running when the CLI starts following; over by the time the stream is reset.
        return { ...base, status: gets === 1 ? 'running' : 'failed', error: 'boom', error_code: 'test_failure' } as unknown as JobRecord;
      },
      streamJobEvents: (_input: unknown, options?: { signal?: AbortSignal }): AsyncIterable<JobStreamItem> => ({
        async *[Symbol.asyncIterator]() {
          yield { seq: 5, job_id: 'j1', event: 'job.running', status: 'info', message: null, duration_ms: null, error_type: null, labels: {}, recorded_at: '2026-01-01T00:00:01.000Z' };
          yield { reset: true, seq: 0, after: 5, oldest_seq: null, message: 'the event stream restarted: another server' };
          // A server that lost the job's place sends nothing more for it: the CLI must not wait here.
          await new Promise<void>((resolve) => options?.signal?.addEventListener('abort', () => resolve()));
        },
      }),
    } as unknown as BenchdeskClient;
    const conn: Connection = { client, mode: 'api', local: null, apiUrl: 'http://127.0.0.1:1', dataDir: '/tmp', close: async () => undefined };
    const code = await followJob(conn, 'j1', { json: false, cancelOnInterrupt: false });
    expect(code).toBe(1);
    expect(gets).toBeGreaterThanOrEqual(2);
    expect(stderr.join('')).toMatch(/event stream restarted: another server; checking job j1 again/);
    expect(stderr.join('')).toMatch(/job j1 failed \[test_failure\]: boom/);
  });
});

/** What `jobs show` prints for a job (stdout captured). */
function shown(job: JobRecord): string {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    printJob(job);
  } finally {
    spy.mockRestore();
  }
  return lines.join('');
}

describe('a failed job in `jobs show`', () => {
  const failed = (error_code: string | null): JobRecord => makeJob({ status: 'failed', error: "driver 'holmes' reported an error: nope", error_code, message: 'failed' });

  it('words the agent failure by its error code and says what to do next', () => {
    expect(shown(failed('agent_not_installed'))).toMatch(/The agent is not installed \[agent_not_installed\]: driver 'holmes' reported an error: nope\nInstall the agent program/);
    expect(shown(failed('agent_timeout'))).toMatch(/did not answer in time \[agent_timeout\][^\n]*\n[^\n]*BENCHDESK_AGENT_TIMEOUT_S/);
    expect(shown(failed('agent_bad_output'))).toMatch(/cannot read \[agent_bad_output\]/);
    expect(shown(failed('agent_failed'))).toMatch(/The agent failed \[agent_failed\]/);
  });

  it('an unknown code is shown as it is', () => {
    expect(shown(failed('something_new'))).toContain("error [something_new]: driver 'holmes' reported an error: nope\n");
  });
});

describe('a long list in one table cell', () => {
  it('shows the first few and how many more there are', () => {
    expect(firstOf(['pods', 'network', 'storage', 'dns', 'rbac', 'oom'], 4)).toBe('pods, network, storage, dns +2 more');
    expect(firstOf(['pods', 'network'], 4)).toBe('pods, network');
    expect(firstOf([], 4)).toBe('');
  });
});

describe('an agent’s verdict in `jobs show`', () => {
  const answered = (kind: 'agentic-agent' | 'benchmark', answer: string): JobRecord => {
    const base = makeJob({ kind, status: 'succeeded', message: 'done' });
    const metadata = { agent: 'builtin', model: 'llama3', steps: 2, tool_calls: 1, prompt_tokens: 5, completion_tokens: 5, tokens_per_second: 4, duration_ms: 900 };
    const agent = { answer, result_type: 'text' as const, artifacts: [], metadata };
    const result =
      kind === 'benchmark'
        ? { ...agent, model_name: 'llama3', backend_url: 'http://127.0.0.1:11434', contract_id: null, phases: [], cost: { dph_total: 0, rented_seconds: 0, cost_usd: 0 }, instance: null, teardown: null }
        : agent;
    return { ...base, result } as JobRecord;
  };

  it('prints the parsed verdict under the answer: healthy or not, each cause with its objects, the fix', () => {
    const answer = 'The pod is OOMKilled.\n\n```json\n{"healthy": false, "causes": [{"category": "OOMKilled", "objects": ["pod/shop/orders-api-1"]}], "fix": "Raise the memory limit."}\n```';
    for (const kind of ['agentic-agent', 'benchmark'] as const) {
      const text = shown(answered(kind, answer));
      expect(text, kind).toMatch(/Verdict not healthy\n {2}cause oom-killed: pod\/shop\/orders-api-1\n {2}fix Raise the memory limit\./);
    }
  });

  it('says plainly when there is no verdict block, or one that does not read', () => {
    expect(shown(answered('agentic-agent', 'Everything is fine.'))).toContain('Verdict none: the answer does not end with a verdict block (a suite\'s rules still read the prose)');
    expect(shown(answered('agentic-agent', 'x\n```json\n{"healthy": maybe}\n```'))).toMatch(/Verdict none: the verdict block is not JSON/);
  });
});
