import type { InstanceService } from '../../app/instances';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

type InstanceOperation = 'listInstances' | 'releaseInstance';

/** The rented-machines operations (list, release), over the instance service. */
export function instanceHandlers(instances: InstanceService): Pick<OperationHandlers, InstanceOperation> {
  return {
    async listInstances(ctx, input) {
      return instances.list(ctx.tenantId, parseInput('listInstances', input));
    },
    async releaseInstance(ctx, input) {
      const { instance_id: instanceId, force } = parseInput('releaseInstance', input);
      return instances.release(ctx.tenantId, instanceId, { force });
    },
  };
}

/** getHealth with the orphan sweep's figures added (absent before the first sweep or without a key). */
export function withMarketplaceHealth(getHealth: OperationHandlers['getHealth'], instances: InstanceService): OperationHandlers['getHealth'] {
  return async (ctx, input) => {
    const health = await getHealth(ctx, input);
    const marketplace = instances.health();
    return marketplace ? { ...health, marketplace } : health;
  };
}
