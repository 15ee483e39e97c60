import { BrowserWindow, ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { z } from 'zod';
import {
  IPC_JOB_EVENT_CHANNEL,
  IPC_METHODS,
  IPC_METHOD_NAMES,
  ipcChannel,
  problemType,
  type IpcMethod,
  type IpcResponse,
  type IpcResult,
  type JobEvent,
  type Problem,
} from '../../shared';
import { ProblemError } from '../app/problem-error';
import type { BenchdeskService } from '../app/service-types';

type Parsed<M extends IpcMethod> = z.output<(typeof IPC_METHODS)[M]['req']>;

/** What a handler gets: the validated request, the raw one (services re-validate raw input, as over HTTP), the sender. */
type HandlerContext<M extends IpcMethod> = { req: Parsed<M>; raw: unknown; sender: WebContents };
type Handlers = { [M in IpcMethod]: (ctx: HandlerContext<M>) => Promise<IpcResponse<M>> | IpcResponse<M> };

export type IpcOptions = {
  service: BenchdeskService;
  /** The tenant the desktop app acts as; IPC needs no token, the sender check is the credential. */
  tenantId: string;
  /** Is this frame's URL our renderer document? */
  isAppUrl(url: string): boolean;
  /** Windows the app created; IPC from any other webContents is refused. */
  isAppWindow(win: BrowserWindow): boolean;
  log?: (message: string, err?: unknown) => void;
};

const INTERNAL_PROBLEM: Problem = {
  type: problemType('internal_error'),
  title: 'Internal Server Error',
  status: 500,
  detail: 'internal error; see the app log',
  error: 'internal error; see the app log',
  code: 'internal_error',
};

function forbidden(detail: string): Problem {
  // ProblemError has no 403 title; the shape is the same.
  return { ...new ProblemError(403, 'forbidden_origin', detail).toProblem(), title: 'Forbidden' };
}

/**
 * Registers one `ipcMain.handle` per IPC method. Every call: sender check (checklist §17), request
 * validation with the method's schema, then the same BenchdeskService the HTTP routes use. Errors
 * travel as data (IpcResult), so the renderer gets the problem body, never a stack.
 * Returns a function that removes the handlers and every live subscription.
 */
export function registerIpcHandlers(options: IpcOptions): () => void {
  const { service, tenantId } = options;
  const log = options.log ?? ((message: string, err?: unknown) => console.error(`benchdesk ipc: ${message}`, err ?? ''));

  /** Per webContents: job_id (or '*' for all jobs) → unsubscribe. */
  const subscriptions = new Map<WebContents, Map<string, () => void>>();

  function dropSubscriptions(contents: WebContents): void {
    const subs = subscriptions.get(contents);
    if (!subs) return;
    subscriptions.delete(contents);
    for (const unsubscribe of subs.values()) unsubscribe();
  }

  const watched = new WeakSet<WebContents>();

  function subsFor(contents: WebContents): Map<string, () => void> {
    if (!watched.has(contents)) {
      watched.add(contents);
      // A closed window or a reloaded page no longer has the listeners these feed.
      contents.once('destroyed', () => dropSubscriptions(contents));
      contents.on('did-navigate', () => dropSubscriptions(contents));
    }
    let subs = subscriptions.get(contents);
    if (!subs) {
      subs = new Map();
      subscriptions.set(contents, subs);
    }
    return subs;
  }

  const handlers: Handlers = {
    getHealth: () => service.health(),
    createEstimate: ({ raw }) => service.estimate(raw),
    createJob: async ({ req }) => (await service.createJob(tenantId, req.kind, req.request, req.idempotency_key)).accepted,
    listJobs: ({ raw }) => service.listJobs(tenantId, raw ?? {}),
    getJob: ({ req }) => service.getJob(tenantId, req.job_id),
    cancelJob: ({ req }) => service.cancelJob(tenantId, req.job_id),
    getJobEvents: ({ req }) => service.getJobEvents(tenantId, req.job_id, req.after),
    subscribeJobEvents: async ({ req, sender }) => {
      // Same answer as the HTTP stream for a job that doesn't exist (or is another tenant's): 404.
      if (req.job_id !== null) await service.getJob(tenantId, req.job_id);
      const subs = subsFor(sender);
      const key = req.job_id ?? '*';
      if (!subs.has(key)) {
        const unsubscribe = service.subscribe(tenantId, req.job_id, (event: JobEvent) => {
          if (!sender.isDestroyed()) sender.send(IPC_JOB_EVENT_CHANNEL, event);
        });
        subs.set(key, unsubscribe);
      }
      return { subscribed: true as const };
    },
    unsubscribeJobEvents: ({ req, sender }) => {
      const subs = subscriptions.get(sender);
      const key = req.job_id ?? '*';
      subs?.get(key)?.();
      subs?.delete(key);
      return { subscribed: false as const };
    },
    listCatalog: () => service.listCatalog(),
    listLlmModels: ({ raw }) => service.listLlmModels(raw),
    getMetricsSummary: ({ raw }) => service.metricsSummary(tenantId, raw ?? {}),
  };

  function senderProblem(event: IpcMainInvokeEvent): Problem | null {
    const frame = event.senderFrame;
    if (!frame || frame.parent !== null) return forbidden('IPC is only accepted from the benchdesk window');
    if (!options.isAppUrl(frame.url)) return forbidden('IPC is only accepted from the benchdesk renderer');
    const win = BrowserWindow.fromWebContents(event.sender);
    if (!win || !options.isAppWindow(win)) return forbidden('IPC is only accepted from a benchdesk window');
    return null;
  }

  async function handle<M extends IpcMethod>(method: M, event: IpcMainInvokeEvent, raw: unknown): Promise<IpcResult> {
    const refused = senderProblem(event);
    if (refused) {
      log(`refused ${method} from ${event.senderFrame?.url ?? 'a detached frame'}`);
      return { ok: false, problem: refused };
    }
    const parsed = IPC_METHODS[method].req.safeParse(raw);
    if (!parsed.success) return { ok: false, problem: ProblemError.validation(parsed.error.issues).toProblem() };
    try {
      const handler = handlers[method] as (ctx: HandlerContext<M>) => Promise<IpcResponse<M>> | IpcResponse<M>;
      const data = await handler({ req: parsed.data as Parsed<M>, raw, sender: event.sender });
      return { ok: true, data };
    } catch (err) {
      if (err instanceof ProblemError) return { ok: false, problem: err.toProblem() };
      log(`${method} failed`, err);
      return { ok: false, problem: INTERNAL_PROBLEM };
    }
  }

  for (const method of IPC_METHOD_NAMES) {
    ipcMain.handle(ipcChannel(method), (event, raw: unknown) => handle(method, event, raw));
  }

  return () => {
    for (const method of IPC_METHOD_NAMES) ipcMain.removeHandler(ipcChannel(method));
    for (const contents of [...subscriptions.keys()]) dropSubscriptions(contents);
  };
}
