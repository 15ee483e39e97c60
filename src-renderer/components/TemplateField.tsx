import { useEffect, useMemo, useState } from 'react';
import type { MarketplaceTemplateEntry } from '../../shared';
import { Field } from './Field';
import { useSlow } from './useSlow';
import { useTemplates } from '../queries/choices';
import './fields.css';

function describe(t: MarketplaceTemplateEntry): string {
  const image = t.image ? ` · ${t.image}${t.tag ? `:${t.tag}` : ''}` : '';
  return `${t.name ?? 'unnamed template'}${image}${t.recommended ? '' : ' (yours)'}`;
}

/**
 * The template a rented machine runs, chosen by name from the marketplace's templates (the
 * recommended ones, plus any found by name or hash), its hash shown small. The hash in use is
 * looked up too, so a template that does not exist says so before anything is rented.
 */
/** The recommended template a form starts with when its built-in default does not exist: an Ollama one first. */
export function preferredTemplate(templates: readonly MarketplaceTemplateEntry[]): MarketplaceTemplateEntry | undefined {
  return templates.find((t) => /ollama/i.test(`${t.name ?? ''} ${t.image ?? ''}`)) ?? templates[0];
}

export function TemplateField({
  hash,
  error,
  onChange,
  enabled,
  testId = 'launch-template',
  isDefault = false,
}: {
  hash: string;
  error: string | null;
  onChange: (hash: string) => void;
  enabled: boolean;
  testId?: string;
  /** The hash is the form's built-in default (the user did not choose it): when the marketplace has no such template, one it recommends is chosen instead. */
  isDefault?: boolean;
}) {
  const recommended = useTemplates('', enabled);
  const current = useTemplates(hash.trim(), enabled && hash.trim() !== '');
  const [search, setSearch] = useState('');
  const [asked, setAsked] = useState('');
  const found = useTemplates(asked, enabled && asked !== '');
  const options = useMemo(() => {
    const byHash = new Map<string, MarketplaceTemplateEntry>();
    for (const t of [...(current.data?.templates ?? []), ...(found.data?.templates ?? []), ...(recommended.data?.templates ?? [])]) if (!byHash.has(t.hash_id)) byHash.set(t.hash_id, t);
    return [...byHash.values()];
  }, [current.data, found.data, recommended.data]);
  // One template found: take it (several: the user picks in the list).
  const only = found.data?.templates.length === 1 ? found.data.templates[0]?.hash_id : undefined;
  useEffect(() => {
    if (only) onChange(only);
    // onChange is a new function every render: only a new answer should select.
  }, [only]);
  const selected = options.find((t) => t.hash_id === hash.trim()) ?? null;
  const missing = current.isSuccess && current.data.note === null && !current.data.templates.some((t) => t.hash_id === hash.trim());
  // A default the marketplace does not have (or none yet): start from a template it recommends,
  // rather than with an error the user did not cause.
  const fallback = (isDefault && missing) || hash.trim() === '' ? preferredTemplate(recommended.data?.templates ?? [])?.hash_id : undefined;
  useEffect(() => {
    if (fallback) onChange(fallback);
    // onChange is a new function every render: only a new fallback should select.
  }, [fallback]);
  const hanging = useSlow(enabled && (recommended.isPending || (hash.trim() !== '' && current.isPending)));
  const lookupError = current.isError ? `The template could not be checked: ${current.error.message}` : null;

  return (
    <div className="template-field wide" data-testid="template-field">
      <Field
        label="Template"
        hint={
          <span className="template-hash" data-testid="template-hash">
            hash <code>{hash || '—'}</code>
            {selected?.recommended_disk_space ? ` · wants ${selected.recommended_disk_space} GB disk` : ''}
          </span>
        }
        error={error ?? (missing && !fallback ? 'No template with this hash on the marketplace (editing a template changes its hash): choose one from the list' : lookupError)}
      >
        <select name="template_hash" value={selected ? selected.hash_id : ''} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
          {!selected ? <option value="">{current.isPending && hash ? 'Looking the template up…' : 'Choose a template…'}</option> : null}
          {options.map((t) => (
            <option key={t.hash_id} value={t.hash_id}>
              {describe(t)}
            </option>
          ))}
        </select>
      </Field>
      {hanging ? (
        <p className="notice notice-warn" role="status" data-testid="template-hanging">
          The marketplace has not answered for 5 s (asked for its templates): it may be slow or down. Renting waits for it; an llmserver you run works meanwhile.
        </p>
      ) : null}
      <div className="template-search">
        <span className="template-search-label">Not in the list? Find one by its exact name or its hash:</span>
        <input
          type="search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              setAsked(search.trim());
            }
          }}
          placeholder="Find by exact name or hash"
          aria-label="Find a template by its exact name or its hash"
          data-testid="template-search"
        />
        <button type="button" className="button button-small" onClick={() => setAsked(search.trim())} disabled={!search.trim() || found.isFetching} data-testid="template-find">
          {found.isFetching ? 'Finding…' : 'Find'}
        </button>
        <span className="muted note-small" role="status" data-testid="template-found">
          {found.isSuccess && asked ? (found.data.templates.length === 0 ? `No template named “${asked}”.` : found.data.templates.length === 1 ? (only === hash.trim() ? 'Found and selected.' : `Found “${asked}”: it is in the list.`) : `${found.data.templates.length} found: pick one in the list.`) : found.isError ? found.error.message : ''}
        </span>
      </div>
    </div>
  );
}
