import { APP_TENANT_ID } from '../../shared';
import type { Row } from './instance-entries';
import { ProblemError } from './problem-error';

/**
 * Why a release asked through the API is refused (null: it may go ahead): another tenant's machine
 * (404), one whose job or sweep is still running (409: cancel that instead), another install's
 * without `force` (409), or with `force` from a tenant other than the app's own (403).
 */
export function releaseRefusal(row: Row, tenantId: string, force: boolean): ProblemError | null {
  const id = row.instance.id;
  const { sweep, job, label } = row;
  if (sweep && sweep.tenant_id !== tenantId) return new ProblemError(404, 'instance_not_found', `instance ${id} is not one of this tenant's machines`);
  if (sweep?.active) {
    return new ProblemError(409, 'instance_active', `instance ${id} is the ${sweep.gpu} machine of sweep ${sweep.sweep_id}, which is ${sweep.status}: cancel the sweep (POST /v1/sweeps/${sweep.sweep_id}/cancel) and it releases its machines`);
  }
  if (row.entry.classification === 'foreign' && !force) {
    return new ProblemError(
      409,
      'instance_foreign',
      `instance ${id} belongs to another benchdesk install (label "${row.instance.label ?? ''}"): release it from that install, or send {"force": true} to release it from here`,
    );
  }
  // Another install's machine is nobody's here: only the app's own tenant may force its release.
  if (row.entry.classification === 'foreign' && tenantId !== APP_TENANT_ID) {
    return new ProblemError(403, 'forbidden_tenant', `instance ${id} belongs to another benchdesk install; only the app's own tenant ('${APP_TENANT_ID}') may force its release`);
  }
  if (row.entry.job && job && job.tenant_id !== tenantId) return new ProblemError(404, 'instance_not_found', `instance ${id} is not one of this tenant's machines`);
  if (row.entry.classification === 'active') {
    return new ProblemError(409, 'instance_active', `instance ${id} belongs to job ${label.jobId}, which is ${job?.status ?? 'active'}: cancel the job (POST /v1/jobs/${label.jobId}/cancel) and it releases its machine`);
  }
  return null;
}
