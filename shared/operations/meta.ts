import { HealthSchema } from '../health';
import { NoInputSchema, type OperationDef } from './common';

/** The service itself: liveness, answered without credentials. */
export const META_OPERATIONS = {
  getHealth: {
    summary: 'Liveness and status; always public',
    description:
      'Answers without credentials, even while the address is locked out: `status` is `ok`, or `degraded` when the data directory cannot be written (a full disk). ' +
      'Also the version and how authentication is configured (`enabled`, `disabled`, `unconfigured`).',
    tags: ['meta'],
    method: 'GET',
    path: '/healthz',
    input: NoInputSchema,
    output: HealthSchema,
    status: 200,
    public: true,
  },
} as const satisfies Record<string, OperationDef>;
