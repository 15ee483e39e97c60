import { Field } from '../../components/Field';
import { ToggleGroup } from '../../components/ToggleGroup';
import type { DraftField, LaunchDraft } from './launch-form';
import './serving-fields.css';

/**
 * Launch's Serving kind, what to run (design §13b): levels of concurrency or of request rate (with
 * burstiness and a cap on requests in flight), a request count or a duration per level, the
 * prompts (random lengths, the shipped corpus, or a ShareGPT/JSONL file on the server), the tokens
 * asked, the SLOs that goodput counts, and the warm-up. Mounted by JobRequestForm inside its grid.
 */

type Props = {
  draft: LaunchDraft;
  set: (patch: Partial<LaunchDraft>) => void;
  errorOf: (field: DraftField) => string | null;
  touch: (field: DraftField) => void;
};

type TextField = 'concurrency' | 'request_rate' | 'burstiness' | 'max_concurrency' | 'requests_per_level' | 'duration_s' | 'prompt_tokens' | 'output_tokens' | 'range_ratio' | 'dataset_path' | 'slo_ttft_ms' | 'slo_tpot_ms' | 'slo_e2e_ms' | 'warmup_requests';

export function ServingWorkloadFields({ draft, set, errorOf, touch }: Props) {
  const bind = (f: TextField) => ({
    value: draft[f],
    onChange: (e: { target: { value: string } }) => set({ [f]: e.target.value }),
    onBlur: () => touch(f),
    name: f,
    'data-testid': `launch-${f}`,
  });
  const rate = draft.level_mode === 'rate';
  return (
    <>
      <div className="wide serving-modes">
        <ToggleGroup
          label="Levels"
          value={draft.level_mode}
          onChange={(level_mode) => set({ level_mode })}
          options={[
            { value: 'concurrency', label: 'Requests in flight (concurrency)', testId: 'launch-level-concurrency' },
            { value: 'rate', label: 'Requests per second (rate)', testId: 'launch-level-rate' },
          ]}
        />
        <ToggleGroup
          label="Each level runs"
          value={draft.length_mode}
          onChange={(length_mode) => set({ length_mode })}
          options={[
            { value: 'requests', label: 'A number of requests', testId: 'launch-length-requests' },
            { value: 'duration', label: 'For a time', testId: 'launch-length-duration' },
          ]}
        />
      </div>
      {rate ? (
        <>
          <Field label="Request rates (req/s)" hint="Requests started per second at each level, in this order; inf starts them all at once, e.g. 1, 4, 16, inf." error={errorOf('request_rate')}>
            <input type="text" autoComplete="off" spellCheck={false} {...bind('request_rate')} />
          </Field>
          <Field label="Burstiness" hint="Gamma shape of the gaps between requests: 1 = Poisson, lower = burstier." error={errorOf('burstiness')}>
            <input type="number" min={0.01} step={0.1} {...bind('burstiness')} />
          </Field>
          <Field label="Max in flight" hint="Optional: at most this many requests at once (the rest wait)." error={errorOf('max_concurrency')}>
            <input type="number" min={1} step={1} {...bind('max_concurrency')} />
          </Field>
        </>
      ) : (
        <Field label="Concurrency levels" hint="Requests in flight at each level, run in this order, e.g. 1, 2, 4, 8." error={errorOf('concurrency')}>
          <input type="text" inputMode="numeric" autoComplete="off" spellCheck={false} {...bind('concurrency')} />
        </Field>
      )}
      {draft.length_mode === 'duration' ? (
        <Field label="Seconds per level" hint="How long each level starts requests; the last ones then finish." error={errorOf('duration_s')}>
          <input type="number" min={1} step={10} {...bind('duration_s')} />
        </Field>
      ) : (
        <Field label="Requests per level" hint="Empty: at least 32 and 3 waves of the level’s concurrency (a steady state, not one burst)." error={errorOf('requests_per_level')}>
          <input type="number" min={1} step={1} placeholder="several waves" {...bind('requests_per_level')} />
        </Field>
      )}
      <Field label="Prompts" hint="Random lengths (as vllm bench serve), the shipped corpus of varied prompts, or a ShareGPT .json / .jsonl file on the server.">
        <select name="dataset_kind" value={draft.dataset_kind} onChange={(e) => set({ dataset_kind: e.target.value as LaunchDraft['dataset_kind'] })} data-testid="launch-dataset_kind">
          <option value="random">Random</option>
          <option value="shipped">Shipped corpus</option>
          <option value="file">A file (ShareGPT or JSONL)</option>
        </select>
      </Field>
      {draft.dataset_kind === 'file' ? (
        <Field label="Dataset file" hint="A path on the machine running benchdesk." error={errorOf('dataset_path')}>
          <input type="text" autoComplete="off" spellCheck={false} placeholder="/data/sharegpt.json" {...bind('dataset_path')} />
        </Field>
      ) : draft.dataset_kind === 'random' ? (
        <Field label="Length range (±)" hint="0 = every prompt the same length; 0.5 = lengths from half to 1.5 ×." error={errorOf('range_ratio')}>
          <input type="number" min={0} max={1} step={0.1} {...bind('range_ratio')} />
        </Field>
      ) : null}
      {draft.dataset_kind === 'random' ? (
        <Field label="Prompt tokens" hint="About how long each prompt is, in tokens." error={errorOf('prompt_tokens')}>
          <input type="number" min={1} step={64} {...bind('prompt_tokens')} />
        </Field>
      ) : null}
      <Field label="Output tokens" hint="Tokens each request asks for (a file’s entries may say their own)." error={errorOf('output_tokens')}>
        <input type="number" min={1} step={64} {...bind('output_tokens')} />
      </Field>
      <Field label="Warm-up requests" hint="Run before each level, left out of its figures." error={errorOf('warmup_requests')}>
        <input type="number" min={0} step={1} {...bind('warmup_requests')} />
      </Field>
      <Field label="SLO: TTFT at most (ms)" hint="Optional. Goodput counts the requests meeting every SLO given." error={errorOf('slo_ttft_ms')}>
        <input type="number" min={1} step={50} placeholder="none" {...bind('slo_ttft_ms')} />
      </Field>
      <Field label="SLO: TPOT at most (ms)" hint="Optional: time per output token after the first." error={errorOf('slo_tpot_ms')}>
        <input type="number" min={1} step={5} placeholder="none" {...bind('slo_tpot_ms')} />
      </Field>
      <Field label="SLO: end-to-end at most (ms)" hint="Optional: the whole answer." error={errorOf('slo_e2e_ms')}>
        <input type="number" min={1} step={100} placeholder="none" {...bind('slo_e2e_ms')} />
      </Field>
    </>
  );
}
