import { useResolvedTheme } from '../state/theme';
import { useUiStore, type ThemePreference } from '../state/ui-store';
import { ToggleGroup } from './ToggleGroup';

/** System / Light / Dark; the choice is kept in localStorage. Arrow keys move the choice. */
export function ThemeToggle({ testIdPrefix = 'theme' }: { testIdPrefix?: string }) {
  const theme = useUiStore((s) => s.theme);
  const setTheme = useUiStore((s) => s.setTheme);
  const resolved = useResolvedTheme();
  const options: { value: ThemePreference; label: string; testId: string }[] = [
    { value: 'system', label: theme === 'system' ? `System (${resolved})` : 'System', testId: `${testIdPrefix}-system` },
    { value: 'light', label: 'Light', testId: `${testIdPrefix}-light` },
    { value: 'dark', label: 'Dark', testId: `${testIdPrefix}-dark` },
  ];
  return <ToggleGroup options={options} value={theme} onChange={setTheme} label="Theme" />;
}
