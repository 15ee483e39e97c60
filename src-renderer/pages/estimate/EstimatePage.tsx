import { useCallback, useMemo, useRef } from 'react';
import { useLocation } from 'wouter';
import type { CostEstimationResponse, OfferSummary } from '../../../shared';
import { DataTable, type Column } from '../../components/DataTable';
import { Field } from '../../components/Field';
import { Money } from '../../components/Format';
import { ModelField } from '../../components/ModelField';
import { Page, Panel, Stat } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { formatCount, formatDph, formatGb, formatGpus, formatHours, formatMb, formatPercent, formatUsd } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useDebounced, useEstimate } from '../../queries/estimate';
import { ROUTES } from '../../router/routes';
import { DEFAULT_ESTIMATE_FORM, useUiStore, type EstimateForm } from '../../state/ui-store';
import { canRent, type LaunchDraft } from '../launch/launch-form';
import { ceilingFor } from '../launch/spend';
import { CostDurationChart, OfferPriceChart } from './EstimateCharts';
import { estimateFieldErrors, parseEstimateForm } from './estimate-input';
import { liveStatusOf, NoLivePrices } from './NoLivePrices';
import './estimate.css';

/** What renting this offer for the duration costs: the machine time plus the model's download there. */
export function offerTotal(o: OfferSummary, hours: number): number {
  return o.dph_total * hours + (o.download_usd ?? 0);
}

function offerGpu(o: OfferSummary): string {
  return formatGpus(o.num_gpus, o.gpu_name);
}

const BASIS_TEXT: Record<CostEstimationResponse['basis'], string> = {
  live_offers: 'live offers',
  no_offers: 'no offer fits',
  price_range: 'no live prices',
  none: 'no cost driver',
};

/** Hands the estimate's inputs to Launch: model, price range, reliability, duration (and the offer's price as the ceiling). */
function useLaunchOn() {
  const [, navigate] = useLocation();
  const form = useUiStore((s) => s.estimate);
  const launchKind = useUiStore((s) => s.launchKind);
  const prefillLaunch = useUiStore((s) => s.prefillLaunch);
  return useCallback((offer: OfferSummary | null) => {
    const patch: Partial<LaunchDraft> = {
      target: 'marketplace',
      model: form.model,
      min_dph: form.min_dph,
      max_dph: offer ? String(Math.max(ceilingFor(offer.dph_total), Number(form.min_dph) || 0)) : form.max_dph,
      reliability_pct: form.reliability_pct,
      hours: form.hours,
    };
    const from = offer
      ? `the estimate: an offer at ${formatDph(offer.dph_total)} (${offerGpu(offer)}); Max $/h is set to it, and the job rents the cheapest offer that fits at or under it`
      : 'the estimate: its model, price range, reliability and duration';
    prefillLaunch(canRent(launchKind) ? launchKind : 'benchmark', patch, from);
    navigate(ROUTES.launch);
  }, [form, launchKind, prefillLaunch, navigate]);
}

function offerColumns(hours: number, cheapestId: number | null, launchOn: (o: OfferSummary) => void): Column<OfferSummary>[] {
  return [
    {
      id: 'gpu',
      header: 'GPU',
      cell: (o) => (
        <span className="offer-gpu">
          <span>
            {offerGpu(o)}
            {o.id === cheapestId ? <span className="badge badge-ok offer-cheapest">cheapest</span> : null}
          </span>
          <span className="muted">
            {formatMb(o.gpu_ram)} per GPU · {o.geolocation ?? 'location unknown'}
          </span>
        </span>
      ),
      sortValue: (o) => o.gpu_name,
    },
    { id: 'dph', header: '$/h', cell: (o) => <Money usd={o.dph_total} perHour />, sortValue: (o) => o.dph_total, align: 'right' },
    {
      id: 'download',
      header: 'Download',
      cell: (o) =>
        o.download_usd != null ? (
          <Money usd={o.download_usd} title={o.inet_down_cost != null ? `${formatUsd(o.inet_down_cost)}/GB on this host` : undefined} />
        ) : (
          <span className="muted" title="The host's download price is unknown">—</span>
        ),
      sortValue: (o) => o.download_usd ?? null,
      align: 'right',
    },
    { id: 'reliability', header: 'Reliability', cell: (o) => formatPercent(o.reliability), sortValue: (o) => o.reliability, align: 'right' },
    {
      id: 'total',
      header: `Total for ${formatHours(hours)}`,
      cell: (o) => <Money usd={offerTotal(o, hours)} title="machine time + the model's download" />,
      sortValue: (o) => offerTotal(o, hours),
      align: 'right',
    },
    {
      id: 'launch',
      header: <span className="visually-hidden">Launch</span>,
      cell: (o) => (
        <button type="button" className="button button-small" onClick={() => launchOn(o)} data-testid={`launch-on-${o.id}`} aria-label={`Launch on this: ${offerGpu(o)} at ${formatDph(o.dph_total)}`}>
          Launch on this
        </button>
      ),
      align: 'right',
    },
  ];
}

function Summary({ estimate, onLaunch }: { estimate: CostEstimationResponse; onLaunch: () => void }) {
  const range = estimate.cost_range_usd;
  const cheapest = estimate.offers?.cheapest ?? null;
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
      {cheapest && estimate.offers ? (
        <>
          <div className="stat stat-action" data-testid="estimate-cheapest">
            <div className="stat-label">Cheapest fitting offer</div>
            <div className="stat-value">
              <Money usd={cheapest.dph_total} perHour />
            </div>
            <div className="stat-hint">
              {offerGpu(cheapest)}
              {cheapest.download_usd != null ? <span data-testid="estimate-cheapest-download"> · {formatUsd(cheapest.download_usd)} download</span> : null}
            </div>
            <button type="button" className="button button-small" onClick={onLaunch} data-testid="launch-on-cheapest">
              Launch on this
            </button>
          </div>
          <Stat label="Median offer" value={<Money usd={estimate.offers.median_dph} perHour />} hint={formatCount(estimate.offers.count, 'offer fits', 'offers fit')} />
        </>
      ) : null}
      <Stat label="Confidence" value={formatPercent(estimate.confidence_score)} testId="estimate-confidence" hint={estimate.basis === 'live_offers' ? 'from live offers' : 'from your price range'} />
    </div>
  );
}

/** Nothing fits: no cost (there is no machine to price), the nearest offer and one click to reach it. */
function NothingFits({ estimate, form, onRaise }: { estimate: CostEstimationResponse; form: EstimateForm; onRaise: (dph: number) => void }) {
  const nearest = estimate.nearest_offer ?? null;
  return (
    <div data-testid="estimate-nothing-fits">
      <Notice tone="warn" testId="estimate-no-offer">
        <p>
          <strong>No offer fits.</strong> The marketplace has no machine{form.model ? ` for ${form.model}` : ''} at {formatDph(Number(form.max_dph))} or less with reliability{' '}
          {form.reliability_pct} % or more, so there is no cost to show.
        </p>
        <p>{nearest ? 'The nearest offer fits everything but your price ceiling:' : 'No offer fits this model at any price: pick a smaller model or lower the reliability.'}</p>
      </Notice>
      {nearest ? (
        <div className="stat nearest-offer" data-testid="estimate-nearest">
          <div>
            <div className="stat-label">Nearest offer, above your ceiling</div>
            <div className="stat-value">
              <Money usd={nearest.dph_total} perHour />
            </div>
            <div className="stat-hint">
              {/* The exact rate: the ceiling offered below is it rounded up to the cent, which the short form can hide. */}
              <span data-testid="estimate-nearest-exact">${Number(nearest.dph_total.toFixed(4))}/h exactly</span> · {offerGpu(nearest)} · {formatMb(nearest.gpu_ram)} per GPU
              {nearest.download_usd != null ? ` · ${formatUsd(nearest.download_usd)} download` : ''}
            </div>
          </div>
          <button type="button" className="button button-primary" onClick={() => onRaise(ceilingFor(nearest.dph_total))} data-testid="estimate-raise-ceiling">
            Raise Max $/h to {formatDph(ceilingFor(nearest.dph_total))}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The form as it was when the figures on screen were asked for: what the result's words say, frozen while the inputs are invalid. */
function useLastValid(form: EstimateForm, valid: boolean): EstimateForm {
  const last = useRef(form);
  if (valid) last.current = form;
  return last.current;
}

/** The inputs: model, $/h range, reliability, duration (kept while moving between pages). */
function EstimateInputs({ errors }: { errors: Partial<Record<keyof EstimateForm, string>> }) {
  const form = useUiStore((s) => s.estimate);
  const setForm = useUiStore((s) => s.setEstimate);
  const catalog = useCatalog();
  const selectedModel = catalog.data?.models.find((m) => m.name === form.model);
  return (
    <Panel title="What to run">
      <form className="form-grid estimate-form" onSubmit={(e) => e.preventDefault()} aria-label="Estimate inputs">
        <Field label="Model" hint={selectedModel ? `needs ${formatMb(selectedModel.vram_mb)} VRAM, ${formatGb(selectedModel.required_disk_gb)} disk` : 'Sizes the GPU: offers with too little memory are left out.'} error={errors.model}>
          <ModelField value={form.model} onChange={(v) => setForm({ model: v })} catalog={catalog.data?.models} none="Any GPU (no model)" testId="estimate-model" />
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
  );
}

/** The figures of one answer: the summary (or why there is no price), the two charts and the offers. */
function EstimateFigures({ data, shown, invalid, fetching, onRetry }: { data: CostEstimationResponse; shown: EstimateForm; invalid: boolean; fetching: boolean; onRetry: () => void }) {
  const setForm = useUiStore((s) => s.setEstimate);
  const launchOn = useLaunchOn();
  const hours = data.hours;
  const cheapestId = data.offers?.cheapest.id ?? null;
  const items = data.basis === 'live_offers' ? (data.offers?.items ?? (data.offers ? [data.offers.cheapest] : [])) : [];
  const columns = useMemo(() => offerColumns(hours, cheapestId, launchOn), [hours, cheapestId, launchOn]);
  const noLive = data.basis === 'price_range';
  return (
    <div className="estimate-figures" aria-hidden={invalid ? true : undefined} inert={invalid ? true : undefined}>
      <Panel
        title="Estimate"
        actions={
          <>
            {fetching && !invalid ? <span className="muted" role="status">updating…</span> : null}
            <span className={`badge ${invalid ? 'badge-muted' : data.basis === 'live_offers' ? 'badge-ok' : 'badge-warn'}`} data-testid="estimate-basis">
              {invalid ? 'out of date' : BASIS_TEXT[data.basis]}
            </span>
          </>
        }
      >
        {noLive ? <NoLivePrices status={liveStatusOf(data)} onRetry={onRetry} /> : null}
        {/* Said above for no live prices, and by its own notice when nothing fits; the server's warning when it says more. */}
        {data.warning && data.basis === 'live_offers' ? (
          <Notice tone="warn" testId="estimate-warning">
            {data.warning}
          </Notice>
        ) : null}
        {data.basis === 'no_offers' ? <NothingFits estimate={data} form={shown} onRaise={(dph) => setForm({ max_dph: String(dph) })} /> : null}
        {data.basis === 'live_offers' || data.basis === 'none' ? <Summary estimate={data} onLaunch={() => launchOn(null)} /> : null}
      </Panel>
      {noLive ? null : (
        <>
          <div className="grid-2">
            <Panel title="Offer prices against GPU memory">
              {items.length > 0 ? (
                <OfferPriceChart offers={items} cheapestId={cheapestId} />
              ) : (
                <EmptyState title="No offers to plot">
                  <p>No offer fits the price, reliability and memory asked for.</p>
                </EmptyState>
              )}
            </Panel>
            <Panel title="Cost against duration">
              {data.basis === 'no_offers' ? (
                <EmptyState title="No cost to chart" testId="estimate-no-cost-chart">
                  <p>No machine fits, so there is nothing to price.</p>
                </EmptyState>
              ) : (
                <CostDurationChart estimate={data} />
              )}
            </Panel>
          </div>
          <Panel title={data.offers && data.basis === 'live_offers' ? `Offers that fit (${formatCount(items.length)} of ${formatCount(data.offers.count)} shown)` : 'Offers'}>
            {items.length > 0 ? (
              <div className="table-scroll">
                <DataTable columns={columns} rows={items} rowKey={(o) => String(o.id)} rowClassName={(o) => (o.id === cheapestId ? 'row-highlight' : undefined)} testId="offers-table" />
              </div>
            ) : (
              <EmptyState title="No offer fits">
                <p>Raise the maximum $/h, lower the reliability, or pick a smaller model.</p>
              </EmptyState>
            )}
          </Panel>
        </>
      )}
    </div>
  );
}

export function EstimatePage() {
  const form = useUiStore((s) => s.estimate);
  const setForm = useUiStore((s) => s.setEstimate);
  const { input, errors: localErrors } = useMemo(() => parseEstimateForm(form), [form]);
  const settled = useDebounced(input, 350);
  const estimate = useEstimate(settled);
  // The server's 422 (a rule the form could not check) lands on its fields, in the form's words.
  const serverErrors = useMemo(() => (estimate.error?.problem.errors ? estimateFieldErrors(estimate.error.problem.errors) : {}), [estimate.error]);
  const errors = { ...serverErrors, ...localErrors };
  const invalid = input === null || Object.keys(serverErrors).length > 0;
  const shown = useLastValid(form, !invalid);
  const data = estimate.data;
  const whatIsWrong = Object.values(errors).filter(Boolean);

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
      <EstimateInputs errors={errors} />
      {estimate.isError && Object.keys(serverErrors).length === 0 ? <ErrorState error={estimate.error} onRetry={() => void estimate.refetch()} /> : null}
      {!data ? (
        invalid ? (
          <EmptyState title="Fix the inputs above to see an estimate" testId="estimate-invalid">
            <p>{whatIsWrong.join('. ')}</p>
          </EmptyState>
        ) : (
          <Loading label="Asking the marketplace…" height={360} />
        )
      ) : (
        <div className={`stack estimate-result${invalid ? ' is-stale' : ''}`} data-testid="estimate-result" data-basis={data.basis} data-stale={invalid ? 'true' : 'false'} data-settled={settled === input && !estimate.isFetching ? 'true' : 'false'} aria-busy={estimate.isFetching}>
          {invalid ? (
            <Notice tone="error" testId="estimate-stale">
              <p>
                <strong>Out of date:</strong> the figures below are for the last valid inputs. {whatIsWrong.join('. ')}.
              </p>
            </Notice>
          ) : null}
          <EstimateFigures data={data} shown={shown} invalid={invalid} fetching={estimate.isFetching} onRetry={() => void estimate.refetch()} />
        </div>
      )}
    </Page>
  );
}
