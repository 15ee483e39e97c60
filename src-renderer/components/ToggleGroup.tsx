import { useRef, type KeyboardEvent, type ReactNode } from 'react';

export type ToggleOption<V extends string> = { value: V; label: ReactNode; testId?: string; disabled?: boolean; title?: string };

/** The option an arrow, Home or End key moves to from `index` (wrapping around), or null for other keys. */
export function nextIndex(key: string, index: number, count: number): number | null {
  if (count === 0) return null;
  if (key === 'ArrowRight' || key === 'ArrowDown') return (index + 1) % count;
  if (key === 'ArrowLeft' || key === 'ArrowUp') return (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

/**
 * A group of mutually exclusive choices (a radio group drawn as segmented buttons). One Tab stop:
 * the chosen option; arrow keys (and Home/End) move the choice, as in any radio group.
 */
export function ToggleGroup<V extends string>({
  options,
  value,
  onChange,
  label,
  size = 'small',
  testId,
  className,
}: {
  options: readonly ToggleOption<V>[];
  value: V;
  onChange: (value: V) => void;
  label: string;
  size?: 'small' | 'large';
  testId?: string;
  className?: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, index: number) => {
    let next = nextIndex(e.key, index, options.length);
    if (next === null) return;
    e.preventDefault();
    // A disabled option is passed over (Home/End then step inwards).
    const step = e.key === 'ArrowLeft' || e.key === 'ArrowUp' || e.key === 'End' ? -1 : 1;
    for (let tries = 0; tries < options.length && options[next]?.disabled; tries++) next = (next + step + options.length) % options.length;
    const option = options[next];
    if (!option || option.disabled) return;
    onChange(option.value);
    refs.current[next]?.focus();
  };
  const selected = Math.max(0, options.findIndex((o) => o.value === value));
  return (
    <div className={`segmented${size === 'large' ? ' segmented-lg' : ''}${className ? ` ${className}` : ''}`} role="radiogroup" aria-label={label} data-testid={testId}>
      {options.map((o, i) => (
        <button
          key={o.value}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="radio"
          aria-checked={o.value === value}
          tabIndex={i === selected ? 0 : -1}
          className="segmented-item"
          disabled={o.disabled}
          title={o.title}
          onClick={() => onChange(o.value)}
          onKeyDown={(e) => onKeyDown(e, i)}
          data-testid={o.testId}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
