import { useState } from 'react';
import type { MarketplaceInstanceEntry } from '../../../shared';
import { ReleaseMachineButton, releaseOutcome } from '../../components/ReleaseMachine';
import { Notice } from '../../components/States';
import { formatDph, formatGpus, formatInstance } from '../../lib/format';

/**
 * Machines still billing whose job ended or is unknown: each has Release (after a confirmation
 * naming it, its $/h and its cost so far; the server destroys it and reads it back).
 */
export function OrphanBanner({ orphans }: { orphans: readonly MarketplaceInstanceEntry[] }) {
  const [done, setDone] = useState<string | null>(null);
  if (orphans.length === 0) {
    return done ? (
      <Notice tone="ok" testId="orphan-released">
        {done}
      </Notice>
    ) : null;
  }
  const dph = orphans.reduce((s, o) => s + (o.dph_total ?? 0), 0);
  return (
    <div className="banner orphan-banner" role="alert" data-testid="orphan-banner">
      <div className="orphan-text">
        <strong>
          {orphans.length === 1 ? '1 orphaned machine is' : `${orphans.length} orphaned machines are`} still billing ({formatDph(dph)})
        </strong>
        <span className="muted">
          {orphans.length === 1
            ? ' — its job ended or is unknown here, and nothing will release it on its own.'
            : ' — their jobs ended or are unknown here, and nothing will release them on their own.'}
        </span>
      </div>
      <ul className="orphan-list">
        {orphans.map((o) => (
          <li key={o.instance_id}>
            <span className="code-id">
              {formatInstance(o.instance_id)} · {formatGpus(o.num_gpus ?? 1, o.gpu_name)} · {formatDph(o.dph_total)}
            </span>
            <ReleaseMachineButton
              target={{ instance_id: o.instance_id, gpu: o.gpu_name ? formatGpus(o.num_gpus ?? 1, o.gpu_name) : null, dph: o.dph_total, rentedAt: o.rented_at, costSoFar: o.cost_usd_so_far, classification: 'orphaned', label: o.label }}
              testId={`orphan-release-${o.instance_id}`}
              onReleased={(r) => setDone(releaseOutcome(r))}
            />
          </li>
        ))}
      </ul>
    </div>
  );
}
