import type { AppSettingKey, SettingsResponse } from '../../../shared';

const EFFECT_TEXT = {
  now: 'applies at once',
  clients: 'used by the app’s forms',
  restart: 'needs a restart',
} as const;

/** When a setting takes effect (or that the environment overrides it). */
export function Effect({ data, name }: { data: SettingsResponse; name: AppSettingKey }) {
  const source = data.sources[name];
  return (
    <span className="effect" data-testid={`effect-${name}`}>
      {source === 'env' ? 'set by the environment, which wins' : EFFECT_TEXT[data.effects[name] ?? 'now']}
    </span>
  );
}
