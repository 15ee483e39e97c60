import type { SnapshotResource } from '../../shared/snapshots';
import { MASK, maskCredentialText } from './credential-text';

/**
 * What a snapshot never holds (design §11), by rule rather than by place, applied to every object
 * recorded, imported or exported, wherever in the object the thing sits:
 * - every annotation named `*last-applied-configuration` is dropped (it repeats the whole applied
 *   object: env values, config map data), in `metadata` and in any template's (a cron job's
 *   `jobTemplate` included), and so are `managedFields`;
 * - every container env `value` becomes `***` (the name and any `valueFrom` stay);
 * - the string value of every key named like a secret (`*secret*`, `*password*`, `*token*`, API
 *   and access keys, credentials) becomes `***`: flexVolume options, a PV's CSI attributes, a
 *   storage class's parameters, annotations. Keys that name another object (`secretName`,
 *   `secretRef`, `*-secret-namespace`) or a path stay: they are references, not secrets, and a
 *   troubleshooter needs them ("secret db-creds not found");
 * - every value of a `stringData` map, and of a config map's `data`, becomes `***` (binaryData empty);
 * - URLs with userinfo and free text that matches a credential pattern (credential-text.ts) are
 *   masked in every other string: event and termination messages, conditions, arguments.
 * Names, labels and selectors are identities the replay matches on: they are never rewritten.
 * Secret objects are never listed by the recorder and have no place in the document.
 */

export const REDACTED = MASK;
export const LAST_APPLIED_SUFFIX = 'last-applied-configuration';
export const LAST_APPLIED_ANNOTATION = `kubectl.kubernetes.io/${LAST_APPLIED_SUFFIX}`;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SECRET_WORDS = /secret|passw(?:or)?d|token|apikey|accesskey|credential|privatekey/;
/** A key that names another object or a file, though it says "secret" or "token". */
const REFERENCE_ENDINGS = /(?:name|names|namespace|ref|refs|path|file)$/;

/** Verdicts by key: a document repeats the same few hundred keys a million times. */
const KEY_VERDICTS_KEPT = 4_096;
const secretKeys = new Map<string, boolean>();
const identityKeys = new Map<string, boolean>();

function remembered(cache: Map<string, boolean>, key: string, decide: (key: string) => boolean): boolean {
  let verdict = cache.get(key);
  if (verdict === undefined) {
    verdict = decide(key);
    // Keys come from the documents: keep a bounded number of verdicts.
    if (cache.size >= KEY_VERDICTS_KEPT) cache.clear();
    cache.set(key, verdict);
  }
  return verdict;
}

/** Whether the value of `key` is a secret (its letters and digits, lower-case, matched against the rule). */
export function isSecretKey(key: string): boolean {
  return remembered(secretKeys, key, (k) => {
    const letters = k.toLowerCase().replace(/[^a-z0-9]/g, '');
    return SECRET_WORDS.test(letters) && !REFERENCE_ENDINGS.test(letters);
  });
}

/** Maps whose values are identities (selectors match them): left as they are. */
const IDENTITY_MAPS = new Set(['labels', 'matchLabels', 'selector', 'nodeSelector']);
/** Strings that are names, ids or times, never free text. */
const IDENTITY_KEYS = new Set(['kind', 'apiVersion', 'uid', 'resourceVersion', 'image', 'imageID', 'containerID', 'fieldPath']);
/** Names, ids and times: never free text. */
function isIdentityKey(key: string): boolean {
  return remembered(identityKeys, key, (k) => IDENTITY_KEYS.has(k) || /(?:^name|Name|^namespace|Namespace|Timestamp|Time|At)$/.test(k));
}

function cleanAnnotations(holder: Json): void {
  const annotations = holder.annotations;
  if (!isObject(annotations)) return;
  const kept: Json = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (key.toLowerCase().endsWith(LAST_APPLIED_SUFFIX)) continue;
    kept[key] = typeof value !== 'string' ? value : isSecretKey(key) && value !== '' ? MASK : maskCredentialText(value);
  }
  if (Object.keys(kept).length === 0) delete holder.annotations;
  else holder.annotations = kept;
}

function maskEnv(list: unknown[]): void {
  for (const variable of list) {
    if (isObject(variable) && variable.value !== undefined && variable.value !== null) variable.value = MASK;
  }
}

function maskAllValues(map: Json): void {
  for (const key of Object.keys(map)) map[key] = MASK;
}

/** One object's own entries; nested objects and arrays go on `stack`. */
function sanitizeEntries(node: Json, stack: unknown[]): void {
  delete node.managedFields;
  cleanAnnotations(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'annotations' || IDENTITY_MAPS.has(key)) continue;
    if (typeof value === 'string') {
      if (isSecretKey(key)) {
        if (value !== '') node[key] = MASK;
      } else if (!isIdentityKey(key)) node[key] = maskCredentialText(value);
      continue;
    }
    if (Array.isArray(value)) {
      if (key === 'env') maskEnv(value);
      stack.push(value);
    } else if (isObject(value)) {
      if (key === 'stringData') maskAllValues(value);
      else stack.push(value);
    }
  }
}

/**
 * Applies the rules to the whole tree of `root`, in place. Iterative: a deeply nested object
 * (the import refuses more than MAX_JSON_DEPTH levels; a cluster could answer anything) cannot
 * overflow the stack.
 */
function sanitizeTree(root: Json): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') node[i] = maskCredentialText(item);
        else if (typeof item === 'object' && item !== null) stack.push(item);
      }
    } else if (isObject(node)) sanitizeEntries(node, stack);
  }
}

/** Sanitises one object in place (the caller owns it: a parsed answer or an imported document). */
export function sanitizeObject(resource: SnapshotResource, object: Json): Json {
  if (resource === 'configmaps') {
    if (isObject(object.data)) maskAllValues(object.data);
    if (isObject(object.binaryData)) object.binaryData = Object.fromEntries(Object.keys(object.binaryData).map((key) => [key, '']));
  }
  sanitizeTree(object);
  return object;
}

/** A log's lines with credential patterns masked. */
export function sanitizeLines(lines: string[] | null): string[] | null {
  if (lines === null) return null;
  for (let i = 0; i < lines.length; i++) lines[i] = maskCredentialText(lines[i] as string);
  return lines;
}

/** The API server URL of a document, without any userinfo (the summary shows its host only; the document need not hold more). */
export function sanitizeServerUrl(server: string): string {
  try {
    const url = new URL(server);
    if (!url.username && !url.password) return server;
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return maskCredentialText(server);
  }
}
