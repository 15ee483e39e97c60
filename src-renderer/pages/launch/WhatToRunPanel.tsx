import type { CatalogEntry } from '../../../shared';
import { Field } from '../../components/Field';
import { ModelField } from '../../components/ModelField';
import { Panel } from '../../components/Page';
import { formatGb, formatMb } from '../../lib/format';
import { AgentField } from './AgentField';
import { ClusterSource } from './ClusterSource';
import { KubeconfigField } from './KubeconfigField';
import { ServingLoadFields } from './ServingLoadFields';
import type { DraftBinding } from './use-launch-draft';

/** The Launch form's first panel: the question, the model, the kind's own fields, the agent and the cluster it reads. */
export function WhatToRunPanel({ form, catalog, marketplace, savedKubeconfig }: { form: DraftBinding; catalog: readonly CatalogEntry[] | undefined; marketplace: boolean; savedKubeconfig: string | null }) {
  const { draft, fields, errorOf, set, touch, bind } = form;
  const selectedModel = catalog?.find((m) => m.name === draft.model.trim());
  return (
    <Panel title="What to run">
      <div className="form-grid">
        {fields.has('question') ? (
          <div className="wide">
            <Field label="Question" hint="What the agent is asked (e.g. about the cluster the kubeconfig points at)." error={errorOf('question')}>
              <textarea rows={3} {...bind('question')} placeholder="Why is the checkout deployment not ready?" />
            </Field>
          </div>
        ) : null}
        <Field
          label="Model"
          hint={selectedModel ? `Catalog: needs ${formatMb(selectedModel.vram_mb)} VRAM, ${formatGb(selectedModel.required_disk_gb)} disk.` : marketplace ? 'From the marketplace catalog: it sizes the GPU.' : 'A model on the backend, e.g. qwen3:8b (Other to type one).'}
          error={errorOf('model')}
        >
          <ModelField value={draft.model} onChange={(v) => set({ model: v })} onBlur={() => touch('model')} catalog={catalog} testId="launch-model" />
        </Field>
        {form.kind === 'serving-benchmark' ? <ServingLoadFields form={form} /> : null}
        {fields.has('agent') ? <AgentField value={draft.agent} error={errorOf('agent')} onChange={(v) => set({ agent: v })} onBlur={() => touch('agent')} /> : null}
        {fields.has('cluster') ? (
          <ClusterSource
            cluster={draft.cluster}
            snapshot={draft.snapshot}
            snapshotError={errorOf('snapshot')}
            onChange={(patch) => set(patch)}
            onBlur={() => touch('snapshot')}
            kubeconfigField={<KubeconfigField value={draft.kubeconfig} error={errorOf('kubeconfig')} saved={savedKubeconfig} onChange={(v) => set({ kubeconfig: v })} onBlur={() => touch('kubeconfig')} />}
          />
        ) : null}
      </div>
    </Panel>
  );
}
