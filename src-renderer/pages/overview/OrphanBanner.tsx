import { useState } from 'react';
import type { MarketplaceInstanceEntry } from '../../../shared';
import { Notice } from '../../components/States';
import { formatDph, formatGpus } from '../../lib/format';
import { useReleaseInstance } from '../../queries/settings';

/**
 * Machines still billing whose job ended or is unknown: one click releases one (the server
 * destroys it and reads it back to confirm it is gone).
 */
export function OrphanBanner({ orphans }: { orphans: readonly MarketplaceInstanceEntry[] }) {
  const release = useReleaseInstance();
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
        {release.isError ? <div className="orphan-error">Release failed: {release.error.problem.detail}</div> : null}
      </div>
      <ul className="orphan-list">
        {orphans.map((o) => (
          <li key={o.instance_id}>
            <span className="code-id">
              #{o.instance_id} {formatGpus(o.num_gpus ?? 1, o.gpu_name)}
            </span>
            <button
              type="button"
              className="button button-danger button-small"
              disabled={release.isPending}
              data-testid={`release-${o.instance_id}`}
              onClick={() =>
                release.mutate(o.instance_id, {
                  onSuccess: (r) => setDone(r.verified ? `Released instance ${r.instance_id}: the marketplace confirms it is gone.` : r.message),
                })
              }
            >
              {release.isPending && release.variables === o.instance_id ? 'Releasing…' : 'Release'}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
