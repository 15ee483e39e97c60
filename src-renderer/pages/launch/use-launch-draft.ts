import { useEffect, useMemo, useRef, useState } from 'react';
import type { CreateJobInput, JobKind } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useSettings } from '../../queries/settings';
import { useUiStore } from '../../state/ui-store';
import { draftDefaults, fieldErrorsOf, fieldsOf, validateDraft, type DraftErrors, type DraftField, type LaunchDraft } from './launch-form';

/** The draft's text inputs that bind() wires (value, change, blur, name, test id). */
export type BoundField =
  | 'question'
  | 'backend_url'
  | 'backend_warmup_timeout'
  | 'min_dph'
  | 'max_dph'
  | 'reliability_pct'
  | 'hours'
  | 'max_cost_usd'
  | 'concurrency'
  | 'requests_per_level'
  | 'prompt_tokens'
  | 'output_tokens'
  | 'warmup_requests';

/** What the form's parts need to show and edit the draft: the same object for every panel. */
export type DraftBinding = {
  kind: JobKind;
  draft: LaunchDraft;
  fields: ReadonlySet<DraftField>;
  errorOf(field: DraftField): string | null;
  set(patch: Partial<LaunchDraft>): void;
  touch(field: DraftField): void;
  bind(field: BoundField): {
    value: string;
    onChange: (e: { target: { value: string } }) => void;
    onBlur: () => void;
    name: BoundField;
    'data-testid': string;
  };
};

/**
 * A Launch kind's draft: it starts from the saved defaults (Settings), takes what another page
 * hands over (an estimate's offer, a job to re-run) once, and is checked as it is typed with the
 * API's own rules. `onEdit` runs on every change (the pre-flight's answers no longer apply).
 */
export function useLaunchDraft(kind: JobKind, serverError: BenchdeskApiError | null, onEdit: () => void) {
  const settings = useSettings();
  const stored = useUiStore((s) => s.launchDrafts[kind]);
  const prefill = useUiStore((s) => s.launchPrefill);
  const setDraftStore = useUiStore((s) => s.setLaunchDraft);
  const clearPrefill = useUiStore((s) => s.clearLaunchPrefill);
  const settingsKnown = settings.isSuccess || settings.isError;
  const defaults = useMemo(() => draftDefaults(settings.data?.settings ?? null), [settings.data]);
  const incoming = prefill && prefill.kind === kind && settingsKnown ? prefill : null;
  const base = incoming?.merge ? (stored ?? defaults) : defaults;
  const draft: LaunchDraft = incoming ? { ...base, ...incoming.patch } : (stored ?? defaults);
  const [carried, setCarried] = useState<string | null>(null);
  const [touched, setTouched] = useState<ReadonlySet<DraftField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [templateError, setTemplateError] = useState<string | null>(null);
  const editRef = useRef(onEdit);
  editRef.current = onEdit;

  // A hand-over becomes this kind's draft once (over the saved defaults), and says where it came from.
  useEffect(() => {
    if (!incoming) return;
    setDraftStore(kind, { ...(incoming.merge ? (stored ?? defaults) : defaults), ...incoming.patch });
    setCarried(incoming.from);
    setTouched(new Set(Object.keys(incoming.patch) as DraftField[]));
    setSubmitted(false);
    clearPrefill();
    // `stored` is read at the moment of the hand-over only.
  }, [incoming, defaults, kind, setDraftStore, clearPrefill]);

  const fields = fieldsOf(kind, draft);
  const { input, errors } = useMemo(() => validateDraft(kind, draft), [kind, draft]);
  // A 422 from the server (a rule only it can check, e.g. the agent exists) lands on its field too.
  const serverErrors: DraftErrors = useMemo(() => (serverError ? fieldErrorsOf(serverError.problem.errors ?? []) : {}), [serverError]);
  const errorOf = (f: DraftField) => {
    const own = submitted || touched.has(f) ? (errors[f] ?? serverErrors[f] ?? null) : null;
    return own ?? (f === 'template_hash' ? templateError : null);
  };
  const set = (patch: Partial<LaunchDraft>) => {
    editRef.current();
    if ('template_hash' in patch) setTemplateError(null);
    setDraftStore(kind, { ...draft, ...patch });
  };
  const touch = (f: DraftField) => setTouched((t) => (t.has(f) ? t : new Set(t).add(f)));
  const bind: DraftBinding['bind'] = (f) => ({
    value: draft[f],
    onChange: (e) => set({ [f]: e.target.value }),
    onBlur: () => touch(f),
    name: f,
    'data-testid': `launch-${f}`,
  });
  const reset = () => {
    setDraftStore(kind, defaults);
    setTouched(new Set());
    setSubmitted(false);
    setCarried(null);
    setTemplateError(null);
  };
  const binding: DraftBinding = { kind, draft, fields, errorOf, set, touch, bind };
  return {
    binding,
    settings,
    settingsKnown,
    carried,
    input: input as CreateJobInput | null,
    errors,
    serverErrors,
    submitted,
    setSubmitted,
    setTemplateError,
    reset,
  };
}
