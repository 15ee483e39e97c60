import { useMemo } from 'react';
import { Panel, Stat } from '../../components/Page';
import { formatCount, formatDuration, formatUsd } from '../../lib/format';
import { useDebounced, useEstimate } from '../../queries/estimate';
import { estimateFor, type LaunchDraft } from './launch-form';
import { ASSUMED_STREAM_TOKENS_PER_S, RENT_ALLOWANCE_S, servingPlanEstimate } from './serving-estimate';

/**
 * Before a serving run: how many requests and tokens it sends, about how long the load takes, and
 * on the marketplace what holding a machine that long costs (the live offers' estimate). Fixed
 * size whatever the state, so typing does not move the form.
 */
export function ServingPreflight({ draft, marketplace }: { draft: LaunchDraft; marketplace: boolean }) {
  const plan = servingPlanEstimate(draft);
  const estimateInput = useMemo(() => {
    if (!marketplace || !plan) return null;
    const e = estimateFor(draft, 'serving-benchmark');
    return Number.isFinite(e.max_dph) && Number.isFinite(e.min_dph) && Number.isFinite(e.reliability) ? e : null;
  }, [draft, marketplace, plan]);
  const estimate = useEstimate(useDebounced(estimateInput, 400));
  const cost = estimate.data;
  return (
    <Panel title="Pre-flight" testId="serving-preflight">
      <div className="stats">
        <Stat label="Requests" value={plan ? formatCount(plan.requests) : '—'} hint="every level, warm-up included" />
        <Stat label="Output tokens" value={plan ? formatCount(plan.outputTokens) : '—'} />
        <Stat label="Load time" value={plan ? `about ${formatDuration(plan.loadSeconds * 1000)}` : '—'} hint={`at ${ASSUMED_STREAM_TOKENS_PER_S} tok/s per request; slower under heavy load`} />
        <Stat
          label="Expected cost"
          value={!marketplace ? '$0.00' : estimate.isError ? 'unknown' : cost ? formatUsd(cost.cost_range_usd.expected) : plan ? '…' : '—'}
          hint={
            !marketplace
              ? 'an existing backend: nothing is rented'
              : cost
                ? `machine held about ${formatDuration((plan?.totalSeconds ?? 0) * 1000)} (load + ${Math.round(RENT_ALLOWANCE_S / 60)} min to rent and prepare); up to ${formatUsd(cost.cost_range_usd.high)}`
                : estimate.isError
                  ? estimate.error.message
                  : 'priced from the live offers'
          }
          testId="serving-preflight-cost"
        />
      </div>
    </Panel>
  );
}
