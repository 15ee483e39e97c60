import { APP_TENANT_ID, OPERATIONS, UNARY_OPERATION_NAMES, type OperationDef, type OperationName } from '../../shared';
import { ProblemError } from '../app/problem-error';
import { suitesForbidden } from '../app/suites';
import type { OperationHandlers } from './types';

/** The refusal every transport answers when another tenant calls an app-tenant operation. */
export function forbiddenTenant(tenantId: string, operation?: OperationName): ProblemError {
  if (operation && (OPERATIONS[operation] as OperationDef).tags.includes('snapshots')) {
    return new ProblemError(
      403,
      'forbidden_tenant',
      `snapshots are shared by every tenant of this install: only the app's own tenant ('${APP_TENANT_ID}') may record, import or delete one; tenant '${tenantId}' may list, read and export them and run jobs on them`,
    );
  }
  if (operation && (OPERATIONS[operation] as OperationDef).tags.includes('suites')) return suitesForbidden(tenantId);
  return new ProblemError(
    403,
    'forbidden_tenant',
    `settings, the marketplace key and the app token belong to the app's own tenant ('${APP_TENANT_ID}'); tenant '${tenantId}' may read the settings but not change them, test the key or see the token`,
  );
}

/**
 * Guards the operations the table marks `appTenantOnly`: another tenant is refused before its input
 * is even looked at, so a 403 never depends on what it sent. Done here, once, because HTTP, IPC and
 * the in-process client all call these handlers.
 */
export function guardAppTenantOperations(handlers: OperationHandlers): OperationHandlers {
  const guarded: Record<string, unknown> = { ...handlers };
  for (const name of UNARY_OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    if (!op.appTenantOnly) continue;
    const inner = handlers[name] as (ctx: { tenantId: string }, input: unknown) => Promise<unknown>;
    guarded[name] = async (ctx: { tenantId: string }, input: unknown) => {
      if (ctx.tenantId !== APP_TENANT_ID) throw forbiddenTenant(ctx.tenantId, name);
      return inner(ctx, input);
    };
  }
  return guarded as OperationHandlers;
}
