import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createPortal } from 'react-dom';
import type { CancelJobResponse, InstanceJob, MarketplaceInstanceEntry } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { Money, RelativeTime, RunningCost } from '../../components/Format';
import { ReleaseMachineButton } from '../../components/ReleaseMachine';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { formatCount, formatDph, formatGpus, formatInstance } from '../../lib/format';
import { isMarketplaceOutage } from '../../queries/outage';
import { settingsKeys, type useInstances } from '../../queries/settings';
import { hrefOf, sweepPath } from '../../router/routes';
import { JobLink } from './JobLink';

const CLASS_TONE: Record<MarketplaceInstanceEntry['classification'], string> = { active: 'badge-info', kept: 'badge-warn', orphaned: 'badge-error', foreign: 'badge-muted' };
const CLASS_TEXT: Record<MarketplaceInstanceEntry['classification'], string> = {
  active: 'its job is running',
  kept: 'kept after its job',
  orphaned: 'orphaned',
  foreign: 'another install',
};

function gpuOf(i: MarketplaceInstanceEntry): string | null {
  return i.gpu_name ? formatGpus(i.num_gpus ?? 1, i.gpu_name) : null;
}

/** Cancel for a machine in use: the job stops, and its cleanup releases the machine. */
function CancelJobButton({ job }: { job: InstanceJob }) {
  const api = useApi();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const cancel = useMutation<CancelJobResponse, BenchdeskApiError>({
    mutationFn: () => api.cancelJob({ job_id: job.job_id }),
    onSuccess: () => {
      setOpen(false);
      void qc.invalidateQueries({ queryKey: ['job', job.job_id] });
      void qc.invalidateQueries({ queryKey: settingsKeys.instances });
    },
  });
  return (
    <>
      <button type="button" className="button button-small" onClick={() => setOpen(true)} data-testid={`cancel-job-${job.job_id}`}>
        Cancel the job
      </button>
      {createPortal(
        <ConfirmDialog
          open={open}
          title="Cancel this job?"
          confirmLabel="Cancel job"
          cancelLabel="Keep running"
          tone="danger"
          busy={cancel.isPending}
          onCancel={() => {
            setOpen(false);
            cancel.reset();
          }}
          onConfirm={() => cancel.mutate()}
          testId="machine-cancel-confirm"
        >
          <p>
            Job <code>{job.job_id}</code> is using this machine. Cancelling stops it at its next step, and its cleanup releases the machine, so billing stops.
          </p>
          {cancel.isError ? <ErrorState error={cancel.error} /> : null}
        </ConfirmDialog>,
        document.body,
      )}
    </>
  );
}

function MachineAction({ machine }: { machine: MarketplaceInstanceEntry }) {
  if (machine.classification === 'active') {
    if (machine.job) return <CancelJobButton job={machine.job} />;
    // A sweep's machine: its sweep releases it (cancel the sweep on its page).
    return machine.sweep ? (
      <a className="button button-small" href={hrefOf(sweepPath(machine.sweep.sweep_id))} data-testid={`machine-sweep-${machine.instance_id}`}>
        Open the sweep
      </a>
    ) : null;
  }
  return (
    <ReleaseMachineButton
      target={{ instance_id: machine.instance_id, gpu: gpuOf(machine), dph: machine.dph_total, rentedAt: machine.rented_at, costSoFar: machine.cost_usd_so_far, downloadUsd: machine.download_usd ?? null, classification: machine.classification, label: machine.label }}
    />
  );
}

/** Why the last release of this machine failed (it is still billing), on its row. */
function ReleaseError({ machine }: { machine: MarketplaceInstanceEntry }) {
  if (!machine.release_error) return null;
  return (
    <span className="release-error" data-testid={`release-error-${machine.instance_id}`}>
      Last release failed: {machine.release_error}
    </span>
  );
}

function machineColumns(foreign: boolean): Column<MarketplaceInstanceEntry>[] {
  return [
    { id: 'id', header: 'Instance', cell: (i) => <span className="code-id">{formatInstance(i.instance_id)}</span> },
    {
      id: 'gpu',
      header: 'GPU',
      cell: (i) => (
        <span className="cell-stack">
          <span>{gpuOf(i) ?? <span className="muted">unknown GPU</span>}</span>
          <span className="muted">{i.state ?? 'scheduling'}</span>
        </span>
      ),
    },
    foreign
      ? {
          id: 'label',
          header: 'Label',
          cell: (i) => (
            <span className="cell-stack">
              <code className="machine-label" title={i.label}>
                {i.label}
              </code>
              <ReleaseError machine={i} />
            </span>
          ),
        }
      : {
          id: 'class',
          header: 'Why it is up',
          cell: (i) => (
            <span className="cell-stack">
              <span>
                <span className={`badge ${CLASS_TONE[i.classification]}`}>{i.sweep && i.classification === 'active' ? 'its sweep is running' : CLASS_TEXT[i.classification]}</span>
              </span>
              {i.job ? (
                <JobLink job={i.job} />
              ) : i.sweep ? (
                <a href={hrefOf(sweepPath(i.sweep.sweep_id))} data-testid={`machine-sweep-link-${i.instance_id}`}>
                  sweep “{i.sweep.name}”{i.sweep.model ? ` · running ${i.sweep.model}` : ''}
                </a>
              ) : (
                <span className="muted">job unknown here</span>
              )}
              <ReleaseError machine={i} />
            </span>
          ),
        },
    { id: 'dph', header: 'Rate', align: 'right', cell: (i) => formatDph(i.dph_total), sortValue: (i) => i.dph_total },
    { id: 'since', header: 'Rented', cell: (i) => <RelativeTime iso={i.rented_at} /> },
    {
      id: 'cost',
      header: 'Cost so far',
      align: 'right',
      cell: (i) => (i.dph_total && i.rented_at ? <RunningCost dph={i.dph_total} since={i.rented_at} downloadUsd={i.download_usd} /> : <Money usd={i.cost_usd_so_far} />),
    },
    {
      id: 'action',
      header: <span className="visually-hidden">Action</span>,
      align: 'right',
      cell: (i) => (
        <span className="machine-action" data-testid={`machine-${i.instance_id}`} data-classification={i.classification}>
          <MachineAction machine={i} />
        </span>
      ),
    },
  ];
}

/** The machines rented now: ours, then another install's apart. */
export function Machines({ instances }: { instances: ReturnType<typeof useInstances> }) {
  if (instances.isError && !instances.data) return <ErrorState error={instances.error} onRetry={() => void instances.refetch()} />;
  if (instances.isPending) return <Loading height={80} label="Asking the marketplace…" />;
  const list = instances.data.instances;
  // The marketplace stopped answering after a list was read: keep the list (those machines may still bill), say since when.
  const stale =
    instances.isError && isMarketplaceOutage(instances.error) ? (
      <Notice tone="warn" testId="overview-machines-stale">
        The marketplace is not answering ({instances.error.problem.detail}): the list below is as of <RelativeTime iso={new Date(instances.dataUpdatedAt).toISOString()} /> and may miss a machine that bills; Release waits until it answers.
      </Notice>
    ) : null;
  const ours = list.filter((i) => i.classification !== 'foreign');
  const foreign = list.filter((i) => i.classification === 'foreign');
  if (list.length === 0) {
    return (
      stale ?? (
        <EmptyState title="No machine is rented" testId="overview-no-machines">
          <p>{instances.data.note ?? 'Marketplace runs rent a GPU machine and release it when they end.'}</p>
        </EmptyState>
      )
    );
  }
  return (
    <>
      {stale}
      {ours.length > 0 ? (
        <DataTable columns={machineColumns(false)} rows={ours} rowKey={(i) => String(i.instance_id)} testId="overview-machines" />
      ) : (
        <p className="muted">None of this install’s jobs holds a machine.</p>
      )}
      {foreign.length > 0 ? (
        <section className="foreign-machines" data-testid="overview-foreign-machines" aria-labelledby="foreign-machines-title">
          <h3 id="foreign-machines-title">Machines of another benchdesk install ({formatCount(foreign.length)})</h3>
          <p className="muted note-small">
            Labelled by a benchdesk with another data directory on this marketplace account. This install never releases them on its own; release one only if you know it is no longer needed.
          </p>
          <DataTable columns={machineColumns(true)} rows={foreign} rowKey={(i) => String(i.instance_id)} testId="overview-foreign-table" />
        </section>
      ) : null}
    </>
  );
}

