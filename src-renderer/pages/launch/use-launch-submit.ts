import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useLocation } from 'wouter';
import type { CostEstimationResponse, CreateJobInput, JobKind, OfferSummary } from '../../../shared';
import { toBenchdeskApiError, type BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { choiceKeys } from '../../queries/choices';
import { useCreateJob } from '../../queries/jobs';
import { settingsKeys, useSettings } from '../../queries/settings';
import { jobPath } from '../../router/routes';
import { estimateFor, type LaunchDraft } from './launch-form';
import { needsConfirmation, type Preflight } from './spend';

export type Pending = Preflight & { input: CreateJobInput; key: string };
/** The pre-flight found no offer under the ceiling: nothing is rented, and the nearest offer is offered instead. */
export type Blocked = { maxDph: number; nearest: OfferSummary | null };

/**
 * Sending a Launch form: one idempotency key per attempt (a double click makes one job), and for
 * a rented machine the pre-flight first — the template exists, an offer fits, and the spend is
 * confirmed unless the expected cost stays under the "ask from" setting. Opens the job once accepted.
 */
export function useLaunchSubmit(kind: JobKind) {
  const api = useApi();
  const thresholdUsd = useSettings().data?.settings.spend_confirm_threshold_usd ?? 0;
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const create = useCreateJob();
  const [pending, setPending] = useState<Pending | null>(null);
  const [blocked, setBlocked] = useState<Blocked | null>(null);
  const [preflight, setPreflight] = useState(false);
  // One key per submission attempt: a double click or a retry of the same attempt reuses it.
  const attemptKey = useRef<string | null>(null);
  // A second click lands before React re-renders the disabled button: drop it here. (Were it
  // sent, the shared idempotency key would still make the server answer with the same job.)
  const inFlight = useRef(false);

  const submit = async (job: CreateJobInput, key: string) => {
    if (inFlight.current) return;
    inFlight.current = true;
    try {
      const accepted = await create.mutateAsync({ ...job, idempotency_key: key });
      attemptKey.current = null;
      setPending(null);
      navigate(jobPath(accepted.job_id));
    } catch {
      // Shown below the form (and in the dialog); the same key is reused if the user retries.
    } finally {
      inFlight.current = false;
    }
  };

  /** Whether the template exists: false only when the marketplace says there is none with this hash. */
  const templateExists = async (hash: string): Promise<boolean> => {
    try {
      const found = await qc.fetchQuery({ queryKey: choiceKeys.templates(hash), queryFn: () => api.searchTemplates({ q: hash }), staleTime: 60_000 });
      return found.note !== null || found.templates.some((t) => t.hash_id === hash);
    } catch {
      // The check itself failed: the job checks again before it rents.
      return true;
    }
  };

  /** Prices the rented run; resolves what to do: blocked (no offer), ask, or go. */
  const price = async (draft: LaunchDraft): Promise<Preflight | 'blocked'> => {
    const est = estimateFor(draft, kind);
    let estimate: CostEstimationResponse | null = null;
    let estimateError: BenchdeskApiError | null = null;
    try {
      estimate = await api.createEstimate(est);
    } catch (err) {
      estimateError = toBenchdeskApiError(err);
    }
    if (estimate?.basis === 'no_offers') {
      setBlocked({ maxDph: est.max_dph, nearest: estimate.nearest_offer ?? null });
      return 'blocked';
    }
    const kept = kind === 'llm-instance' || !draft.stop_instance;
    return { estimate, estimateError, hours: est.estimated_duration_seconds / 3600, maxDph: est.max_dph, maxCost: draft.max_cost_usd.trim() ? Number(draft.max_cost_usd) : null, kept };
  };

  /** Sends `input` now (an existing backend) or after the pre-flight (a rented machine). `onMissingTemplate` says the hash is unknown. */
  const launch = async (input: CreateJobInput, draft: LaunchDraft, marketplace: boolean, onMissingTemplate: () => void) => {
    if (create.isPending || preflight) return;
    attemptKey.current ??= crypto.randomUUID();
    const key = attemptKey.current;
    if (!marketplace) {
      await submit(input, key);
      return;
    }
    setPreflight(true);
    try {
      if (!(await templateExists(draft.template_hash.trim()))) {
        onMissingTemplate();
        return;
      }
      const p = await price(draft);
      if (p === 'blocked') return;
      // The threshold as saved now (it may have changed in another window since this page read it).
      const current = await qc
        .fetchQuery({ queryKey: settingsKeys.settings, queryFn: () => api.getSettings({}), staleTime: 0 })
        .then((s) => s.settings.spend_confirm_threshold_usd)
        .catch(() => thresholdUsd);
      if (needsConfirmation(p, current)) setPending({ ...p, input, key });
      else await submit(input, key);
    } finally {
      setPreflight(false);
    }
  };

  return {
    create,
    pending,
    blocked,
    preflight,
    busy: create.isPending || preflight,
    launch,
    /** The draft changed: a new attempt gets a new key, and the last pre-flight's answer no longer holds. */
    edited: () => {
      attemptKey.current = null;
      setBlocked(null);
    },
    clearBlocked: () => setBlocked(null),
    confirm: () => {
      if (pending) void submit(pending.input, pending.key);
    },
    cancelConfirm: () => {
      setPending(null);
      create.reset();
    },
  };
}
