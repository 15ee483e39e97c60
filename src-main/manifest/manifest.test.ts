import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManifestSchema } from '../../shared/manifest';
import { BENCHDESK_VERSION, buildManifest, canonicalJson, readBackendFacts, sha256OfCanonical } from './manifest';

describe('the manifest builder', () => {
  it('hashes canonical JSON: key order does not change the hash, content does', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(sha256OfCanonical({ a: 1, b: 2 })).toBe(sha256OfCanonical({ b: 2, a: 1 }));
    expect(sha256OfCanonical({ a: 1 })).not.toBe(sha256OfCanonical({ a: 2 }));
    expect(sha256OfCanonical({ a: 1 })).toBe(createHash('sha256').update('{"a":1}').digest('hex'));
  });

  it('fills every field, null where it does not apply, and redacts the request', () => {
    const m = buildManifest({
      suite: { suite_id: 's', name: 'S', description: '', scenarios: [{ scenario_id: 'x' }] },
      snapshots: { snap: { objects: {} } },
      model: 'llama3.1:8b',
      backend: { backend_api: 'ollama', backend_version: '0.15.2', model_digest: 'abc' },
      agent: { name: 'builtin', version: '1.0.0' },
      temperature: 0,
      seed: 7,
      request: { backend_url: 'http://user:secret@host:11434', backend_api_key: 'sk-123', model: 'llama3.1:8b' },
      started_at: '2026-11-20T09:30:00.000Z',
    });
    expect(ManifestSchema.parse(m)).toEqual(m);
    expect(m).toMatchObject({ benchdesk_version: BENCHDESK_VERSION, suite_id: 's', model_digest: 'abc', backend_version: '0.15.2', agent_version: '1.0.0', seed: 7, num_ctx: null, template: null, machine: null });
    expect(m.snapshot_sha256).toEqual({ snap: sha256OfCanonical({ objects: {} }) });
    expect(JSON.stringify(m.request)).not.toMatch(/secret|sk-123/);
    expect(buildManifest({})).toMatchObject({ suite_id: null, suite_sha256: null, snapshot_sha256: null, model: null, request: null });
  });

  it('reads the backend version and the model digest, null where the backend does not say', async () => {
    const source = { version: async () => '0.15.2', listModels: async () => [{ name: 'llama3.1:8b', digest: 'd1' }, { name: 'qwen2.5:latest', digest: 'd2' }] };
    expect(await readBackendFacts(source, 'llama3.1:8b', 'ollama')).toEqual({ backend_api: 'ollama', backend_version: '0.15.2', model_digest: 'd1' });
    expect((await readBackendFacts(source, 'qwen2.5', 'ollama')).model_digest).toBe('d2');
    const broken = { version: async () => Promise.reject(new Error('404')), listModels: async () => Promise.reject(new Error('404')) };
    expect(await readBackendFacts(broken, 'x', 'openai')).toEqual({ backend_api: 'openai', backend_version: null, model_digest: null });
  });
});
