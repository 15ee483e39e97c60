import { Field } from '../../components/Field';
import type { DraftBinding } from './use-launch-draft';

/**
 * The serving benchmark's load: concurrency levels, requests per level, prompt and output tokens,
 * warm-up. Mounted in the Launch form's "What to run" panel for the serving kind.
 */
export function ServingLoadFields({ form }: { form: DraftBinding }) {
  const { bind, errorOf } = form;
  return (
    <>
      <Field label="Concurrency levels" hint="Requests in flight at each level, run in this order, e.g. 1, 2, 4, 8." error={errorOf('concurrency')}>
        <input type="text" inputMode="numeric" autoComplete="off" spellCheck={false} {...bind('concurrency')} />
      </Field>
      <Field label="Requests per level" hint="Measured requests of each level; at least the largest level." error={errorOf('requests_per_level')}>
        <input type="number" min={1} step={1} {...bind('requests_per_level')} />
      </Field>
      <Field label="Prompt tokens" hint="About how long each prompt is, in tokens." error={errorOf('prompt_tokens')}>
        <input type="number" min={1} step={64} {...bind('prompt_tokens')} />
      </Field>
      <Field label="Output tokens" hint="Tokens each request generates." error={errorOf('output_tokens')}>
        <input type="number" min={1} step={64} {...bind('output_tokens')} />
      </Field>
      <Field label="Warm-up requests" hint="Run before each level, left out of its figures." error={errorOf('warmup_requests')}>
        <input type="number" min={0} step={1} {...bind('warmup_requests')} />
      </Field>
    </>
  );
}
