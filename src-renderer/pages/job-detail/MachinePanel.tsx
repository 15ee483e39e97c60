import { isTerminal, type JobEvent, type JobRecord } from '../../../shared';
import { Duration, Money, RelativeTime, RunningCost } from '../../components/Format';
import { Panel, Stat } from '../../components/Page';
import { useState } from 'react';
import { ReleaseMachineButton, releaseOutcome } from '../../components/ReleaseMachine';
import { Notice } from '../../components/States';
import { elapsedMs, formatDph, formatUsd, formatInstance } from '../../lib/format';
import { jobMachine, machineResultOf, type RentedMachine } from '../../lib/machines';
import { useInstances } from '../../queries/settings';

/**
 * The final cost of a released machine, by the ledger's formula over the times the panel shows
 * (rent to release, plus downloads), so the cost and the machine time agree, a kept machine's
 * included; the job's recorded figure when those times are not known.
 */
function releasedCost(job: JobRecord, m: RentedMachine): number | null {
  const recorded = machineResultOf(job);
  const elapsed = m.rentedAt && m.releasedAt ? elapsedMs(m.rentedAt, m.releasedAt) : null;
  if (m.dph !== null && elapsed !== null) {
    const download = recorded?.cost.download_usd ?? job.resources?.download_usd ?? 0;
    return (m.dph * elapsed) / 3_600_000 + download;
  }
  return recorded?.cost.cost_usd ?? null;
}

function maxDphOf(job: JobRecord): number | null {
  const v = (job.request as { max_dph?: unknown }).max_dph;
  return typeof v === 'number' ? v : null;
}

/**
 * The job's rented machine: what it is, what it bills and has cost, how long it has been held
 * (machine time, apart from the job's own time), and Release once no running job uses it.
 */
export function MachinePanel({ job, events, onCancelJob }: { job: JobRecord; events: readonly JobEvent[]; onCancelJob: () => void }) {
  const instances = useInstances();
  // What the release answered (its final cost): said after the dialog closes, once the button is gone.
  const [released, setReleased] = useState<string | null>(null);
  const listed = instances.isSuccess && instances.data.note === null;
  const m = jobMachine(job, { listed, entries: instances.data?.instances ?? [], listedAt: instances.dataUpdatedAt }, events);

  if (m.state === 'none') {
    return (
      <Panel title="Machine" testId="job-machine" className="machine-panel">
        {m.why === 'ended-before-renting' ? (
          <p data-testid="machine-nothing-rented" data-state="nothing-rented">
            <strong>Nothing was rented</strong>: the job {job.status === 'cancelled' ? 'was cancelled' : 'ended'} before a machine was rented, so it cost nothing.
          </p>
        ) : (
          <p className="muted" data-testid="machine-not-yet" data-state="not-yet">
            Not rented yet: the job rents the cheapest offer that fits{maxDphOf(job) !== null ? `, at most ${formatDph(maxDphOf(job))}` : ''}.
          </p>
        )}
      </Panel>
    );
  }

  const active = !isTerminal(job.status);
  const downloadUsd = m.live?.download_usd ?? job.resources?.download_usd ?? null;
  const recordedDownload = machineResultOf(job)?.cost.download_usd ?? null;
  const shownDownload = m.state === 'billing' ? downloadUsd : (recordedDownload ?? downloadUsd);
  const classification = m.live?.classification ?? (m.kept ? 'kept' : 'orphaned');
  return (
    <Panel
      title="Machine"
      testId="job-machine"
      className="machine-panel"
      actions={
        <>
          <span className={`badge ${m.state === 'billing' ? 'badge-warn' : 'badge-ok'}`} data-testid="machine-state" data-state={m.state}>
            {m.state === 'billing' ? 'billing' : 'released'}
          </span>
          {m.state === 'billing' && active ? (
            <button type="button" className="button button-small" onClick={onCancelJob} data-testid="machine-cancel-job">
              Cancel the job
            </button>
          ) : null}
          {m.state === 'billing' && !active && classification !== 'active' ? (
            <ReleaseMachineButton
              target={{ instance_id: m.instanceId, gpu: m.gpu, dph: m.dph, rentedAt: m.rentedAt, costSoFar: m.live?.cost_usd_so_far ?? null, downloadUsd, classification, label: m.live?.label ?? null }}
              testId="job-release"
              onReleased={(result) => setReleased(releaseOutcome(result))}
            />
          ) : null}
        </>
      }
    >
      <div className="stats">
        <Stat label="Instance" value={<span className="code-id">{formatInstance(m.instanceId)}</span>} hint={m.gpu ?? 'GPU not known yet'} testId="machine-instance" />
        <Stat label="Rate" value={formatDph(m.dph)} />
        <Stat
          label={m.state === 'billing' ? 'Cost so far' : 'Cost'}
          value={
            m.state === 'billing' ? (
              <span data-testid="running-cost">{m.dph !== null && m.rentedAt ? <RunningCost dph={m.dph} since={m.rentedAt} downloadUsd={downloadUsd} /> : <Money usd={m.live?.cost_usd_so_far ?? null} />}</span>
            ) : (
              <Money usd={releasedCost(job, m)} />
            )
          }
          hint={shownDownload ? `incl. ${formatUsd(shownDownload)} download` : undefined}
          testId="machine-cost"
        />
        <Stat
          label="Machine time"
          value={m.rentedAt ? <Duration since={m.rentedAt} until={m.releasedAt} /> : '—'}
          hint={
            m.state === 'billing' ? (
              <>
                rented <RelativeTime iso={m.rentedAt} />, still billing
              </>
            ) : (
              <>
                released <RelativeTime iso={m.releasedAt} />
              </>
            )
          }
          testId="machine-time"
        />
      </div>
      {m.state === 'billing' && !active ? (
        <p className="muted note-small" data-testid="machine-kept-note">
          {m.kept ? 'Kept after the job on purpose: it bills until you release it.' : 'Its job is over and it is still up: release it to stop the billing.'}
        </p>
      ) : null}
      {released ? (
        <p className="note-small" role="status" data-testid="machine-release-outcome">
          {released}
        </p>
      ) : null}
      {m.live?.release_error ? (
        <Notice tone="error" testId="machine-release-error">
          The last release failed: {m.live.release_error}
        </Notice>
      ) : null}
    </Panel>
  );
}
