import { jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { ageAt } from '../../shared/kube-display';

/** The pieces the Table printers share (table.ts says what the Table form is). */

export type TableColumn = { name: string; type: 'string' | 'integer' | 'number' | 'boolean' | 'date'; format: string; description: string; priority: number };
export type TableCell = string | number | boolean;

export type Printer = { columns: TableColumn[]; cells(object: Json, now: number): TableCell[] };

export function col(name: string, description: string, options: { type?: TableColumn['type']; format?: string; priority?: number } = {}): TableColumn {
  return { name, type: options.type ?? 'string', format: options.format ?? '', description, priority: options.priority ?? 0 };
}

export const NAME = col('Name', 'Name must be unique within a namespace.', { format: 'name' });
export const AGE = col('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

export function meta(object: Json): Json {
  return o(object.metadata);
}
export function nameOf(object: Json): string {
  return s(meta(object).name);
}
export function ageOf(object: Json, now: number): string {
  return ageAt(meta(object).creationTimestamp, now);
}
export function orNone(text: string): string {
  return text === '' ? '<none>' : text;
}

/** labels.FormatLabels: "k=v,k2=v2" sorted by key, or "<none>". */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(o(labels)).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${s(v)}`).join(',');
}

/** metav1.LabelSelectorAsSelector(...).String(): matchLabels and matchExpressions, sorted by key. */
export function formatLabelSelector(selector: unknown): string {
  const sel = o(selector);
  const parts: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(o(sel.matchLabels))) parts.push({ key: k, text: `${k}=${s(v)}` });
  for (const e of a(sel.matchExpressions)) {
    const key = s(e.key);
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort();
    switch (s(e.operator)) {
      case 'In':
        parts.push({ key, text: `${key} in (${values.join(',')})` });
        break;
      case 'NotIn':
        parts.push({ key, text: `${key} notin (${values.join(',')})` });
        break;
      case 'Exists':
        parts.push({ key, text: key });
        break;
      case 'DoesNotExist':
        parts.push({ key, text: `!${key}` });
        break;
      default:
        break;
    }
  }
  // An empty (or absent) selector prints as nothing, as labels.Everything()/Nothing() do.
  if (parts.length === 0) return '';
  return parts
    .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .map((p) => p.text)
    .join(',');
}

/** layoutContainerCells: names and images joined with commas. */
export function containerCells(podSpec: unknown): [string, string] {
  const containers = a(o(podSpec).containers);
  return [containers.map((c) => s(c.name)).join(','), containers.map((c) => s(c.image)).join(',')];
}

export function templateSpec(object: Json): unknown {
  return o(o(o(object.spec).template).spec);
}
