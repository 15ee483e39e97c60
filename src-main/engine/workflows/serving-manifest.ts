import pkg from '../../../package.json' with { type: 'json' };
import type { Manifest, ServingBenchmarkRequest, SpokenBackendApi } from '../../../shared';
import { redactSecrets } from '../redact';
import type { ProvisionedInstance } from './marketplace-instance';

/**
 * The serving result's manifest (design §12b): what the run needs to be reproduced. Suite fields
 * are null (not applicable); the machine is the rented one's (null on an existing backend).
 */
export function servingManifest(input: {
  request: ServingBenchmarkRequest;
  api: SpokenBackendApi;
  backendVersion: string | null;
  modelDigest: string | null;
  numCtx: number | null;
  instance: ProvisionedInstance | null;
  startedAt: string;
}): Manifest {
  const { request, instance } = input;
  return {
    benchdesk_version: pkg.version,
    suite_id: null,
    suite_sha256: null,
    snapshot_sha256: null,
    model: request.model,
    model_digest: input.modelDigest,
    backend_api: input.api,
    backend_version: input.backendVersion,
    agent: null,
    agent_version: null,
    temperature: request.temperature ?? null,
    seed: request.seed ?? null,
    num_ctx: input.numCtx,
    template: request.marketplace ? (instance ? { hash: instance.template.hash_id, name: instance.template.name } : { hash: request.template_hash ?? null, name: null }) : null,
    machine: instance
      ? {
          instance_id: instance.instanceId,
          offer_id: instance.offer.id,
          gpu_name: instance.offer.gpu_name,
          num_gpus: instance.offer.num_gpus,
          dph_at_rent: instance.dphTotal,
          download_usd_per_gb: instance.inetDownCost,
        }
      : null,
    // As stored: the key and URL passwords masked.
    request: redactSecrets(request) as Record<string, unknown>,
    started_at: input.startedAt,
  };
}
