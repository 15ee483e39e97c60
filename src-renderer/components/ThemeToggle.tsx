import { useResolvedTheme } from '../state/theme';
import { useUiStore, type ThemePreference } from '../state/ui-store';

const OPTIONS: { value: ThemePreference; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** System / Light / Dark; the choice is kept in localStorage. */
export function ThemeToggle() {
  const theme = useUiStore((s) => s.theme);
  const setTheme = useUiStore((s) => s.setTheme);
  const resolved = useResolvedTheme();
  return (
    <div className="segmented" role="radiogroup" aria-label="Theme">
      {OPTIONS.map((o) => (
        <button
          key={o.value}
          type="button"
          role="radio"
          aria-checked={theme === o.value}
          className="segmented-item"
          onClick={() => setTheme(o.value)}
          data-testid={`theme-${o.value}`}
        >
          {o.value === 'system' && theme === 'system' ? `System (${resolved})` : o.label}
        </button>
      ))}
    </div>
  );
}
