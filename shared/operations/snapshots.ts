import { z } from 'zod';
import { RecordSnapshotInputSchema, SnapshotDocumentSchema, SnapshotListSchema, SnapshotRefSchema, SnapshotSummarySchema } from '../snapshots';
import { SnapshotServingSchema, SnapshotServingStateSchema } from '../snapshot-serving';
import { NoInputSchema, SNAPSHOT_IMPORT_LIMIT_BYTES, type OperationDef } from './common';

/** Cluster snapshots: recorded, listed, exported, imported, deleted, and served as a fake cluster. */
export const SNAPSHOT_OPERATIONS = {
  recordSnapshot: {
    summary: 'Record a cluster into a snapshot',
    description:
      "Reads the cluster of a kubeconfig on the server's machine into a read-only snapshot: its objects, events and the last lines of its containers' current and previous logs. Secrets are never read, environment values become `***`, config maps keep their keys only. Bounded to 60 s. Tenant `default` only.",
    tags: ['snapshots'],
    method: 'POST',
    path: '/v1/snapshots',
    // The service checks the body (after the tenant check) with RecordSnapshotInputSchema.
    input: z.unknown(),
    docs: { body: RecordSnapshotInputSchema },
    output: SnapshotSummarySchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    errors: { 502: 'the cluster could not be reached or refused the kubeconfig; the problem names the server' },
  },
  listSnapshots: {
    summary: 'List the recorded clusters',
    description: 'The snapshots of this install, newest recording first, each with when and where it was recorded, what it holds and who uses it.',
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots',
    input: NoInputSchema,
    output: SnapshotListSchema,
    status: 200,
  },
  getSnapshot: {
    summary: 'Get one snapshot',
    description:
      "One snapshot's summary: when and where it was recorded (`recorded_at`, `source`), how many objects of each kind it holds (`counts`), its size, who uses it (`used_by`), and its `warnings`: what could not be recorded and what the snapshot lint found (`lint`: timeline impossibilities such as log lines or events stamped after `recorded_at`, logs that contradict their container's states, a pod on a node whose taint it does not tolerate, a node Ready=Unknown with a fresh heartbeat).",
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}',
    input: SnapshotRefSchema,
    output: SnapshotSummarySchema,
    status: 200,
  },
  exportSnapshot: {
    summary: 'Export a snapshot',
    description: 'The whole snapshot as one portable JSON document (format `benchdesk.snapshot/v1`), to import on another install or keep beside a suite.',
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}/export',
    input: SnapshotRefSchema,
    output: SnapshotDocumentSchema,
    status: 200,
    errors: { 429: '`too_many_exports`: this tenant already runs the most exports at once (2); retry after `Retry-After` seconds' },
  },
  importSnapshot: {
    summary: 'Import a snapshot',
    description:
      'Stores a snapshot document (an export, or one written by hand). A malformed document is a 422 naming each wrong path; the same content again answers the snapshot already stored. A well-formed document with timeline impossibilities is stored, and the answer names them (`warnings`, `lint`). Up to 64 MiB. Tenant `default` only.',
    tags: ['snapshots'],
    method: 'POST',
    path: '/v1/snapshots/import',
    // The service checks the document (after the tenant check), so the 422 names the path in it.
    input: z.unknown(),
    docs: { body: SnapshotDocumentSchema },
    output: SnapshotSummarySchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    bodyLimit: SNAPSHOT_IMPORT_LIMIT_BYTES,
  },
  deleteSnapshot: {
    summary: 'Delete a snapshot',
    description: 'Deletes a snapshot and its files. Tenant `default` only.',
    tags: ['snapshots'],
    method: 'DELETE',
    path: '/v1/snapshots/{snapshot_id}',
    input: SnapshotRefSchema,
    output: z.undefined(),
    status: 204,
    appTenantOnly: true,
    errors: { 409: '`snapshot_in_use`: a suite or a running job uses it; the problem names them' },
  },
  getSnapshotServing: {
    summary: 'Whether a snapshot is served from the app',
    description: 'The read-only Kubernetes API serving this snapshot for people (started with `POST .../serve`): its URL and kubeconfig path, or `serving: null`.',
    tags: ['snapshots'],
    method: 'GET',
    path: '/v1/snapshots/{snapshot_id}/serve',
    input: SnapshotRefSchema,
    output: SnapshotServingStateSchema,
    status: 200,
  },
  serveSnapshot: {
    summary: 'Serve a snapshot as a read-only Kubernetes API',
    description:
      "Starts a read-only Kubernetes API for the snapshot on 127.0.0.1 (as `benchdesk snapshot serve` does) and answers its URL and the path of a kubeconfig for it on the server's machine: `KUBECONFIG=<path> kubectl get pods -A`. Serving again answers the one already running. It runs until `DELETE .../serve` or the server stops; while it runs the snapshot is in use (it cannot be deleted). Tenant `default` only.",
    tags: ['snapshots'],
    method: 'POST',
    path: '/v1/snapshots/{snapshot_id}/serve',
    input: SnapshotRefSchema,
    output: SnapshotServingSchema,
    status: 200,
    appTenantOnly: true,
  },
  stopServingSnapshot: {
    summary: 'Stop serving a snapshot',
    description: 'Stops the read-only Kubernetes API started with `POST .../serve` and removes its kubeconfig; a snapshot that is not served answers 204 too (an unknown one 404). Tenant `default` only.',
    tags: ['snapshots'],
    method: 'DELETE',
    path: '/v1/snapshots/{snapshot_id}/serve',
    input: SnapshotRefSchema,
    output: z.undefined(),
    status: 204,
    appTenantOnly: true,
  },
} as const satisfies Record<string, OperationDef>;
