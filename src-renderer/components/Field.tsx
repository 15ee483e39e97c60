import { cloneElement, useId, type ReactElement, type ReactNode } from 'react';

type Control = ReactElement<{ id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }>;

/** A labelled form control with a hint and an inline error, wired for screen readers. */
export function Field({ label, hint, error, children, testId }: { label: ReactNode; hint?: ReactNode; error?: string | null; children: Control; testId?: string }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`} data-testid={testId}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint ? (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      ) : null}
      {/* Reserved line: an error appearing must not push the form down. */}
      <span id={errorId} className="field-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </span>
    </div>
  );
}
