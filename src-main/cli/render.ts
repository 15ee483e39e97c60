import { jobErrorWording, type AgentResult, type BenchmarkResult, type JobEvent, type JobRecord, type LlmInstanceResult, type ModelEntry } from '../../shared';
import { formatAge, formatBytes, formatDuration, formatUsd, out, print, table } from './output';
import { printSuiteResult } from './suites/render-suite';
import { printServingResult } from './render-serving';
import { verdictLines } from './render-verdict';

/** Human-readable renderings of the API's records (everything --json does not print). */

export function agentMetadataLine(result: AgentResult): string {
  const m = result.metadata;
  const parts = [`agent ${m.agent}`];
  if (m.model) parts.push(`model ${m.model}`);
  if (m.steps !== null) parts.push(`${m.steps} step${m.steps === 1 ? '' : 's'}`);
  if (m.tool_calls !== null) parts.push(`${m.tool_calls} tool call${m.tool_calls === 1 ? '' : 's'}`);
  if (m.tokens_per_second !== null) parts.push(`${m.tokens_per_second.toFixed(1)} tokens/s`);
  if (m.prompt_tokens !== null || m.completion_tokens !== null) parts.push(`tokens ${m.prompt_tokens ?? '-'} in / ${m.completion_tokens ?? '-'} out`);
  if (m.duration_ms !== null) parts.push(formatDuration(m.duration_ms));
  return parts.join(' · ');
}

export function printAgentResult(result: AgentResult, jobId?: string): void {
  print(out.bold('Answer'));
  print(result.answer.trimEnd());
  print();
  for (const line of verdictLines(result.answer)) print(line);
  print();
  print(out.dim(agentMetadataLine(result)));
  if (result.artifacts.length > 0) print(out.dim(`${result.artifacts.length} artifact(s): benchdesk jobs show ${jobId ?? '<job-id>'} --json`));
}

export function printBenchmarkResult(result: BenchmarkResult, jobId?: string): void {
  printAgentResult(result, jobId);
  print();
  print(
    table(
      ['phase', 'status', 'duration'],
      result.phases.map((p) => [p.name, p.status === 'ok' ? out.green(p.status) : p.status === 'error' ? out.red(p.status) : p.status, formatDuration(p.duration_ms)]),
    ),
  );
  print(`model ${result.model_name} on ${result.backend_url ?? '-'}`);
  if (result.instance) {
    const gpu = result.instance.gpu_name ? `${result.instance.num_gpus ?? 1}× ${result.instance.gpu_name}` : 'GPU unknown';
    print(
      `instance ${result.instance.id} (${gpu}): ${result.instance.released ? out.green('released') : out.yellow('still running')}` +
        ` · cost ${formatUsd(result.cost.cost_usd)} (${formatDuration(result.cost.rented_seconds * 1000)} at $${result.cost.dph_total.toFixed(3)}/h)`,
    );
    if (!result.instance.released) {
      print(out.yellow(`it keeps costing $${result.cost.dph_total.toFixed(3)}/h until released: benchdesk instances release ${result.instance.id}`));
    }
  } else {
    print('no machine rented (existing llmserver)');
  }
  if (result.teardown && !result.teardown.verified) print(out.yellow(`teardown: ${result.teardown.message}`));
}

export function printLlmInstanceResult(result: LlmInstanceResult): void {
  if (result.mode === 'existing') {
    print(`llmserver ${result.backend_url} answers with ${result.models.length} model(s)`);
    if (result.models.length > 0) print(modelsTable(result.models, []));
    return;
  }
  print(`${out.bold(result.model_name)} is ready at ${result.backend_url}`);
  const o = result.offer;
  print(`instance ${result.contract_id}: ${o.num_gpus}× ${o.gpu_name}, $${result.dph_total.toFixed(3)}/h, rented ${result.rented_at}`);
  if (result.backend_auth) print(`the marketplace proxy wants a bearer token: it is in ${result.backend_auth.token_file}`);
  print(result.message);
  if (result.instance_running) {
    print(out.yellow(`the machine keeps running (and costing $${result.dph_total.toFixed(3)}/h) until you release it: benchdesk instances release ${result.contract_id}`));
  }
}

export function modelsTable(models: readonly ModelEntry[], running: readonly ModelEntry[]): string {
  const runningByName = new Map(running.map((m) => [m.name, m]));
  const rows = models.map((m) => {
    const r = runningByName.get(m.name);
    return [
      r ? `${out.green('●')} ${m.name}` : `  ${m.name}`,
      m.parameter_size ?? '-',
      m.quantization ?? '-',
      formatBytes(m.size),
      r ? out.green('running') : '',
      r ? formatBytes(r.size_vram) : '-',
    ];
  });
  // A running model the tag list does not show (pulled elsewhere) still gets a row.
  for (const r of running) {
    if (!models.some((m) => m.name === r.name)) rows.push([`${out.green('●')} ${r.name}`, r.parameter_size ?? '-', r.quantization ?? '-', formatBytes(r.size), out.green('running'), formatBytes(r.size_vram)]);
  }
  return table(['model', 'params', 'quant', 'size', 'state', 'VRAM'], rows);
}

function jobCost(job: JobRecord): number | null {
  if (job.kind === 'benchmark' && job.result) return job.result.cost.cost_usd;
  if (job.kind === 'suite' && job.result) return job.result.cost?.cost_usd ?? null;
  const r = job.resources;
  if (r?.dph_total && r.rented_at) {
    const end = job.finished_at ? Date.parse(job.finished_at) : Date.now();
    return (r.dph_total * Math.max(0, end - Date.parse(r.rented_at))) / 3_600_000;
  }
  return null;
}

function jobDuration(job: JobRecord): number | null {
  if (!job.started_at) return null;
  const end = job.finished_at ? Date.parse(job.finished_at) : Date.now();
  return end - Date.parse(job.started_at);
}

export function statusColor(status: string): string {
  if (status === 'succeeded') return out.green(status);
  if (status === 'failed') return out.red(status);
  if (status === 'cancelled') return out.yellow(status);
  if (status === 'running') return out.cyan(status);
  return status;
}

export function jobsTable(jobs: readonly JobRecord[]): string {
  const now = Date.now();
  return table(
    ['job', 'kind', 'status', 'age', 'duration', 'cost', 'phase / message'],
    jobs.map((j) => [j.job_id, j.kind, statusColor(j.status), formatAge(j.created_at, now), formatDuration(jobDuration(j)), formatUsd(jobCost(j)), j.status === 'running' ? (j.progress?.phase ?? '') : (j.error ?? j.message)]),
  );
}

export function printJob(job: JobRecord): void {
  print(`${out.bold(job.job_id)}  ${job.kind}  ${statusColor(job.status)}`);
  print(`created ${job.created_at}${job.started_at ? ` · started ${job.started_at}` : ''}${job.finished_at ? ` · finished ${job.finished_at}` : ''}`);
  const duration = jobDuration(job);
  if (duration !== null) print(`duration ${formatDuration(duration)}`);
  if (job.progress && job.status === 'running') print(`phase ${job.progress.phase}${job.progress.detail ? `: ${job.progress.detail}` : ''}`);
  const cost = jobCost(job);
  if (cost !== null) print(`cost ${formatUsd(cost)}`);
  if (job.error) {
    const wording = jobErrorWording(job.error_code);
    print(out.red(`${wording ? wording.title : 'error'}${job.error_code ? ` [${job.error_code}]` : ''}: ${job.error}`));
    if (wording) print(wording.next);
  } else if (job.message) print(`message: ${job.message}`);
  if (job.status === 'succeeded' && job.result) {
    print();
    printResult(job);
  }
}

export function printResult(job: JobRecord): void {
  if (!job.result) return;
  if (job.kind === 'benchmark') printBenchmarkResult(job.result, job.job_id);
  else if (job.kind === 'agentic-agent') printAgentResult(job.result, job.job_id);
  else if (job.kind === 'suite') printSuiteResult(job.result);
  else if (job.kind === 'serving-benchmark') printServingResult(job.result);
  else printLlmInstanceResult(job.result);
}

export function eventsTable(events: readonly JobEvent[]): string {
  return table(
    ['seq', 'time', 'event', 'status', 'duration', 'message'],
    events.map((e) => [e.seq, e.recorded_at, e.event, e.status === 'error' ? out.red(e.status) : e.status, e.duration_ms === null ? '' : formatDuration(e.duration_ms), e.message ?? '']),
  );
}
