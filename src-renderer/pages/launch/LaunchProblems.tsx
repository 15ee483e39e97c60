import { issueInWords } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { ErrorState } from '../../components/States';
import { formatDph, formatGpus } from '../../lib/format';
import { LAUNCH_WORDS } from './launch-form';
import { ceilingFor } from './spend';
import type { Blocked } from './use-launch-submit';

/** A validation answer of the server in the form's words: the issues its fields do not show already. */
export function SubmitProblem({ error, shown }: { error: BenchdeskApiError; shown: ReadonlySet<string> }) {
  const issues = error.problem.errors ?? [];
  if (error.code !== 'validation_failed' || issues.length === 0) return <ErrorState error={error} />;
  const rest = issues.filter((i) => !shown.has(i.path.split('.').filter((p) => p !== 'request')[0] ?? ''));
  return (
    <div className="problem" role="alert" data-testid="launch-refused">
      <p className="problem-title">The server refused the request</p>
      <p>{rest.length === 0 ? 'Fix the fields marked in red, then launch again.' : 'Fix these, then launch again:'}</p>
      {rest.length > 0 ? (
        <ul>
          {rest.map((i) => (
            <li key={`${i.path}:${i.message}`}>{issueInWords(i, LAUNCH_WORDS)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** No offer under the ceiling: nothing was rented; one click raises Max $/h to the nearest offer. */
export function NoOfferProblem({ blocked, model, reliabilityPct, onRaise }: { blocked: Blocked; model: string; reliabilityPct: string; onRaise: (maxDph: string) => void }) {
  const nearest = blocked.nearest;
  return (
    <div className="problem" role="alert" data-testid="launch-no-offer">
      <p className="problem-title">No offer fits now: nothing was rented</p>
      <p>
        No machine for {model.trim() || 'this model'} is offered at {formatDph(blocked.maxDph)} or less with reliability {reliabilityPct} % or more.
        {nearest ? (
          <>
            {' '}
            The cheapest that fits everything else costs <strong>{formatDph(nearest.dph_total)}</strong> ({formatGpus(nearest.num_gpus, nearest.gpu_name)}).
          </>
        ) : (
          ' No offer fits this model at any price: pick a smaller model or lower the reliability.'
        )}
      </p>
      {nearest ? (
        <button type="button" className="button" onClick={() => onRaise(String(ceilingFor(nearest.dph_total)))} data-testid="launch-raise-ceiling">
          Raise Max $/h to {formatDph(ceilingFor(nearest.dph_total))}
        </button>
      ) : null}
    </div>
  );
}
