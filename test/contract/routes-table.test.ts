import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JOB_KINDS,
  JOB_KIND_ALIASES,
  NON_OPERATION_ROUTES,
  OPERATIONS,
  OPERATION_NAMES,
  STREAM_OPERATION_NAMES,
  UNARY_OPERATION_NAMES,
  fastifyPath,
  ipcChannel,
  type OperationDef,
} from '../../shared';
import { createHttpClient } from '../../shared/client';
import { makeBench, removeDir, type TestBench } from '../helpers/bench';
import { memoryIpc } from './transports';
import { registerIpcDispatch } from '../../src-main/adapter/ipc-dispatch';

let t: TestBench;

beforeAll(async () => {
  t = await makeBench();
  await t.bd.app.ready();
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
});

function expectedRoutes(): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  for (const name of OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    if (name === 'createJob') {
      for (const kind of JOB_KINDS) routes.push({ method: 'POST', url: `/v1/jobs/${kind}` });
      for (const alias of JOB_KIND_ALIASES) routes.push({ method: 'POST', url: alias.path });
      continue;
    }
    for (const path of [op.path, ...(op.aliases ?? [])]) routes.push({ method: op.method, url: fastifyPath(path) });
  }
  return routes;
}

describe('the operation table is the API', () => {
  it('every operation (and documented alias) has its route, and every /v1 route is one of them', () => {
    for (const { method, url } of expectedRoutes()) {
      expect(t.bd.app.hasRoute({ method, url }), `${method} ${url}`).toBe(true);
    }
    const known = new Set([...expectedRoutes(), ...NON_OPERATION_ROUTES.map((r) => ({ method: r.method, url: r.path }))].map((r) => `${r.method} ${r.url}`));
    // fastify lists each registered route in its OpenAPI document; compare the document's paths.
    const doc = t.bd.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1') && path !== '/healthz') continue;
      for (const method of Object.keys(methods)) {
        if (method === 'head') continue;
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        expect(known.has(`${method.toUpperCase()} ${url}`), `${method.toUpperCase()} ${path} is not an operation or documented alias`).toBe(true);
      }
    }
  });

  it('the HTTP client and the in-process client have a method per operation', () => {
    const http = createHttpClient({ baseUrl: 'http://127.0.0.1:1' }) as unknown as Record<string, unknown>;
    const local = t.bd.client() as unknown as Record<string, unknown>;
    for (const name of OPERATION_NAMES) {
      expect(typeof http[name], `http.${name}`).toBe('function');
      expect(typeof local[name], `in-process.${name}`).toBe('function');
    }
  });

  it('IPC has an invoke channel per unary operation and the stream channels', () => {
    const ipc = memoryIpc();
    const remove = registerIpcDispatch({ ipcMain: ipc.ipcMain, handlers: t.bd.handlers, tenantId: 'default', checkSender: () => null });
    for (const name of UNARY_OPERATION_NAMES) expect(ipc.handlers.has(ipcChannel(name)), name).toBe(true);
    expect(STREAM_OPERATION_NAMES.length).toBeGreaterThan(0);
    expect(ipc.handlers.has('benchdesk:stream-open')).toBe(true);
    remove();
    expect(ipc.handlers.size).toBe(0);
  });
});
