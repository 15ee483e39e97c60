import { useLocation } from 'wouter';
import { ROUTES } from '../../router/routes';
import { useUiStore } from '../../state/ui-store';
import { canRent } from '../launch/launch-form';

/** A catalog model's next steps: what renting a GPU for it costs (Estimate), or a run with it (Launch on a rented GPU). */
export function ModelActions({ model }: { model: string }) {
  const [, navigate] = useLocation();
  const setEstimate = useUiStore((s) => s.setEstimate);
  const launchKind = useUiStore((s) => s.launchKind);
  const prefill = useUiStore((s) => s.prefillLaunch);
  return (
    <span className="model-actions">
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          setEstimate({ model });
          navigate(ROUTES.estimate);
        }}
        aria-label={`Estimate (${model})`}
        data-testid={`model-estimate-${model}`}
      >
        Estimate
      </button>
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          const kind = canRent(launchKind) && launchKind !== 'suite' ? launchKind : 'benchmark';
          prefill(kind, { model, target: 'marketplace' }, `the Models page (${model}, on a rented GPU)`, true);
          navigate(ROUTES.launch);
        }}
        aria-label={`Launch with it (${model})`}
        data-testid={`model-launch-${model}`}
      >
        Launch with it
      </button>
    </span>
  );
}
