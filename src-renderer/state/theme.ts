import { useEffect, useLayoutEffect, useState } from 'react';
import { useUiStore, type ThemePreference } from './ui-store';

export type Theme = 'light' | 'dark';

const DARK_QUERY = '(prefers-color-scheme: dark)';

export function resolveTheme(pref: ThemePreference, systemDark: boolean): Theme {
  if (pref === 'system') return systemDark ? 'dark' : 'light';
  return pref;
}

/** The effective theme: the manual override, else the system's, following system changes live. */
export function useResolvedTheme(): Theme {
  const pref = useUiStore((s) => s.theme);
  const [systemDark, setSystemDark] = useState(() => window.matchMedia(DARK_QUERY).matches);
  useEffect(() => {
    const mq = window.matchMedia(DARK_QUERY);
    const onChange = (e: MediaQueryListEvent) => setSystemDark(e.matches);
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, []);
  return resolveTheme(pref, systemDark);
}

/** Puts the effective theme on <html data-theme>, which the stylesheet keys its colours on. */
export function useApplyTheme(): Theme {
  const theme = useResolvedTheme();
  // A layout effect: it runs before the children's effects, so charts read the new colours.
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [theme]);
  return theme;
}
