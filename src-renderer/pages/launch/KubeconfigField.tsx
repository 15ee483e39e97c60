import { useState } from 'react';
import { toBenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { Field } from '../../components/Field';

/** The kubeconfig the agent inspects: a path on the server's machine; the desktop app can pick a file. */
export function KubeconfigField({ value, error, saved, onChange, onBlur }: { value: string; error: string | null; saved: string | null; onChange: (v: string) => void; onBlur: () => void }) {
  const api = useApi();
  const desktop = api.desktop;
  const [pickError, setPickError] = useState<string | null>(null);
  const hint =
    saved && value === saved
      ? 'Your default kubeconfig (Settings).'
      : desktop
        ? 'The cluster the agent inspects; empty uses the server’s default (KUBECONFIG).'
        : 'A path on the machine running the benchdesk server; empty uses its default (KUBECONFIG).';
  return (
    <div className="field kubeconfig-field">
      <Field label="Kubeconfig" hint={hint} error={error ?? pickError}>
        <input value={value} onChange={(e) => onChange(e.target.value)} onBlur={onBlur} name="kubeconfig" spellCheck={false} placeholder="~/.kube/config" data-testid="launch-kubeconfig" />
      </Field>
      {desktop ? (
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            setPickError(null);
            desktop.pickKubeconfig({}).then(
              (r) => {
                if (r.path) onChange(r.path);
              },
              (err: unknown) => setPickError(toBenchdeskApiError(err).message),
            );
          }}
        >
          Choose file…
        </button>
      ) : null}
    </div>
  );
}
