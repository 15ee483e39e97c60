import { useMemo } from 'react';
import type { CostEstimationResponse, OfferSummary } from '../../../shared';
import { DataTable, type Column } from '../../components/DataTable';
import { Field } from '../../components/Field';
import { Money } from '../../components/Format';
import { Page, Panel, Stat } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { formatCount, formatGb, formatGpus, formatHours, formatMb, formatPercent, formatUsd } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useDebounced, useEstimate } from '../../queries/estimate';
import { DEFAULT_ESTIMATE_FORM, useUiStore } from '../../state/ui-store';
import { CostDurationChart, OfferPriceChart } from './EstimateCharts';
import { parseEstimateForm } from './estimate-input';

function offerColumns(hours: number, cheapestId: number | null): Column<OfferSummary>[] {
  return [
    {
      id: 'gpu',
      header: 'GPU',
      cell: (o) => (
        <>
          {o.gpu_name}
          {o.id === cheapestId ? <span className="badge badge-ok" style={{ marginLeft: 8 }}>cheapest</span> : null}
        </>
      ),
      sortValue: (o) => o.gpu_name,
    },
    { id: 'count', header: 'GPUs', cell: (o) => `${formatCount(o.num_gpus)}×`, sortValue: (o) => o.num_gpus, align: 'right' },
    { id: 'vram', header: 'VRAM per GPU', cell: (o) => formatMb(o.gpu_ram), sortValue: (o) => o.gpu_ram, align: 'right' },
    { id: 'dph', header: '$/h', cell: (o) => <Money usd={o.dph_total} perHour />, sortValue: (o) => o.dph_total, align: 'right' },
    { id: 'reliability', header: 'Reliability', cell: (o) => formatPercent(o.reliability), sortValue: (o) => o.reliability, align: 'right' },
    { id: 'location', header: 'Location', cell: (o) => o.geolocation ?? '—', sortValue: (o) => o.geolocation ?? '' },
    {
      id: 'total',
      header: `Total for ${formatHours(hours)}`,
      cell: (o) => <Money usd={o.dph_total * hours} />,
      sortValue: (o) => o.dph_total,
      align: 'right',
    },
  ];
}

function Summary({ estimate }: { estimate: CostEstimationResponse }) {
  const range = estimate.cost_range_usd;
  return (
    <div className="stats" data-testid="estimate-summary">
      <Stat label={`Expected cost (${formatHours(estimate.hours)})`} value={<Money usd={range.expected} />} testId="estimate-expected" />
      <Stat
        label="Range low – high"
        value={
          <>
            <span className="num">{formatUsd(range.low)}</span> – <span className="num">{formatUsd(range.high)}</span>
          </>
        }
      />
      {estimate.offers ? (
        <>
          <Stat label="Cheapest fitting offer" value={<Money usd={estimate.offers.min_dph} perHour />} hint={formatGpus(estimate.offers.cheapest.num_gpus, estimate.offers.cheapest.gpu_name)} />
          <Stat label="Median offer" value={<Money usd={estimate.offers.median_dph} perHour />} hint={`${formatCount(estimate.offers.count, estimate.offers.count === 1 ? 'offer fits' : 'offers fit')}`} />
        </>
      ) : null}
      <Stat
        label="Confidence"
        value={formatPercent(estimate.confidence_score)}
        testId="estimate-confidence"
        hint={estimate.basis === 'live_offers' ? 'from live offers' : 'from your price range'}
      />
    </div>
  );
}

export function EstimatePage() {
  const form = useUiStore((s) => s.estimate);
  const setForm = useUiStore((s) => s.setEstimate);
  const catalog = useCatalog();
  const { input, errors } = useMemo(() => parseEstimateForm(form), [form]);
  const settled = useDebounced(input, 350);
  const estimate = useEstimate(settled);
  const data = estimate.data;
  const hours = data?.hours ?? 1;
  const cheapestId = data?.offers?.cheapest.id ?? null;
  const items = data?.offers?.items ?? (data?.offers ? [data.offers.cheapest] : []);
  const columns = useMemo(() => offerColumns(hours, cheapestId), [hours, cheapestId]);
  const selectedModel = catalog.data?.models.find((m) => m.name === form.model);

  return (
    <Page
      title="Estimate"
      subtitle="What renting marketplace GPUs for a model will cost, from live offers when a marketplace key is set."
      testId="page-estimate"
      actions={
        <button type="button" className="button" onClick={() => setForm(DEFAULT_ESTIMATE_FORM)}>
          Reset
        </button>
      }
    >
      <Panel title="What to run">
        <form className="form-grid" onSubmit={(e) => e.preventDefault()} aria-label="Estimate inputs">
          <Field label="Model" hint={selectedModel ? `needs ${formatMb(selectedModel.vram_mb)} VRAM, ${formatGb(selectedModel.required_disk_gb)} disk` : 'Sizes the GPU: offers with too little memory are left out.'} error={errors.model}>
            <select value={form.model} onChange={(e) => setForm({ model: e.target.value })} data-testid="estimate-model">
              <option value="">Any GPU (no model)</option>
              {catalog.data?.models.map((m) => (
                <option key={m.name} value={m.name}>
                  {m.name} ({formatMb(m.vram_mb)})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Min $/h" hint="Lowest price to consider." error={errors.min_dph}>
            <input type="number" inputMode="decimal" min={0} step={0.05} value={form.min_dph} onChange={(e) => setForm({ min_dph: e.target.value })} data-testid="estimate-min" />
          </Field>
          <Field label="Max $/h" hint="Your spend ceiling per hour." error={errors.max_dph}>
            <input type="number" inputMode="decimal" min={0} step={0.05} value={form.max_dph} onChange={(e) => setForm({ max_dph: e.target.value })} data-testid="estimate-max" />
          </Field>
          <Field label="Reliability (%)" hint="Minimum host reliability." error={errors.reliability_pct}>
            <input type="number" inputMode="decimal" min={0} max={100} step={0.5} value={form.reliability_pct} onChange={(e) => setForm({ reliability_pct: e.target.value })} data-testid="estimate-reliability" />
          </Field>
          <Field label="Duration (hours)" hint="How long the machine stays rented." error={errors.hours}>
            <input type="number" inputMode="decimal" min={0.1} step={0.5} value={form.hours} onChange={(e) => setForm({ hours: e.target.value })} data-testid="estimate-hours" />
          </Field>
        </form>
      </Panel>

      {estimate.isError ? <ErrorState error={estimate.error} onRetry={() => void estimate.refetch()} /> : null}

      {!input && !data ? (
        <EmptyState title="Fix the inputs above to see an estimate" />
      ) : !data ? (
        <Loading label="Asking the marketplace…" height={360} />
      ) : (
        <div className="stack" data-testid="estimate-result" data-basis={data.basis} aria-busy={estimate.isFetching}>
          <Panel
            title="Estimate"
            actions={
              <>
                {estimate.isFetching ? <span className="muted" role="status">updating…</span> : null}
                <span className={`badge ${data.basis === 'live_offers' ? 'badge-ok' : 'badge-warn'}`} data-testid="estimate-basis">
                  {data.basis === 'live_offers' ? 'live offers' : 'price range only'}
                </span>
              </>
            }
          >
            {data.basis === 'price_range' ? (
              <Notice tone="warn" testId="estimate-no-key">
                <p>
                  <strong>Estimated from your price range, not live offers.</strong> Expected = the middle of {formatUsd(Number(form.min_dph))}–{formatUsd(Number(form.max_dph))}/h, high = the maximum.
                </p>
                {/VAST_API_KEY/.test(data.warning ?? '') ? (
                  <p>
                    To see live offers, set <code>VAST_API_KEY</code> in the server's environment and restart it, or add the marketplace key in Settings in the desktop app.
                  </p>
                ) : null}
              </Notice>
            ) : null}
            {/* The no-key case is explained by the notice above; show the server's warning when it says more. */}
            {data.warning && !(data.basis === 'price_range' && /No VAST_API_KEY set/.test(data.warning) && data.warning.replace(/No VAST_API_KEY set[^.]*\./, '').trim() === '') ? (
              <Notice tone="warn" testId="estimate-warning">
                {data.warning}
              </Notice>
            ) : null}
            <Summary estimate={data} />
          </Panel>

          <div className="grid-2">
            <Panel title="Offer prices against GPU memory">
              {items.length > 0 ? (
                <OfferPriceChart offers={items} cheapestId={cheapestId} />
              ) : (
                <EmptyState title="No offers to plot">
                  <p>{data.basis === 'price_range' ? 'Live offers need a marketplace key.' : 'No offer fits the price, reliability and memory asked for: widen the range.'}</p>
                </EmptyState>
              )}
            </Panel>
            <Panel title="Cost against duration">
              <CostDurationChart estimate={data} />
            </Panel>
          </div>

          <Panel title={data.offers ? `Offers that fit (${formatCount(items.length)} of ${formatCount(data.offers.count)} shown)` : 'Offers'}>
            {items.length > 0 ? (
              <div className="table-scroll">
                <DataTable
                  columns={columns}
                  rows={items}
                  rowKey={(o) => String(o.id)}
                  rowClassName={(o) => (o.id === cheapestId ? 'row-highlight' : undefined)}
                  testId="offers-table"
                />
              </div>
            ) : (
              <EmptyState title={data.basis === 'live_offers' ? 'No offer fits' : 'No live offers'}>
                <p>
                  {data.basis === 'price_range'
                    ? 'Without a marketplace key only the price range is used. Set VAST_API_KEY to list the machines you could rent.'
                    : 'Raise the maximum $/h, lower the reliability, or pick a smaller model.'}
                </p>
              </EmptyState>
            )}
          </Panel>
        </div>
      )}
    </Page>
  );
}
