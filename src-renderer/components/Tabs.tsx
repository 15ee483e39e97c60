import type { ReactNode } from 'react';
import { formatCount } from '../lib/format';
import { nextIndex } from './ToggleGroup';

export type TabItem<V extends string> = { value: V; label: ReactNode; count?: number | null | undefined };

/** Filter tabs with counts (All / Running / Failed …); arrow keys, Home and End move between them. */
export function FilterTabs<V extends string>({
  items,
  value,
  onChange,
  label,
  testId,
}: {
  items: readonly TabItem<V>[];
  value: V;
  onChange: (value: V) => void;
  label: string;
  testId?: string;
}) {
  const move = (from: number, delta: number) => {
    const next = items[(from + delta + items.length) % items.length];
    if (next) {
      onChange(next.value);
      requestAnimationFrame(() => document.querySelector<HTMLButtonElement>(`[data-tab="${next.value}"]`)?.focus());
    }
  };
  return (
    <div className="tabs" role="tablist" aria-label={label} data-testid={testId}>
      {items.map((item, i) => (
        <button
          key={item.value}
          type="button"
          role="tab"
          aria-selected={item.value === value}
          tabIndex={item.value === value ? 0 : -1}
          className="tab"
          data-tab={item.value}
          onClick={() => onChange(item.value)}
          onKeyDown={(e) => {
            const next = nextIndex(e.key, i, items.length);
            if (next === null) return;
            e.preventDefault();
            move(i, next - i);
          }}
        >
          <span className="tab-label" data-text={typeof item.label === 'string' ? item.label : undefined}>
            {item.label}
          </span>
          {item.count === undefined ? null : <span className="tab-count num">{item.count === null ? '…' : formatCount(item.count)}</span>}
        </button>
      ))}
    </div>
  );
}
