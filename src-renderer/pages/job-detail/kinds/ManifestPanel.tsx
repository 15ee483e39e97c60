import type { ReactNode } from 'react';
import type { Manifest } from '../../../../shared';
import { Panel } from '../../../components/Page';
import { CopyButton } from '../../../components/CopyButton';
import { formatDph } from '../../../lib/format';

/** A hash, short, with its full value on hover. */
function Hash({ value }: { value: string | null }) {
  if (!value) return <span className="muted">–</span>;
  return (
    <code title={value} className="manifest-hash">
      {value.length > 16 ? `${value.slice(0, 12)}…` : value}
    </code>
  );
}

/**
 * What a result needs to be reproduced (design §12b): versions, hashes of the suite and its
 * snapshots, the model's digest, sampling, template and machine. For suite and serving results.
 */
export function ManifestPanel({ manifest }: { manifest: Manifest | undefined }) {
  if (!manifest) return null;
  const m = manifest;
  const rows: [string, ReactNode][] = [
    ['benchdesk', m.benchdesk_version],
    ['Suite', m.suite_id === null ? null : <>{m.suite_id} <Hash value={m.suite_sha256} /></>],
    ['Snapshots', m.snapshot_sha256 ? Object.entries(m.snapshot_sha256).map(([id, h]) => <div key={id}>{id} <Hash value={h} /></div>) : null],
    ['Model', m.model === null ? null : <>{m.model} <Hash value={m.model_digest} /></>],
    ['Backend', m.backend_api === null ? null : `${m.backend_api} ${m.backend_version ?? '(version not reported)'}`],
    ['Agent', m.agent === null ? null : `${m.agent} ${m.agent_version ?? ''}`.trim()],
    ['Sampling', `temperature ${m.temperature ?? '–'} · seed ${m.seed ?? 'none'}${m.num_ctx !== null ? ` · num_ctx ${m.num_ctx}` : ''}`],
    ['Template', m.template === null ? null : (m.template.name ?? m.template.hash ?? null)],
    ['Machine', m.machine === null ? null : `${m.machine.num_gpus ?? '?'}× ${m.machine.gpu_name ?? 'GPU'} · instance ${m.machine.instance_id ?? '–'} · ${m.machine.dph_at_rent === null ? '' : formatDph(m.machine.dph_at_rent)}`],
    ['Started', m.started_at],
  ];
  return (
    <Panel title="Manifest" testId="result-manifest" actions={<CopyButton text={JSON.stringify(m, null, 2)} label="Copy as JSON" />}>
      <dl className="manifest-list">
        {rows
          .filter(([, v]) => v !== null && v !== undefined)
          .map(([k, v]) => (
            <div key={k} className="manifest-row">
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
      </dl>
    </Panel>
  );
}
