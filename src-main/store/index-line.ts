import {
  JOB_KINDS,
  JOB_NOTE_MAX,
  JOB_QUESTION_MAX,
  JOB_STATUSES,
  jobAgent,
  jobBackendText,
  jobCost,
  jobDurationMs,
  jobModelName,
  jobNote,
  jobQuestion,
  type JobKind,
  type JobRecord,
  type JobStatus,
} from '../../shared';
import { isRecord } from './jsonl';

/** One line of the jobs index on disk: its format, read and written (the index itself is job-index.ts). */

/**
 * What the Jobs list searches and sorts by, derived from the record (shared/job-facts.ts). Absent
 * fields are null; on disk they are left out, so a finished job's line stays short.
 */
export type IndexFacts = {
  model?: string;
  /** Backend URL(s) and rented GPU, as words to search. */
  backend?: string;
  /** The failure reason, else the status message: its first JOB_NOTE_MAX characters. */
  note?: string;
  /** error_code. */
  code?: string;
  /** What the job asked (its first JOB_QUESTION_MAX characters). */
  ask?: string;
  /** The agent asked. */
  agent?: string;
  /** Start to end, once the job has both. */
  dur?: number;
  /** Final cost ($) once nothing bills any more. */
  cost?: number;
  /** While a machine bills: its rate ($/h) and since when. */
  dph?: number;
  since?: string;
};

/**
 * The version of the facts a line carries. Lines of an older version (none: before search; 2:
 * before the question and agent) are filled in from their job files once at open.
 */
export const FACTS_VERSION = 3;

/** An index line on disk. `v: FACTS_VERSION` marks a line that carries every fact (older lines do not). */
export type IndexLine = {
  job_id: string;
  tenant_id: string;
  kind: JobKind;
  status: JobStatus;
  created_at: string;
  updated_at: string;
  /** Creation ordinal: breaks created_at ties and makes the cursor stable. */
  ord: number;
  v?: number;
} & IndexFacts;
export type IndexDrop = { op: 'drop'; job_id: string };

/** What list/filter/search/sort/cursor need of a job, kept in memory for every job. */
export type IndexEntry = IndexLine & {
  /** created_at as epoch ms (created_at may carry any RFC 3339 offset, so strings do not sort). */
  ts: number;
  /** The facts' words in lower case, made on the first search that reaches the entry. */
  hay?: string | undefined;
};

const KINDS: ReadonlySet<string> = new Set(JOB_KINDS);
const STATUSES: ReadonlySet<string> = new Set(JOB_STATUSES);
const FACT_KEYS = ['model', 'backend', 'note', 'code', 'ask', 'agent', 'dur', 'cost', 'dph', 'since'] as const;

export function factsOf(record: JobRecord): IndexFacts {
  const facts: IndexFacts = {};
  const model = jobModelName(record);
  if (model) facts.model = model;
  const backend = jobBackendText(record);
  if (backend) facts.backend = backend;
  const note = jobNote(record);
  if (note) facts.note = note.length > JOB_NOTE_MAX ? note.slice(0, JOB_NOTE_MAX) : note;
  if (record.error_code) facts.code = record.error_code;
  const ask = jobQuestion(record);
  if (ask) facts.ask = ask.length > JOB_QUESTION_MAX ? ask.slice(0, JOB_QUESTION_MAX) : ask;
  const agent = jobAgent(record);
  if (agent) facts.agent = agent;
  const dur = jobDurationMs(record);
  if (dur !== null) facts.dur = dur;
  const cost = jobCost(record);
  if (cost?.type === 'final') facts.cost = cost.usd;
  else if (cost?.type === 'running') {
    facts.dph = cost.dph;
    facts.since = cost.since;
  }
  return facts;
}

export function indexLineOf(record: JobRecord, ord: number): IndexLine {
  return {
    job_id: record.job_id,
    tenant_id: record.tenant_id,
    kind: record.kind,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    ord,
    v: FACTS_VERSION,
    ...factsOf(record),
  };
}

/** The line that writes an entry back (compaction): the entry without what is derived in memory. */
export function lineOfEntry(entry: IndexEntry): IndexLine {
  const { ts: _ts, hay: _hay, ...line } = entry;
  return line;
}

/** Hand-rolled check: at open this runs once per line (100k+), where a schema library costs too much. */
export function parseIndexLine(value: unknown): IndexLine | IndexDrop | undefined {
  if (!isRecord(value)) return undefined;
  if (value.op === 'drop') return typeof value.job_id === 'string' ? { op: 'drop', job_id: value.job_id } : undefined;
  const { job_id, tenant_id, kind, status, created_at, updated_at, ord } = value;
  if (
    typeof job_id !== 'string' ||
    typeof tenant_id !== 'string' ||
    typeof kind !== 'string' ||
    !KINDS.has(kind) ||
    typeof status !== 'string' ||
    !STATUSES.has(status) ||
    typeof created_at !== 'string' ||
    Number.isNaN(Date.parse(created_at)) ||
    typeof updated_at !== 'string' ||
    typeof ord !== 'number' ||
    !Number.isSafeInteger(ord)
  ) {
    return undefined;
  }
  const line: IndexLine = { job_id, tenant_id, kind: kind as JobKind, status: status as JobStatus, created_at, updated_at, ord };
  if (value.v !== FACTS_VERSION) return line;
  line.v = FACTS_VERSION;
  for (const key of FACT_KEYS) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    if (key === 'dur' || key === 'cost' || key === 'dph') {
      if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
      line[key] = v;
    } else {
      if (typeof v !== 'string') return undefined;
      line[key] = v;
    }
  }
  return line;
}

/** Whether an entry was written with its facts (lines of older versions were not). */
export function hasFacts(entry: IndexLine): boolean {
  return entry.v === FACTS_VERSION;
}
