import { useRef, useState } from 'react';
import { useLocation } from 'wouter';
import type { CreateJobInput, JobRecord } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { ErrorState } from '../../components/States';
import { formatDph, formatInstance } from '../../lib/format';
import { kindInSentence } from '../../lib/job';
import { rentsMachine } from '../../lib/machines';
import { useCancelJob, useCreateJob } from '../../queries/jobs';
import { jobPath, ROUTES } from '../../router/routes';
import { useUiStore } from '../../state/ui-store';
import { draftFromRequest, EDITABLE_KINDS } from '../launch/launch-form';

/** The same request again, as a new job (the stored request is what the kind's schema accepted). */
function rerunInput(job: JobRecord): CreateJobInput {
  return { kind: job.kind, request: job.request } as CreateJobInput;
}

/** "Edit and re-run": Launch opens with the job's request (a suite run on its Suite kind), only what the request said. */
function useEditAndRerun(job: JobRecord) {
  const [, navigate] = useLocation();
  const prefillLaunch = useUiStore((s) => s.prefillLaunch);
  const prefillSuite = useUiStore((s) => s.prefillSuiteLaunch);
  if (job.kind === 'suite') {
    return () => {
      prefillSuite(job.request.suite_id, job.request as Record<string, unknown>, `suite run ${job.job_id}`);
      navigate(ROUTES.launch);
    };
  }
  if (!EDITABLE_KINDS.includes(job.kind)) return null;
  return () => {
    prefillLaunch(job.kind, draftFromRequest(job.request as Record<string, unknown>), job.job_id);
    navigate(ROUTES.launch);
  };
}

/** The job page's actions (copy the id, edit and re-run, re-run, cancel) and their confirmations. */
export function useJobActions(job: JobRecord, terminal: boolean) {
  const [, navigate] = useLocation();
  const cancel = useCancelJob(job.job_id);
  const rerun = useCreateJob();
  const [confirm, setConfirm] = useState<'cancel' | 'rerun' | null>(null);
  const rerunKey = useRef<string | null>(null);
  const rents = rentsMachine(job);
  const instanceId = job.resources?.marketplace_instance_id ?? null;
  const editAndRerun = useEditAndRerun(job);

  const buttons = (
    <>
      <CopyButton text={job.job_id} label="Copy job ID" testId="copy-job-id" />
      {editAndRerun ? (
        <button type="button" className="button" onClick={editAndRerun} data-testid="edit-rerun" title="Open Launch with this request filled in">
          Edit and re-run
        </button>
      ) : null}
      {job.status === 'succeeded' ? (
        <button type="button" className="button" onClick={() => setConfirm('rerun')} data-testid="rerun">
          Re-run
        </button>
      ) : null}
      {!terminal ? (
        <button type="button" className="button button-danger" onClick={() => setConfirm('cancel')} disabled={cancel.isPending} data-testid="cancel-job">
          {cancel.isPending ? 'Cancelling…' : 'Cancel job'}
        </button>
      ) : null}
    </>
  );

  const dialogs = (
    <>
      <ConfirmDialog
        open={confirm === 'cancel'}
        title="Cancel this job?"
        confirmLabel="Cancel job"
        cancelLabel="Keep running"
        tone="danger"
        busy={cancel.isPending}
        onCancel={() => setConfirm(null)}
        onConfirm={() => cancel.mutate(undefined, { onSettled: () => setConfirm(null) })}
        testId="cancel-confirm"
      >
        <p>The job stops at its next step and ends as cancelled.</p>
        {rents ? (
          <p data-testid="cancel-release-note">
            <strong>Its rented machine{instanceId ? ` (${formatInstance(instanceId)})` : ''} will be released</strong>, so billing stops; the release shows in the events.
          </p>
        ) : null}
        {cancel.isError ? <ErrorState error={cancel.error} /> : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'rerun'}
        title="Run this request again?"
        confirmLabel={rents ? 'Rent and run again' : 'Run again'}
        busy={rerun.isPending}
        onCancel={() => {
          setConfirm(null);
          rerun.reset();
        }}
        onConfirm={() => {
          rerunKey.current ??= crypto.randomUUID();
          rerun.mutate(
            { ...rerunInput(job), idempotency_key: rerunKey.current },
            {
              onSuccess: (accepted) => {
                rerunKey.current = null;
                setConfirm(null);
                navigate(jobPath(accepted.job_id));
              },
            },
          );
        }}
        testId="rerun-confirm"
      >
        <p>A new {kindInSentence(job.kind)} job starts with the same request. To change something first, use Edit and re-run.</p>
        {job.kind !== 'agentic-agent' && job.request.marketplace ? (
          <p>
            <strong>It rents a new machine</strong> at up to {formatDph(job.request.max_dph ?? null)}
            {job.kind === 'benchmark' || job.kind === 'suite' ? (job.request.marketplace_stop_instance ? ', released when the run ends.' : ', kept running afterwards.') : ', kept running afterwards.'}
          </p>
        ) : null}
        {rerun.isError ? <ErrorState error={rerun.error} /> : null}
      </ConfirmDialog>
    </>
  );

  return { buttons, dialogs, askCancel: () => setConfirm('cancel') };
}
