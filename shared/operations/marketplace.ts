import { ListInstancesQuerySchema, MarketplaceInstanceListSchema, ReleaseInstanceBodySchema, ReleaseInstanceInputSchema, ReleaseInstanceResponseSchema } from '../instances';
import { MarketplaceTemplateListSchema, TemplateSearchQuerySchema } from '../templates';
import { REST_BODY, type OperationDef } from './common';

/** The marketplace account: benchdesk's rented machines (listed, released) and the templates a machine can run. */
export const MARKETPLACE_OPERATIONS = {
  listInstances: {
    summary: 'Marketplace machines labelled `benchdesk:*` with their job, $/h, cost so far and active/kept/orphaned (`orphaned=true`: only orphans)',
    description:
      'Every machine on the marketplace account whose label starts with `benchdesk:`, with its job, price and cost so far (the ledger\'s figure: machine time plus downloads), and why it is still up. ' +
      'A machine whose release is not confirmed yet stays listed (`state: "release pending"`, `release_error`) and keeps counting until it is gone. ' +
      'Without a marketplace key the list is empty and `note` says why.',
    tags: ['marketplace'],
    method: 'GET',
    path: '/v1/marketplace/instances',
    input: ListInstancesQuerySchema,
    output: MarketplaceInstanceListSchema,
    status: 200,
    query: ['orphaned'],
    errors: { 502: 'The marketplace did not answer the instance list, or answered an error' },
  },
  releaseInstance: {
    summary:
      'Destroy one benchdesk machine and confirm it is gone (409 `instance_active` while its job runs: cancel the job instead; 409 `instance_foreign` for another install\'s machine unless the body says `{"force": true}`)',
    description:
      'Destroys the machine and answers once the marketplace confirms it is gone, with what it cost in the end (`cost_usd`: machine time up to the release plus downloads, `download_usd` its downloads\' part). ' +
      'A release the marketplace does not confirm answers 502 and is retried by benchdesk until confirmed; the machine keeps counting in the spend meanwhile. A machine whose job is still active answers 409 (cancel the job instead); ' +
      "a machine another benchdesk install rented answers 409 unless the body says `{\"force\": true}` (only the app's own tenant may force); one that is not a benchdesk machine answers 404.",
    tags: ['marketplace'],
    method: 'POST',
    path: '/v1/marketplace/instances/{instance_id}/release',
    input: ReleaseInstanceInputSchema,
    // The id travels in the path, `force` in the (optional) body.
    body: REST_BODY,
    docs: { body: ReleaseInstanceBodySchema },
    output: ReleaseInstanceResponseSchema,
    status: 200,
    errors: {
      403: "`force` from a tenant other than the app's own (`forbidden_tenant`)",
      409: "Its job is still active (`instance_active`), another install's machine without `force` (`instance_foreign`), or no marketplace key is set (`marketplace_not_configured`)",
      502: 'The marketplace did not confirm the release, or answered an error',
    },
  },
  searchTemplates: {
    summary: "The marketplace's templates by name or hash (`q`; absent: the recommended ones), for choosing what a rented machine runs",
    description:
      'Searches the marketplace templates by exact name or hash (names containing `q` come from the recommended list already read); without `q`, the recommended ones. ' +
      'Without a marketplace key the list is empty and `note` says why.',
    tags: ['marketplace'],
    method: 'GET',
    path: '/v1/marketplace/templates',
    input: TemplateSearchQuerySchema,
    output: MarketplaceTemplateListSchema,
    status: 200,
    query: ['q'],
    errors: { 502: 'The marketplace did not answer the template search, or answered an error' },
  },
} as const satisfies Record<string, OperationDef>;
