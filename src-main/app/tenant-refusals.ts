import { APP_TENANT_ID } from '../../shared';
import { ProblemError } from './problem-error';

/**
 * What another tenant is refused (403 `forbidden_tenant`), in one place: the records every tenant
 * of an install shares but only the app's own tenant may change, and the app's settings.
 */

const SHARED_RECORDS = {
  snapshots: { changes: 'record, import or delete one', reads: 'list, read and export them and run jobs on them' },
  suites: { changes: 'create, import or delete one', reads: 'list, read and export them and run them' },
} as const;

export type SharedRecords = keyof typeof SHARED_RECORDS;

export function sharedRecordsForbidden(records: SharedRecords, tenantId: string): ProblemError {
  const { changes, reads } = SHARED_RECORDS[records];
  return new ProblemError(
    403,
    'forbidden_tenant',
    `${records} are shared by every tenant of this install: only the app's own tenant ('${APP_TENANT_ID}') may ${changes}; tenant '${tenantId}' may ${reads}`,
  );
}

/** Refuses a change to shared records by any tenant but the app's own. */
export function requireAppTenant(records: SharedRecords, tenantId: string): void {
  if (tenantId !== APP_TENANT_ID) throw sharedRecordsForbidden(records, tenantId);
}

export function settingsForbidden(tenantId: string): ProblemError {
  return new ProblemError(
    403,
    'forbidden_tenant',
    `settings, the marketplace key and the app token belong to the app's own tenant ('${APP_TENANT_ID}'); tenant '${tenantId}' may read the settings but not change them, test the key or see the token`,
  );
}
