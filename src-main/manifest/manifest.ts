import { createHash } from 'node:crypto';
import type { Manifest, ManifestMachine, SpokenBackendApi } from '../../shared';
import { VERSION } from '../app/version';
import { redactSecrets } from '../engine/redact';

/**
 * The manifest builder (design §12b): everything a result needs to be reproduced, for suite
 * results, serving results and sweep reports alike. Pure apart from the hashing; the backend
 * facts (version, model digest) are read by `readBackendFacts` with whatever client the caller
 * holds. Every field a producer does not know is null (never absent).
 */

/** The version a manifest records, for engine/ workflows (which sit below app/ and may not import it). */
export const BENCHDESK_VERSION: string = VERSION;

/** JSON with object keys sorted at every level (arrays keep their order): the same value always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** SHA-256 (lower-case hex) of a value's canonical JSON. */
export function sha256OfCanonical(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** What the backend says of itself and of the model (null where it would not say). */
export type BackendFacts = { backend_api: SpokenBackendApi | null; backend_version: string | null; model_digest: string | null };

/** The calls readBackendFacts needs: Ollama's LlmServerClient has both; an OpenAI-compatible client answers what it can. */
export type BackendFactsSource = {
  version(options?: { signal?: AbortSignal }): Promise<string | null>;
  listModels(options?: { signal?: AbortSignal }): Promise<readonly { name: string; digest?: string | null }[]>;
};

/** The backend's version (`/api/version`) and the model's digest (`/api/tags`); a call that fails leaves its field null. */
export async function readBackendFacts(source: BackendFactsSource, model: string | null, api: SpokenBackendApi | null, signal?: AbortSignal): Promise<BackendFacts> {
  const options = signal ? { signal } : {};
  const version = await source.version(options).catch(() => null);
  let digest: string | null = null;
  if (model) {
    const models = await source.listModels(options).catch(() => []);
    const wanted = model.includes(':') ? model : `${model}:latest`;
    digest = models.find((m) => m.name === model || m.name === wanted)?.digest ?? null;
  }
  return { backend_api: api, backend_version: version, model_digest: digest };
}

export type ManifestInput = {
  suite?: { suite_id: string; scenarios: readonly unknown[]; name?: string; description?: string } | null;
  /** The documents of the snapshots the run read, by id (hashed here). */
  snapshots?: Readonly<Record<string, unknown>> | null;
  model?: string | null;
  backend?: BackendFacts | null;
  agent?: { name: string; version: string | null } | null;
  temperature?: number | null;
  seed?: number | null;
  num_ctx?: number | null;
  template?: { hash: string | null; name: string | null } | null;
  machine?: ManifestMachine | null;
  /** The request as validated; secrets are redacted here. */
  request?: Record<string, unknown> | null;
  started_at?: string | null;
};

/** A manifest from what the producer knows; the suite is hashed as stored (name, description, scenarios in order). */
export function buildManifest(input: ManifestInput): Manifest {
  const suite = input.suite ?? null;
  const snapshots = input.snapshots ?? null;
  return {
    benchdesk_version: BENCHDESK_VERSION,
    suite_id: suite?.suite_id ?? null,
    suite_sha256: suite ? sha256OfCanonical({ suite_id: suite.suite_id, name: suite.name ?? null, description: suite.description ?? null, scenarios: suite.scenarios }) : null,
    snapshot_sha256: snapshots ? Object.fromEntries(Object.entries(snapshots).map(([id, doc]) => [id, sha256OfCanonical(doc)])) : null,
    model: input.model ?? null,
    model_digest: input.backend?.model_digest ?? null,
    backend_api: input.backend?.backend_api ?? null,
    backend_version: input.backend?.backend_version ?? null,
    agent: input.agent?.name ?? null,
    agent_version: input.agent?.version ?? null,
    temperature: input.temperature ?? null,
    seed: input.seed ?? null,
    num_ctx: input.num_ctx ?? null,
    template: input.template ?? null,
    machine: input.machine ?? null,
    request: input.request ? (redactSecrets(input.request) as Record<string, unknown>) : null,
    started_at: input.started_at ?? null,
  };
}
