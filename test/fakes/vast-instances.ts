import type http from 'node:http';
import type { FakeTemplate } from './vast-catalog';
import { BadRequest, NOT_FILTERABLE, json, jsonParam, matches } from './vast-query';
import type { FakeInstance, FakeVastKnobs, RecordedCall } from './vast-types';

/** The fake Vast.ai's instances: their state machine as a show answers it, and the v1 list. */

type Phase = { actual: string | null; statusMsg: string | null; ports?: Record<string, { HostIp: string; HostPort: string }[]> | null | undefined };

/**
 * Where an instance is in its life, from the polls it has had (reference §A.5): `null` while
 * scheduled, `created`, the boot hiccup if the knob asks for one, `loading`, then the outcome;
 * a destroy being carried out reads as running with intended_status stopped.
 */
function phaseOf(inst: FakeInstance, knobs: FakeVastKnobs): Phase {
  if (inst.destroyAcceptedAt !== null) return { actual: 'running', statusMsg: 'destroying' };
  if (inst.intendedStatus === 'stopped') return { actual: 'exited', statusMsg: 'stopped by user' };
  const p = knobs.pollsPerPhase;
  const n = inst.polls;
  const hiccup = knobs.bootHiccup?.polls ?? 0;
  const hiccupFrom = p.scheduling + p.created;
  const runningFrom = hiccupFrom + hiccup + p.loading;
  if (n <= p.scheduling) return { actual: null, statusMsg: null };
  if (n <= hiccupFrom) return { actual: 'created', statusMsg: 'container created' };
  if (knobs.bootHiccup && n <= hiccupFrom + hiccup) {
    return { actual: knobs.bootHiccup.status, statusMsg: knobs.bootHiccup.status === 'exited' ? 'container restarting' : 'waiting for the host to report' };
  }
  if (n <= runningFrom || knobs.outcome === 'never_ready') return { actual: 'loading', statusMsg: `Pulling image ${inst.image}: downloading layers` };
  if (knobs.outcome === 'exited') return { actual: 'exited', statusMsg: 'Error response from daemon: failed to create task for container: OCI runtime create failed' };
  if (knobs.outcome === 'offline' || knobs.outcome === 'unknown') return { actual: knobs.outcome, statusMsg: knobs.outcome === 'offline' ? 'host disconnected' : 'no heartbeat from host' };
  if (n <= runningFrom + knobs.portsDelayPolls) {
    // The race in §E.E.5: running, but the port map is not there yet ({} or missing).
    return { actual: 'running', statusMsg: `success, running ${inst.image}/args`, ports: n % 2 === 0 ? {} : undefined };
  }
  const ports: Record<string, { HostIp: string; HostPort: string }[]> = {
    '11434/tcp': [
      { HostIp: '0.0.0.0', HostPort: String(knobs.ollamaPort) },
      { HostIp: '::', HostPort: String(knobs.ollamaPort) },
    ],
    '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41222' }],
  };
  // A published vLLM port (`-p H:8000` in the env, the template's merged in) maps like Ollama's.
  if (inst.env.some(([key]) => /^-p \d+:8000(\/tcp)?$/.test(key))) {
    ports['8000/tcp'] = [
      { HostIp: '0.0.0.0', HostPort: String(knobs.openaiPort) },
      { HostIp: '::', HostPort: String(knobs.openaiPort) },
    ];
  }
  return { actual: 'running', statusMsg: `success, running ${inst.image}/args`, ports };
}

/** Whether a key of `account` sees the instance now: not destroyed (a lagging destroy counts once its lag is over), created, its own. */
export function isVisible(inst: FakeInstance, account: string, knobs: FakeVastKnobs, now: number): boolean {
  settleDestroy(inst, knobs, now);
  return !inst.destroyed && inst.account === account && now >= inst.visibleFrom;
}

/** A destroy accepted longer ago than the lag has taken effect. */
export function settleDestroy(inst: FakeInstance, knobs: FakeVastKnobs, now: number): void {
  if (inst.destroyAcceptedAt !== null && !inst.destroyed && now - inst.destroyAcceptedAt >= knobs.destroyLagMs) inst.destroyed = true;
}

export function renderInstance(inst: FakeInstance, knobs: FakeVastKnobs, templates: readonly FakeTemplate[]): Record<string, unknown> {
  const { actual, statusMsg, ports } = phaseOf(inst, knobs);
  const pad = (s: string): string => (knobs.trailingWhitespace ? `${s}\n` : s);
  const intended = inst.destroyAcceptedAt !== null ? 'stopped' : inst.intendedStatus;
  const o = inst.offer;
  const row: Record<string, unknown> = {
    id: inst.id,
    machine_id: o.machine_id,
    host_id: o.host_id,
    bundle_id: o.bundle_id,
    actual_status: actual === null ? null : knobs.trailingWhitespace ? `${actual} ` : actual,
    intended_status: intended,
    cur_state: intended,
    next_state: intended,
    status_msg: statusMsg === null ? null : pad(statusMsg),
    label: inst.label === null ? null : knobs.trailingWhitespace ? ` ${inst.label} ` : inst.label,
    template_hash_id: inst.templateHashId,
    template_id: templates.find((t) => t.hash_id === inst.templateHashId)?.id ?? null,
    template_name: templates.find((t) => t.hash_id === inst.templateHashId)?.name ?? null,
    image_uuid: inst.image,
    image_args: [],
    image_runtype: 'args',
    extra_env: inst.env,
    onstart: null,
    jupyter_token: 'jt-0123',
    public_ipaddr: actual === 'running' ? pad('127.0.0.1') : null,
    local_ipaddrs: '10.0.0.5 172.17.0.1 \n',
    ssh_host: 'ssh4.vast.ai',
    ssh_idx: '4',
    ssh_port: 20482,
    direct_port_count: 12,
    direct_port_start: 41200,
    direct_port_end: 41299,
    static_ip: false,
    gpu_name: o.gpu_name,
    num_gpus: o.num_gpus,
    gpu_ram: o.gpu_ram,
    gpu_totalram: o.gpu_total_ram,
    gpu_util: 0.0,
    gpu_temp: 39.0,
    cpu_name: o.cpu_name,
    cpu_cores: o.cpu_cores,
    cpu_ram: o.cpu_ram,
    disk_space: inst.disk,
    dph_base: o.dph_base,
    dph_total: o.dph_total,
    storage_cost: o.storage_cost,
    storage_total_cost: o.storage_total_cost,
    search: o.search,
    instance: o.instance,
    reliability2: o.reliability2,
    geolocation: o.geolocation,
    verification: o.verification,
    rentable: true,
    is_bid: false,
    min_bid: o.min_bid,
    start_date: inst.startDate,
    end_date: inst.startDate + 30 * 86400,
    uptime_mins: null,
    credit_balance: null,
    time_remaining: '',
    time_remaining_isbid: '',
  };
  if (ports !== undefined) row.ports = ports;
  return row;
}

/**
 * `GET /api/v1/instances/` (reference §A.5, §A.10): keyset pages of at most 25 rows ordered by `order_by`
 * (default id ascending), `select_filters` over the row fields (computed ones such as dph_total are
 * refused with 400), `next_token` to pass back as `after_token` until it is null.
 */
export function listV1(res: http.ServerResponse, call: RecordedCall, own: FakeInstance[], render: (inst: FakeInstance) => Record<string, unknown>, pageLimit: number): void {
  // Filters see the stored values (the trailing-whitespace knob pads only what is sent back).
  let rows = own.map((inst) => ({ inst, fields: { ...render(inst), label: inst.label } as Record<string, unknown> }));
  const filters = call.query.select_filters;
  if (filters) {
    const parsed = jsonParam(filters);
    for (const field of Object.keys(parsed)) if (NOT_FILTERABLE.has(field)) throw new BadRequest(`${field} is a computed field and cannot be filtered`);
    rows = rows.filter((r) => matches(r.fields, parsed));
  }
  let descending = false;
  if (call.query.order_by) {
    let first: unknown;
    try {
      const order: unknown = JSON.parse(call.query.order_by);
      first = Array.isArray(order) ? order[0] : undefined;
    } catch {
      first = undefined;
    }
    if (!first || typeof first !== 'object' || (first as { col?: unknown }).col !== 'id') throw new BadRequest('order_by must be [{"col":"id","dir":"asc"|"desc"}]');
    descending = (first as { dir?: unknown }).dir === 'desc';
  }
  rows.sort((a, b) => (a.inst.id - b.inst.id) * (descending ? -1 : 1));
  const asked = call.query.limit === undefined ? 25 : Number(call.query.limit);
  if (!Number.isInteger(asked) || asked < 1) throw new BadRequest('limit must be a positive integer');
  const pageSize = Math.min(asked, 25, pageLimit);
  if (call.query.after_token !== undefined) {
    const after = Number(Buffer.from(call.query.after_token, 'base64url').toString('utf8'));
    if (!Number.isInteger(after) || after <= 0) throw new BadRequest('after_token is not a token this server issued');
    rows = rows.filter((r) => (descending ? r.inst.id < after : r.inst.id > after));
  }
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  const nextToken = rows.length > pageSize && last ? Buffer.from(String(last.inst.id), 'utf8').toString('base64url') : null;
  const labelCounts: Record<string, number> = {};
  for (const i of own) labelCounts[i.label ?? ''] = (labelCounts[i.label ?? ''] ?? 0) + 1;
  const instances = page.map((r) => render(r.inst));
  json(res, call, 200, { success: true, instances_found: page.length, total_instances: own.length, label_counts: labelCounts, next_token: nextToken, instances });
}
