import { APP_TENANT_ID, OPERATIONS, UNARY_OPERATION_NAMES, type OperationDef, type OperationName } from '../../shared';
import type { ProblemError } from '../app/problem-error';
import { settingsForbidden, sharedRecordsForbidden } from '../app/tenant-refusals';
import type { OperationHandlers } from './types';

/** The refusal every transport answers when another tenant calls an app-tenant operation. */
export function forbiddenTenant(tenantId: string, operation?: OperationName): ProblemError {
  const tags = operation ? (OPERATIONS[operation] as OperationDef).tags : [];
  if (tags.includes('snapshots')) return sharedRecordsForbidden('snapshots', tenantId);
  if (tags.includes('suites')) return sharedRecordsForbidden('suites', tenantId);
  return settingsForbidden(tenantId);
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
