/**
 * The body of an offer search (`POST /bundles/`, reference §A.2): operator objects per field, plus
 * the control keys (`order`, `type`, `allocated_storage`, `limit`, and the SDK's `template_id`).
 * Pure, so what is sent can be tested without a server.
 */

export type FilterOperator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'notin';
export type FilterScalar = string | number | boolean | null;
export type FieldFilter = Partial<Record<FilterOperator, FilterScalar | FilterScalar[]>>;

export type OfferSearchQuery = {
  minDph?: number;
  /** Absent or 0: no ceiling. */
  maxDph?: number;
  minReliability?: number;
  /** Per-GPU memory, MB. */
  minGpuRamMb?: number;
  /** All GPUs together, MB. */
  minGpuTotalRamMb?: number;
  /** Disk (GB) used for pricing: `dph_total` includes storage at this size. */
  allocatedStorageGb?: number;
  /** The disk the rent will ask for (GB): hosts with less free disk cannot take it. */
  minDiskGb?: number;
  /** Directly reachable ports the host must offer (default 1: Ollama's port must map). */
  minDirectPorts?: number;
  limit?: number;
  /** Default true: verified, rentable, not rented. */
  defaults?: boolean;
  /**
   * The template the machine will run: its numeric id goes as the SDK's `template_id` control key
   * (the service leaves out hosts that cannot run it) and its `extra_filters` (the driver, CUDA or
   * memory it needs) join the filters. Our own filters win on a field both set.
   */
  template?: { id: number; extraFilters?: Record<string, FieldFilter> | null } | undefined;
  extraFilters?: Record<string, FieldFilter>;
};

export const DEFAULT_OFFER_ORDER: [string, 'asc' | 'desc'][] = [
  ['dph_total', 'asc'],
  ['reliability2', 'desc'],
];

/** Offers fetched per search by default. */
export const DEFAULT_OFFER_LIMIT = 64;

const OPERATORS = new Set<string>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin']);
/** Keys of the body that are not filters: a template's filters never set them. */
export const OFFER_CONTROL_KEYS = new Set(['order', 'limit', 'type', 'allocated_storage', 'template_id', 'disable_bundling', 'show_incompatible']);

function isScalar(v: unknown): v is FilterScalar {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * A template's `extra_filters` as operator objects (what the marketplace stores is JSON of any
 * shape): control keys and anything that is not an operator object are dropped.
 */
export function templateFilters(raw: unknown): Record<string, FieldFilter> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const out: Record<string, FieldFilter> = {};
  for (const [field, spec] of Object.entries(raw as Record<string, unknown>)) {
    if (OFFER_CONTROL_KEYS.has(field) || spec === null || typeof spec !== 'object' || Array.isArray(spec)) continue;
    const filter: FieldFilter = {};
    for (const [op, arg] of Object.entries(spec as Record<string, unknown>)) {
      if (!OPERATORS.has(op)) continue;
      if (isScalar(arg) || (Array.isArray(arg) && arg.every(isScalar))) filter[op as FilterOperator] = arg as FilterScalar | FilterScalar[];
    }
    if (Object.keys(filter).length > 0) out[field] = filter;
  }
  return out;
}

/** `a` then `b`, field by field; on a field both set, their operators merged with `b`'s winning. */
function mergeFilters(a: Record<string, FieldFilter>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [field, spec] of Object.entries(b)) {
    const before = out[field];
    out[field] = before && typeof before === 'object' && spec && typeof spec === 'object' ? { ...before, ...spec } : spec;
  }
  return out;
}

/** The `POST /bundles/` body for a query: operator objects plus the control keys. */
export function buildOfferSearchBody(q: OfferSearchQuery): Record<string, unknown> {
  const ours: Record<string, unknown> = {};
  if (q.defaults ?? true) {
    ours.verified = { eq: true };
    ours.rentable = { eq: true };
    ours.rented = { eq: false };
    // The official CLI's defaults include this one too: external offers are not Vast-managed hosts.
    ours.external = { eq: false };
  }
  // Without a direct port the `-p 11434` mapping never appears, however long one waits (reference §A.10).
  ours.direct_port_count = { gte: q.minDirectPorts ?? 1 };
  if (q.minDiskGb !== undefined) ours.disk_space = { gte: q.minDiskGb };
  const dph: FieldFilter = {};
  if (q.minDph !== undefined && q.minDph > 0) dph.gte = q.minDph;
  if (q.maxDph !== undefined && q.maxDph > 0) dph.lte = q.maxDph;
  if (Object.keys(dph).length > 0) ours.dph_total = dph;
  // `reliability` is the documented filter name (the CLI has sent it since 2024); offers also carry reliability2.
  if (q.minReliability !== undefined && q.minReliability > 0) ours.reliability = { gte: q.minReliability };
  if (q.minGpuRamMb !== undefined) ours.gpu_ram = { gte: q.minGpuRamMb };
  if (q.minGpuTotalRamMb !== undefined) ours.gpu_total_ram = { gte: q.minGpuTotalRamMb };
  Object.assign(ours, q.extraFilters ?? {});
  const body = mergeFilters(templateFilters(q.template?.extraFilters ?? null), ours);
  body.order = DEFAULT_OFFER_ORDER;
  body.type = 'on-demand';
  if (q.allocatedStorageGb !== undefined) body.allocated_storage = q.allocatedStorageGb;
  if (q.template) body.template_id = q.template.id;
  body.limit = q.limit ?? DEFAULT_OFFER_LIMIT;
  return body;
}
