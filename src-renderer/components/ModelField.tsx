import { useState } from 'react';
import type { CatalogEntry } from '../../shared';
import { formatMb } from '../lib/format';
import './fields.css';

const OTHER = '\u0000other';

/**
 * The model control of Estimate and Launch: the marketplace catalog as a select (with the VRAM
 * each model needs), and "Other" for any name typed in. Used inside <Field>, which hands it the
 * id and aria attributes of its label, hint and error (they go on the select).
 */
export function ModelField({
  value,
  onChange,
  onBlur,
  catalog,
  none,
  name = 'model',
  testId,
  id,
  'aria-invalid': ariaInvalid,
  'aria-describedby': ariaDescribedBy,
}: {
  value: string;
  onChange: (value: string) => void;
  onBlur?: () => void;
  catalog: readonly CatalogEntry[] | undefined;
  /** An empty choice ("Any GPU (no model)"); without it the select asks for a model. */
  none?: string;
  name?: string;
  testId: string;
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const listed = catalog?.some((m) => m.name === value.trim()) ?? false;
  const [otherPicked, setOtherPicked] = useState(false);
  // A name outside the catalog (typed, or carried over from a job) shows in the text box.
  const other = otherPicked || (value.trim() !== '' && !listed && catalog !== undefined);
  const selected = other ? OTHER : listed ? value.trim() : '';
  return (
    <div className={`model-field${other ? ' model-field-other' : ''}`}>
      <select
        id={id}
        name={other ? undefined : name}
        value={selected}
        aria-invalid={ariaInvalid}
        aria-describedby={ariaDescribedBy}
        onChange={(e) => {
          if (e.target.value === OTHER) {
            setOtherPicked(true);
            onChange(listed ? '' : value);
            requestAnimationFrame(() => document.querySelector<HTMLInputElement>(`[data-testid="${testId}-other"]`)?.focus());
          } else {
            setOtherPicked(false);
            onChange(e.target.value);
          }
        }}
        onBlur={onBlur}
        data-testid={testId}
      >
        {none !== undefined ? <option value="">{none}</option> : <option value="" disabled>{catalog ? 'Choose a model…' : 'Loading the catalog…'}</option>}
        {catalog?.map((m) => (
          <option key={m.name} value={m.name}>
            {m.name} · {formatMb(m.vram_mb)}
          </option>
        ))}
        <option value={OTHER}>Other (type a name)…</option>
      </select>
      {other ? (
        <input
          name={name}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          onBlur={onBlur}
          aria-label="Model name"
          aria-invalid={ariaInvalid}
          aria-describedby={ariaDescribedBy}
          autoComplete="off"
          spellCheck={false}
          placeholder="e.g. qwen3:8b"
          data-testid={`${testId}-other`}
        />
      ) : null}
    </div>
  );
}
