import { z } from 'zod';

/** What every area of the operation table (../operations.ts) declares its operations with. */

export const AnyObjectSchema = z.record(z.string(), z.unknown());
export const NoInputSchema = z.object({}).strict();

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export type OperationDef = {
  /** One line: the OpenAPI summary and the heading of docs/api.md. */
  readonly summary: string;
  /** What the operation does and answers, for people writing clients (OpenAPI `description`). */
  readonly description: string;
  readonly tags: readonly string[];
  readonly method: HttpMethod;
  /** OpenAPI-style path: `{name}` segments are filled from the input field of that name. */
  readonly path: string;
  /** Deprecated paths answering the same operation (`Deprecation: true`, `Link` to `path`). */
  readonly aliases?: readonly string[];
  readonly input: z.ZodType;
  /** The response body, or for a stream the schema of each item. */
  readonly output: z.ZodType;
  /** Success status over HTTP. */
  readonly status: number;
  readonly query?: readonly string[];
  /**
   * What the HTTP body carries: `'*'` the whole input; a field name, that field; REST_BODY, the input's
   * fields that are not in the path (one JSON object, optional).
   */
  readonly body?: string;
  /** input field → HTTP header name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A live Server-Sent Events stream (HTTP), pushed items (IPC), an AsyncIterable (client). */
  readonly stream?: boolean;
  /** Public: answered without credentials (only /healthz). */
  readonly public?: boolean;
  /**
   * Only the app's own tenant (APP_TENANT_ID) may call it: settings, the marketplace key and the
   * app token are the app's, and a change reaches every tenant's jobs and machines. Any other
   * tenant gets 403 `forbidden_tenant`, over HTTP, IPC and the in-process client alike.
   */
  readonly appTenantOnly?: boolean;
  /** Richer schemas for the OpenAPI document where `input` leaves the deep checks to the service. */
  readonly docs?: {
    readonly body?: z.ZodType;
    readonly querystring?: z.ZodType;
    /** Media types the success answers besides JSON (the body is then text), each with when. */
    readonly media?: Readonly<Record<string, string>>;
  };
  /**
   * Error statuses this operation answers beyond the ones every route can (see the OpenAPI module),
   * each with when. The OpenAPI document declares them; a test sends requests and checks that every
   * status the server answers is declared.
   */
  readonly errors?: Readonly<Record<number, string>>;
  /** A larger body limit than the API's 1 MiB (a snapshot document), in bytes. */
  readonly bodyLimit?: number;
};

/** The largest snapshot document `POST /v1/snapshots/import` takes. */
export const SNAPSHOT_IMPORT_LIMIT_BYTES = 64 * 1024 * 1024;

/** `body` value: the input's fields outside the path travel as the JSON body (no input field can be named so). */
export const REST_BODY = '...rest';
