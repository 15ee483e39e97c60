import type { AppSettings } from '../../../shared';
import { BackendApiField } from '../../components/BackendApiField';
import { Field } from '../../components/Field';
import { Panel } from '../../components/Page';
import { Notice } from '../../components/States';
import { TemplateField } from '../../components/TemplateField';
import { ToggleGroup } from '../../components/ToggleGroup';
import { canRent, DEFAULT_TEMPLATE_HASH } from './launch-form';
import type { DraftBinding } from './use-launch-draft';

type Saved = Pick<AppSettings, 'default_backend_url' | 'default_max_cost_usd'> | undefined;

/** An llmserver the user runs: its URL and the warm-up. */
function ExistingBackendFields({ form, saved }: { form: DraftBinding; saved: Saved }) {
  const { draft, errorOf, set, bind, touch } = form;
  return (
    <>
      <Field
        label="Backend URL"
        hint={saved?.default_backend_url && draft.backend_url === saved.default_backend_url ? 'Your default backend (Settings).' : 'Ollama (http://host:11434) or an OpenAI-compatible server (vLLM: http://host:8000).'}
        error={errorOf('backend_url')}
      >
        <input type="url" autoComplete="off" spellCheck={false} {...bind('backend_url')} />
      </Field>
      <BackendApiField
        api={draft.backend_api}
        apiKey={draft.backend_api_key}
        onApi={(backend_api) => set({ backend_api })}
        onKey={(backend_api_key) => set({ backend_api_key })}
        onBlur={() => touch('backend_api')}
        error={errorOf('backend_api')}
        keyError={errorOf('backend_api_key')}
      />
      <Field label="Warm-up timeout (s)" hint="How long loading the model may take." error={errorOf('backend_warmup_timeout')}>
        <input type="number" min={1} max={3600} {...bind('backend_warmup_timeout')} />
      </Field>
      <div className="field">
        <span className="field-hint">&nbsp;</span>
        <label className="check">
          <input type="checkbox" checked={draft.backend_warmup} onChange={(e) => set({ backend_warmup: e.target.checked })} /> Warm the model up first
        </label>
      </div>
    </>
  );
}

/** A rented machine: template, price range, reliability, duration, spend limit, release. */
function RentFields({ form, saved, keyConfigured }: { form: DraftBinding; saved: Saved; keyConfigured: boolean }) {
  const { draft, fields, errorOf, set, bind } = form;
  const vllm = draft.rented_server === 'vllm';
  return (
    <>
      <div className="field" data-testid="rented-server-field">
        <span className="field-label" aria-hidden="true">Server on the machine</span>
        <ToggleGroup
          label="Server on the machine"
          testId="launch-rented-server"
          value={draft.rented_server}
          onChange={(rented_server) => set({ rented_server })}
          options={[
            { value: 'ollama', label: 'Ollama', testId: 'rented-server-ollama' },
            { value: 'vllm', label: 'vLLM (OpenAI API)', testId: 'rented-server-vllm' },
          ]}
        />
        <span className="field-hint">{vllm ? 'Vast.ai’s “vLLM” template, found by name; the model is a Hugging Face id (Qwen/Qwen2.5-7B-Instruct).' : 'Pulls the model into Ollama after the machine starts.'}</span>
        <span className="field-error" role={errorOf('backend_api') ? 'alert' : undefined}>
          {errorOf('backend_api') ?? ''}
        </span>
      </div>
      {fields.has('template_hash') ? (
        <TemplateField hash={draft.template_hash} error={errorOf('template_hash')} onChange={(h) => set({ template_hash: h })} enabled={keyConfigured} isDefault={draft.template_hash === DEFAULT_TEMPLATE_HASH} />
      ) : null}
      <Field label="Min $/h" error={errorOf('min_dph')}>
        <input type="number" min={0} step={0.05} {...bind('min_dph')} />
      </Field>
      <Field label="Max $/h" hint="The spend ceiling per hour: no offer above it is rented." error={errorOf('max_dph')}>
        <input type="number" min={0} step={0.05} {...bind('max_dph')} />
      </Field>
      <Field label="Reliability (%)" error={errorOf('reliability_pct')}>
        <input type="number" min={0} max={100} step={0.5} {...bind('reliability_pct')} />
      </Field>
      {fields.has('hours') ? (
        <Field label="Expected duration (hours)" hint="Priced before launch; the spend limit’s check before renting uses it too." error={errorOf('hours')}>
          <input type="number" min={0.1} step={0.25} {...bind('hours')} />
        </Field>
      ) : null}
      <Field
        label="Spend limit ($)"
        hint={saved?.default_max_cost_usd != null && draft.max_cost_usd === String(saved.default_max_cost_usd) ? 'Your default limit (Settings). Empty: none.' : 'The job stops and its machine is released when its cost reaches this. Empty: none.'}
        error={errorOf('max_cost_usd')}
      >
        <input type="number" min={0} step={0.5} placeholder="no limit" {...bind('max_cost_usd')} />
      </Field>
      {fields.has('stop_instance') ? (
        <div className="field">
          <span className="field-hint">&nbsp;</span>
          <label className="check">
            <input type="checkbox" checked={draft.stop_instance} onChange={(e) => set({ stop_instance: e.target.checked })} data-testid="launch-stop_instance" /> Release the machine when done
          </label>
        </div>
      ) : null}
    </>
  );
}

/** "Where the model runs": an llmserver the user runs, or a rented GPU (needs a marketplace key). */
export function BackendPanel({ form, saved, keyConfigured }: { form: DraftBinding; saved: Saved; keyConfigured: boolean }) {
  const { kind, draft, fields, set } = form;
  const marketplace = fields.has('target') && draft.target === 'marketplace';
  return (
    <Panel title="Where the model runs">
      {canRent(kind) ? (
        <ToggleGroup
          label="Backend"
          size="large"
          className="launch-target"
          value={draft.target}
          onChange={(target) => set({ target })}
          options={[
            { value: 'existing', label: 'An llmserver I run', testId: 'target-existing' },
            {
              value: 'marketplace',
              label: 'Rent a GPU (marketplace)',
              testId: 'target-marketplace',
              disabled: !keyConfigured && draft.target !== 'marketplace',
              ...(keyConfigured ? {} : { title: 'Needs a marketplace key' }),
            },
          ]}
        />
      ) : null}
      {canRent(kind) && !keyConfigured ? (
        <Notice tone={marketplace ? 'error' : 'info'} testId="launch-no-key">
          Renting a GPU needs a marketplace key: set <code>VAST_API_KEY</code> for the server and restart it, or add the key in Settings in the desktop app.
          {marketplace ? ' Until then, run on an llmserver you already have.' : ''}
        </Notice>
      ) : null}
      <div className="form-grid">
        {fields.has('backend_url') ? <ExistingBackendFields form={form} saved={saved} /> : null}
        {marketplace ? <RentFields form={form} saved={saved} keyConfigured={keyConfigured} /> : null}
      </div>
      {marketplace && kind === 'llm-instance' ? <Notice tone="warn">The rented machine stays up after the job (that is what an LLM instance is for) and bills until you release it.</Notice> : null}
    </Panel>
  );
}
