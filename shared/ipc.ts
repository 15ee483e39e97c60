import { z } from 'zod';
import {
  STREAM_OPERATION_NAMES,
  UNARY_OPERATION_NAMES,
  type OperationInput,
  type OperationOutput,
  type StreamOperationName,
  type UnaryOperationName,
} from './operations';
import { ProblemSchema } from './problems';

/**
 * The IPC contract, derived from the operation table: one invoke channel per unary operation, one
 * pair of channels to open and close streams, one push channel for stream messages, plus the few
 * desktop-only actions (native dialogs) that have no HTTP equivalent. Main checks the sender and
 * validates every payload before calling the operation handlers HTTP uses.
 */
export const DESKTOP_METHODS = {
  /** A native file dialog for a kubeconfig; `path` is null when the user cancelled. */
  pickKubeconfig: {
    req: z.object({}).strict(),
    res: z.object({ path: z.string().nullable() }),
  },
  /** A native save dialog, then write `content` (UTF-8) there; `path` is null when cancelled. */
  saveFile: {
    req: z.object({ suggested_name: z.string().min(1).max(255), content: z.string().max(50 * 1024 * 1024) }).strict(),
    res: z.object({ path: z.string().nullable() }),
  },
  /** Opens the data dir in the system file manager. */
  openDataDir: {
    req: z.object({}).strict(),
    res: z.object({ opened: z.boolean(), path: z.string() }),
  },
  /**
   * The desktop app's version and runtime, and how it stores the marketplace key: `key_storage`
   * says whether Electron safeStorage can encrypt here and with what (`backend` on Linux:
   * `gnome_libsecret`, `kwallet*`, or `basic_text` = no keyring, obfuscation only; null elsewhere).
   */
  getAppInfo: {
    req: z.object({}).strict(),
    res: z.object({
      version: z.string(),
      electron: z.string(),
      chrome: z.string(),
      node: z.string(),
      platform: z.string(),
      arch: z.string(),
      data_dir: z.string(),
      settings_file: z.string(),
      api_url: z.string().nullable(),
      key_storage: z.object({ available: z.boolean(), backend: z.string().nullable(), strong: z.boolean() }),
    }),
  },
} as const;
export type DesktopMethod = keyof typeof DESKTOP_METHODS;
export const DESKTOP_METHOD_NAMES = Object.keys(DESKTOP_METHODS) as DesktopMethod[];
export type DesktopRequest<M extends DesktopMethod> = z.input<(typeof DESKTOP_METHODS)[M]['req']>;
export type DesktopResponse<M extends DesktopMethod> = z.output<(typeof DESKTOP_METHODS)[M]['res']>;

export type IpcInvokeName = UnaryOperationName | DesktopMethod;
export const IPC_INVOKE_NAMES: readonly IpcInvokeName[] = [...UNARY_OPERATION_NAMES, ...DESKTOP_METHOD_NAMES];

export function ipcChannel(name: IpcInvokeName): string {
  return `benchdesk:${name}`;
}

export const IPC_STREAM_OPEN_CHANNEL = 'benchdesk:stream-open';
export const IPC_STREAM_CLOSE_CHANNEL = 'benchdesk:stream-close';
/** Main → renderer: items and the end of every stream a window opened. */
export const IPC_STREAM_CHANNEL = 'benchdesk:stream';

const StreamIdSchema = z.string().min(1).max(64);
export const IpcStreamOpenSchema = z
  .object({
    stream_id: StreamIdSchema,
    operation: z.enum(STREAM_OPERATION_NAMES as [StreamOperationName, ...StreamOperationName[]]),
    input: z.unknown(),
  })
  .strict();
export const IpcStreamCloseSchema = z.object({ stream_id: StreamIdSchema }).strict();

export const IpcStreamMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('item'), stream_id: z.string(), item: z.unknown() }),
  z.object({ type: z.literal('end'), stream_id: z.string(), problem: ProblemSchema.nullable() }),
]);
export type IpcStreamMessage = z.infer<typeof IpcStreamMessageSchema>;

/** What travels back over IPC: errors are data, so the renderer sees the same problem body as HTTP. */
export const IpcResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), problem: ProblemSchema }),
]);
export type IpcResult = z.infer<typeof IpcResultSchema>;

/**
 * What the preload exposes as `window.api`: one named function per operation and desktop action
 * (never a generic invoke passthrough), and the stream channels. The renderer's bridge turns it
 * into a BenchdeskClient.
 */
export type PreloadApi = {
  readonly [O in UnaryOperationName]: (input: OperationInput<O>) => Promise<OperationOutput<O>>;
} & {
  readonly [M in DesktopMethod]: (req: DesktopRequest<M>) => Promise<DesktopResponse<M>>;
} & {
  openStream(streamId: string, operation: StreamOperationName, input: unknown): Promise<void>;
  closeStream(streamId: string): Promise<void>;
  /** Calls `listener` for every stream message; returns an unsubscribe function. */
  onStreamMessage(listener: (message: IpcStreamMessage) => void): () => void;
  readonly transport: 'electron';
};
