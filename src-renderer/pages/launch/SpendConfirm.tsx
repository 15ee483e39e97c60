import type { ReactNode } from 'react';
import type { JobKind } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorState } from '../../components/States';
import type { BenchdeskApiError } from '../../../shared/client';
import { formatDph, formatGpus, formatHours, formatUsd } from '../../lib/format';
import type { Preflight } from './spend';

function SpendSummary({ p, kind, threshold }: { p: Preflight; kind: JobKind; threshold: number }) {
  const e = p.estimate;
  const cheapest = e?.basis === 'live_offers' ? (e.offers?.cheapest ?? null) : null;
  let machine: ReactNode;
  if (kind === 'llm-instance') machine = <strong>kept running after the job: it bills until you release it.</strong>;
  else if (!p.kept) machine = 'released when the job ends, also if it fails or is cancelled.';
  else machine = <strong>kept running after the job: it bills until you release it.</strong>;
  return (
    <div data-testid="spend-summary">
      <dl className="kv">
        <dt>Expected rate</dt>
        <dd className="num" data-testid="spend-expected-dph">
          {cheapest ? formatDph(cheapest.dph_total) : <span className="muted">unknown</span>}
          {cheapest ? <span className="muted"> (cheapest fitting offer: {formatGpus(cheapest.num_gpus, cheapest.gpu_name)})</span> : null}
        </dd>
        <dt>Maximum rate</dt>
        <dd className="num" data-testid="spend-max-dph">
          {formatDph(p.maxDph)} <span className="muted">(no offer above it is rented)</span>
        </dd>
        <dt>Assumed duration</dt>
        <dd>{formatHours(p.hours)}</dd>
        <dt>Expected cost</dt>
        <dd className="num" data-testid="spend-expected-cost">
          {e?.basis === 'live_offers' ? (
            <>
              {formatUsd(e.cost_range_usd.expected)}
              {cheapest?.download_usd ? <span className="muted"> (incl. {formatUsd(cheapest.download_usd)} to download the model)</span> : null}{' '}
              <span className="muted">· up to {formatUsd(p.maxDph * p.hours)} at the maximum rate</span>
            </>
          ) : (
            `up to ${formatUsd(p.maxDph * p.hours)} at the maximum rate`
          )}
        </dd>
        <dt>Spend limit</dt>
        <dd data-testid="spend-limit">{p.maxCost !== null ? `${formatUsd(p.maxCost)}: the job stops and its machine is released there` : 'none'}</dd>
        <dt>The machine is</dt>
        <dd data-testid="spend-release">{machine}</dd>
      </dl>
      {threshold > 0 ? (
        <p className="muted note-small" data-testid="spend-threshold">
          Asked because {p.kept ? 'the machine stays up after the job' : e?.basis === 'live_offers' ? `the expected cost reaches ${formatUsd(threshold)}` : 'the cost could not be priced from live offers'} (Settings: ask before launching from {formatUsd(threshold)}).
        </p>
      ) : null}
      {p.estimateError ? <p className="muted">The pre-flight estimate failed ({p.estimateError.message}); only the maximum rate is known.</p> : null}
    </div>
  );
}

/** The confirmation before renting: what it will cost and what happens to the machine. */
export function SpendConfirm({
  preflight,
  kind,
  threshold,
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  preflight: Preflight | null;
  kind: JobKind;
  threshold: number;
  busy: boolean;
  error: BenchdeskApiError | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog open={preflight !== null} title="Rent a GPU for this job?" confirmLabel="Rent and launch" busy={busy} onCancel={onCancel} onConfirm={onConfirm} testId="spend-confirm">
      {preflight ? <SpendSummary p={preflight} kind={kind} threshold={threshold} /> : null}
      {error ? <ErrorState error={error} /> : null}
    </ConfirmDialog>
  );
}
