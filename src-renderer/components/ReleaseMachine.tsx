import { useState } from 'react';
import { createPortal } from 'react-dom';
import type { InstanceClassification, ReleaseInstanceResponse } from '../../shared';
import { useReleaseBlock } from '../queries/outage';
import { useReleaseInstance } from '../queries/settings';
import { formatDph, formatInstance, formatUsd } from '../lib/format';
import { ConfirmDialog } from './ConfirmDialog';
import { Money, RelativeTime, RunningCost } from './Format';
import { ErrorState } from './States';

/** What the confirmation names: the machine, its rate and what it has cost so far. */
export type ReleaseTarget = {
  instance_id: number;
  /** "1× RTX 4090", or null when unknown. */
  gpu: string | null;
  dph: number | null;
  rentedAt: string | null;
  /** The marketplace's figure, when the rate or start is unknown. */
  costSoFar?: number | null;
  /** What its model downloads cost ($), part of the cost so far. */
  downloadUsd?: number | null;
  classification: Exclude<InstanceClassification, 'active'>;
  label?: string | null;
};

/**
 * What a release answered, in one sentence: confirmed gone with the machine's final cost (the
 * ledger's: time up to the release plus downloads), or why it is not confirmed.
 */
export function releaseOutcome(result: ReleaseInstanceResponse): string {
  if (!result.verified) return result.message;
  const downloads = result.download_usd ? ` (${formatUsd(result.download_usd)} of it downloads)` : '';
  const cost = typeof result.cost_usd === 'number' ? ` It cost ${formatUsd(result.cost_usd)} in all${downloads}.` : '';
  return `Released ${formatInstance(result.instance_id)}: the marketplace confirms it is gone.${cost}`;
}

const WHY: Record<ReleaseTarget['classification'], string> = {
  kept: 'It was kept running on purpose after its job, and bills until it is released.',
  orphaned: 'Its job is over (or unknown here), and nothing will release it on its own.',
  foreign: 'It was rented by another benchdesk install (another data directory).',
};

/**
 * "Release" for a machine that is not in use by a running job, with a confirmation that names it,
 * its $/h and its cost so far. A machine of another install is released only after an explicit
 * acknowledgement, sent as `force: true`.
 */
export function ReleaseMachineButton({
  target,
  testId,
  small = true,
  onReleased,
}: {
  target: ReleaseTarget;
  testId?: string;
  small?: boolean;
  onReleased?: (result: ReleaseInstanceResponse) => void;
}) {
  const release = useReleaseInstance(onReleased);
  const blocked = useReleaseBlock();
  const [open, setOpen] = useState(false);
  const [acknowledged, setAcknowledged] = useState(false);
  const foreign = target.classification === 'foreign';
  const close = () => {
    setOpen(false);
    setAcknowledged(false);
    release.reset();
  };
  return (
    <>
      <button
        type="button"
        className={`button button-danger${small ? ' button-small' : ''}`}
        onClick={() => setOpen(true)}
        disabled={blocked !== null}
        title={blocked?.reason}
        aria-describedby={blocked ? `release-blocked-${target.instance_id}` : undefined}
        data-testid={testId ?? `release-${target.instance_id}`}
      >
        {foreign ? 'Release…' : 'Release'}
      </button>
      {blocked ? (
        <span className="release-blocked" id={`release-blocked-${target.instance_id}`} data-testid="release-blocked" title={blocked.reason}>
          {blocked.short}
        </span>
      ) : null}
      {/* In the page's body, not in the table cell or header that holds the button (their alignment and wrapping would apply). */}
      {createPortal(
        <ConfirmDialog
          open={open}
          title={`Release machine ${formatInstance(target.instance_id)}?`}
          confirmLabel={foreign ? 'Release another install’s machine' : 'Release machine'}
          cancelLabel="Keep it"
          tone="danger"
          busy={release.isPending}
          onCancel={close}
          confirmDisabled={(foreign && !acknowledged) || blocked !== null}
          onConfirm={() =>
            release.mutate(
              { instance_id: target.instance_id, ...(foreign ? { force: true } : {}) },
              { onSuccess: close },
            )
          }
          testId="release-confirm"
        >
          <dl className="facts" data-testid="release-facts">
            <dt>Machine</dt>
            <dd>
              {formatInstance(target.instance_id)} · {target.gpu ?? <span className="muted">GPU unknown</span>}
            </dd>
            <dt>Rate</dt>
            <dd className="num" data-testid="release-dph">
              {formatDph(target.dph)}
            </dd>
            <dt>Cost so far</dt>
            <dd data-testid="release-cost">
              {target.dph !== null && target.rentedAt ? <RunningCost dph={target.dph} since={target.rentedAt} downloadUsd={target.downloadUsd} /> : <Money usd={target.costSoFar ?? null} />}
              {target.rentedAt ? (
                <span className="muted">
                  {' '}
                  (rented <RelativeTime iso={target.rentedAt} />)
                </span>
              ) : null}
            </dd>
            {target.label ? (
              <>
                <dt>Label</dt>
                <dd>
                  <code>{target.label}</code>
                </dd>
              </>
            ) : null}
          </dl>
          <p>{foreign ? <strong>{WHY.foreign}</strong> : WHY[target.classification]}</p>
          <p>The marketplace destroys it (its disk too), then benchdesk reads it back to confirm it is gone; billing stops there.</p>
          {foreign ? (
            <label className="check release-ack">
              <input type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} data-testid="release-foreign-ack" />
              <span>I know this machine is another install’s: whatever it is doing there stops.</span>
            </label>
          ) : null}
          {blocked ? <p className="field-error">{blocked.reason}</p> : null}
          {release.isError ? <ErrorState error={release.error} testId="release-error" /> : null}
        </ConfirmDialog>,
        document.body,
      )}
    </>
  );
}
