import { useCallback, useMemo } from 'react';
import type { AlignedData, Options } from 'uplot';
import type { CostEstimationResponse, OfferSummary } from '../../../shared';
import { Chart, type ChartColors } from '../../components/Chart';
import { formatDph, formatHours, formatUsd } from '../../lib/format';

function axes(c: ChartColors, xLabel: string, yLabel: string, xValues?: (v: number) => string, yValues?: (v: number) => string): Options['axes'] {
  const base = { stroke: c.muted, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 }, font: '12px system-ui, sans-serif', labelFont: '12px system-ui, sans-serif' };
  return [
    { ...base, label: xLabel, ...(xValues ? { values: (_u: unknown, vals: number[]) => vals.map(xValues) } : {}) },
    { ...base, label: yLabel, size: 64, ...(yValues ? { values: (_u: unknown, vals: number[]) => vals.map(yValues) } : {}) },
  ];
}

/** Offer prices against the GPU memory they bring: where the cheap VRAM is. */
export function OfferPriceChart({ offers, cheapestId }: { offers: readonly OfferSummary[]; cheapestId: number | null }) {
  const data = useMemo<AlignedData>(() => {
    const sorted = [...offers].sort((a, b) => a.gpu_ram * a.num_gpus - b.gpu_ram * b.num_gpus || a.dph_total - b.dph_total);
    const x = sorted.map((o) => (o.gpu_ram * o.num_gpus) / 1024);
    const y = sorted.map((o) => (o.id === cheapestId ? null : o.dph_total));
    const best = sorted.map((o) => (o.id === cheapestId ? o.dph_total : null));
    return [x, y, best];
  }, [offers, cheapestId]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      legend: { show: true },
      series: [
        { label: 'VRAM', value: (_u, v) => (v == null ? '' : `${v.toFixed(0)} GB`) },
        { label: 'Offer', stroke: c.accent, fill: c.accent, paths: () => null, points: { show: true, size: 7, fill: c.accent, stroke: c.accent }, value: (_u, v) => (v == null ? '' : formatDph(v)) },
        { label: 'Cheapest', stroke: c.ok, paths: () => null, points: { show: true, size: 11, fill: c.ok, stroke: c.ok }, value: (_u, v) => (v == null ? '' : formatDph(v)) },
      ],
      axes: axes(c, 'Total GPU memory (GB)', '$/h', (v) => `${v} GB`, (v) => `$${v.toFixed(2)}`),
    }),
    [],
  );
  return <Chart build={build} data={data} height={220} label={`Price in dollars per hour of ${offers.length} offers against their total GPU memory`} testId="chart-offers" />;
}

/** Cost against duration: low, expected and high, with the band between low and high shaded. */
export function CostDurationChart({ estimate }: { estimate: CostEstimationResponse }) {
  const data = useMemo<AlignedData>(() => {
    const hours = estimate.hours > 0 ? estimate.hours : 1;
    const perHour = {
      low: estimate.cost_range_usd.low / hours,
      expected: estimate.cost_range_usd.expected / hours,
      high: estimate.cost_range_usd.high / hours,
    };
    const maxH = Math.max(2, hours * 2);
    const steps = 24;
    const x = Array.from({ length: steps + 1 }, (_, i) => (maxH * i) / steps);
    return [x, x.map((h) => perHour.high * h), x.map((h) => perHour.expected * h), x.map((h) => perHour.low * h)];
  }, [estimate]);
  const build = useCallback(
    (c: ChartColors): Omit<Options, 'width' | 'height'> => ({
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      series: [
        { label: 'Duration', value: (_u, v) => (v == null ? '' : formatHours(v)) },
        { label: 'High', stroke: c.error, width: 1, dash: [4, 4], points: { show: false }, value: (_u, v) => (v == null ? '' : formatUsd(v)) },
        { label: 'Expected', stroke: c.accent, width: 2, points: { show: false }, value: (_u, v) => (v == null ? '' : formatUsd(v)) },
        { label: 'Low', stroke: c.ok, width: 1, dash: [4, 4], points: { show: false }, value: (_u, v) => (v == null ? '' : formatUsd(v)) },
      ],
      bands: [{ series: [1, 3], fill: `${c.accent}22` }],
      axes: axes(c, 'Duration (hours)', 'Cost ($)', (v) => `${v} h`, (v) => `$${v < 10 ? v.toFixed(2) : v.toFixed(0)}`),
    }),
    [],
  );
  return <Chart build={build} data={data} height={220} label="Cost in dollars against run duration in hours: low, expected and high" testId="chart-cost-duration" />;
}
