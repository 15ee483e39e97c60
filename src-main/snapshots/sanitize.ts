import type { SnapshotResource } from '../../shared/snapshots';

/**
 * What a snapshot never holds (design §11), applied to every object recorded or imported:
 * - every container env `value` becomes `***` (the variable's name and any `valueFrom` stay), in
 *   containers, init containers and ephemeral containers of pods and of the pod templates of
 *   deployments, replicasets, statefulsets, daemonsets, jobs and cronjobs;
 * - the `kubectl.kubernetes.io/last-applied-configuration` annotation is dropped (it repeats the
 *   whole applied object, env values and config map data included), and so are `managedFields`;
 * - a config map keeps its name and keys only: each `data` value becomes `***`, each
 *   `binaryData` value empty.
 * Secret objects are never listed by the recorder and have no place in the document.
 */

export const REDACTED = '***';
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function redactContainers(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const container of list) {
    if (!isObject(container) || !Array.isArray(container.env)) continue;
    for (const variable of container.env) {
      if (isObject(variable) && 'value' in variable && variable.value !== undefined && variable.value !== null) variable.value = REDACTED;
    }
  }
}

/** A PodSpec: containers, initContainers and ephemeralContainers. */
function redactPodSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  redactContainers(spec.containers);
  redactContainers(spec.initContainers);
  redactContainers(spec.ephemeralContainers);
}

function templateSpec(template: unknown): unknown {
  return isObject(template) ? template.spec : undefined;
}

function cleanMetadata(metadata: unknown): void {
  if (!isObject(metadata)) return;
  delete metadata.managedFields;
  if (isObject(metadata.annotations)) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...kept } = metadata.annotations;
    if (Object.keys(kept).length === 0) delete metadata.annotations;
    else metadata.annotations = kept;
  }
}

/** Sanitises one object in place (the caller owns it: a parsed answer or an imported document). */
export function sanitizeObject(resource: SnapshotResource, object: Json): Json {
  cleanMetadata(object.metadata);
  const spec = object.spec;
  switch (resource) {
    case 'pods':
      redactPodSpec(spec);
      break;
    case 'deployments':
    case 'replicasets':
    case 'statefulsets':
    case 'daemonsets':
    case 'jobs':
      if (isObject(spec)) {
        cleanMetadata(isObject(spec.template) ? spec.template.metadata : undefined);
        redactPodSpec(templateSpec(spec.template));
      }
      break;
    case 'cronjobs': {
      const jobTemplate = isObject(spec) ? spec.jobTemplate : undefined;
      const jobSpec = isObject(jobTemplate) ? jobTemplate.spec : undefined;
      if (isObject(jobSpec)) {
        cleanMetadata(isObject(jobSpec.template) ? jobSpec.template.metadata : undefined);
        redactPodSpec(templateSpec(jobSpec.template));
      }
      break;
    }
    case 'configmaps':
      if (isObject(object.data)) object.data = Object.fromEntries(Object.keys(object.data).map((key) => [key, REDACTED]));
      if (isObject(object.binaryData)) object.binaryData = Object.fromEntries(Object.keys(object.binaryData).map((key) => [key, '']));
      break;
    default:
      break;
  }
  return object;
}
