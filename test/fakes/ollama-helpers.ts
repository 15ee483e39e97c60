/**
 * The fake Ollama's model records and the wire details it shares between its routes (names as
 * Ollama matches them, keep_alive as it parses it, timestamps as Go writes them).
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export interface FakeModelSeed {
  /** As /api/tags lists it; a bare name gets `:latest`. */
  name: string;
  size?: number;
  digest?: string;
  modified_at?: string;
  family?: string;
  parameter_size?: string;
  quantization_level?: string;
  /** model_info `<family>.context_length`. */
  context_length?: number;
  /** Default true. false: capabilities lack "tools" and chat with tools answers 400. */
  tools?: boolean;
}

export interface FakeModel {
  name: string;
  size: number;
  digest: string;
  modified_at: string;
  family: string;
  parameter_size: string;
  quantization_level: string;
  context_length: number;
  tools: boolean;
}

export interface LoadedModel {
  model: FakeModel;
  /** ms on the fake's clock; Infinity-like for negative keep_alive. */
  expiresAt: number;
  /** The next answer reports load_duration (first use after a load), then omits it. */
  coldStart: boolean;
  hiddenPolls: number;
}

export const DEFAULT_FAKE_MODELS: FakeModelSeed[] = [
  { name: 'llama3.1:8b', size: 4_920_753_328, family: 'llama', parameter_size: '8.0B', quantization_level: 'Q4_K_M', context_length: 131_072, modified_at: '2025-05-04T17:37:44.706015396-07:00' },
  { name: 'qwen2.5:7b', size: 4_683_087_332, family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M', context_length: 32_768, modified_at: '2025-06-11T09:12:03.118273645Z' },
  { name: 'gemma:2b', size: 1_678_456_656, family: 'gemma', parameter_size: '3B', quantization_level: 'Q4_0', context_length: 8192, tools: false, modified_at: '2024-11-02T08:01:55.001223344+01:00' },
  { name: 'tinyllama', size: 637_700_138, family: 'llama', parameter_size: '1B', quantization_level: 'Q4_0', context_length: 2048, tools: false, modified_at: '2024-03-15T10:00:00.5Z' },
];

export const DEFAULT_REGISTRY_MODELS: FakeModelSeed[] = [
  { name: 'qwen3:0.6b', size: 522_653_767, family: 'qwen3', parameter_size: '751.63M', quantization_level: 'Q4_K_M', context_length: 40_960 },
];

/** Ollama's name matching: case-insensitive, `:latest` implied. */
export function canonicalName(name: string): string {
  const n = name.trim().toLowerCase().replace(/^registry\.ollama\.ai\/library\//, '');
  return n.slice(n.lastIndexOf('/') + 1).includes(':') ? n : `${n}:latest`;
}

export const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;
/** Go's max Duration (~292 years): what a negative keep_alive means. */
export const FOREVER_MS = 9_223_372_036_854;
export const COLD_LOAD_NS = 2_969_184_542;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function toModel(seed: FakeModelSeed): FakeModel {
  const name = seed.name.includes(':') ? seed.name : `${seed.name}:latest`;
  return {
    name,
    size: seed.size ?? 1_000_000_000,
    digest: seed.digest ?? sha256(name),
    modified_at: seed.modified_at ?? '2025-01-01T00:00:00.000000001Z',
    family: seed.family ?? 'llama',
    parameter_size: seed.parameter_size ?? '1B',
    quantization_level: seed.quantization_level ?? 'Q4_0',
    context_length: seed.context_length ?? 4096,
    tools: seed.tools ?? true,
  };
}

/** RFC 3339 with nanoseconds, as Go formats Ollama's timestamps. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

export function details(m: FakeModel) {
  return { parent_model: '', format: 'gguf', family: m.family, families: [m.family], parameter_size: m.parameter_size, quantization_level: m.quantization_level };
}

const DURATION_RE = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h)/;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** keep_alive as Ollama reads it: seconds as a number, a Go duration string; negative = forever. */
export function parseKeepAlive(value: unknown): number | { error: string } {
  if (value === undefined || value === null) return DEFAULT_KEEP_ALIVE_MS;
  if (typeof value === 'number') return value < 0 ? -1 : value * 1000;
  if (typeof value !== 'string') return { error: `json: cannot unmarshal ${typeof value} into Go struct field .keep_alive` };
  if (value === '0' || value === '-0') return 0;
  let rest = value;
  const negative = rest.startsWith('-');
  if (negative) rest = rest.slice(1);
  let total = 0;
  if (rest === '') return { error: `time: invalid duration "${value}"` };
  while (rest !== '') {
    const match = DURATION_RE.exec(rest);
    if (!match) return { error: `time: invalid duration "${value}"` };
    const [, num, unit] = /^([\d.]+)(.*)$/.exec(match[0]) ?? [];
    total += Number(num) * (UNIT_MS[unit ?? ''] ?? NaN);
    rest = rest.slice(match[0].length);
  }
  if (Number.isNaN(total)) return { error: `time: invalid duration "${value}"` };
  return negative && total > 0 ? -1 : total;
}

export function startNdjson(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
}

export function writeLine(res: ServerResponse, obj: unknown): void {
  res.write(`${JSON.stringify(obj)}\n`);
}

export function callId(seed: string): string {
  return `call_${sha256(seed).replace(/[^a-z0-9]/g, '').slice(0, 8)}`;
}

