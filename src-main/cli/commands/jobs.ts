import { Command, Option } from '@commander-js/extra-typings';
import { JOB_KINDS, JOB_STATUSES, type JobSort } from '../../../shared';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { followJob } from '../follow';
import { out, print, printJson } from '../output';
import { parseNonNegativeInt, parsePositiveInt } from '../parsers';
import { eventsTable, jobsTable, printJob } from '../render';

const LIST_SORTS = ['created', 'duration', 'cost'] as const;
type ListSort = (typeof LIST_SORTS)[number];

/** The API's sort: a leading '-' is descending, which is what a person asking for "by cost" wants first. */
export function apiSort(key: ListSort, reverse: boolean): JobSort {
  return reverse ? key : `-${key}`;
}

/** The same query's next page, as a command line: the cursor only holds for the filters and order that made it. */
function nextPageArgs(o: { status?: string | undefined; kind?: string | undefined; sort: ListSort; reverse?: true | undefined; limit?: number | undefined }, search: string, cursor: string): string {
  const args = [
    o.status ? `--status ${o.status}` : '',
    o.kind ? `--kind ${o.kind}` : '',
    search ? `--search ${JSON.stringify(search)}` : '',
    o.sort !== 'created' ? `--sort ${o.sort}` : '',
    o.reverse ? '--reverse' : '',
    o.limit ? `--limit ${o.limit}` : '',
    `--cursor ${cursor}`,
  ];
  return args.filter(Boolean).join(' ');
}

/** `jobs list|show|events|cancel|watch`: the job records and their events. */
export function jobsCommand(setExit: (code: number) => void) {
  const jobs = new Command('jobs').description('list, show, follow and cancel jobs');

  jobs.addCommand(
    withConnection(
      new Command('list')
        .description('jobs, newest first, with status, kind, age, duration, cost and the failure reason')
        .addOption(new Option('--status <status>', 'only jobs with this status').choices(JOB_STATUSES))
        .addOption(new Option('--kind <kind>', 'only jobs of this kind').choices(JOB_KINDS))
        .option('--search <text>', "only jobs whose id, model, backend, message or error contain every word (like the app's Jobs search)")
        .addOption(new Option('--sort <key>', 'order by: created (newest first), duration (longest first) or cost (dearest first)').choices(LIST_SORTS).default('created' as const))
        .option('--reverse', 'the other way round: oldest, shortest or cheapest first')
        .option('--limit <n>', 'at most this many (1–200, default 50)', parsePositiveInt)
        .option('--cursor <cursor>', 'the next page (next_cursor of the previous one)'),
    )
      .addHelpText(
        'after',
        examples(
          'benchdesk jobs list',
          'benchdesk jobs list --status running --kind benchmark --limit 10',
          'benchdesk jobs list --search "llama3.1 no_offers" --status failed',
          'benchdesk jobs list --sort cost --limit 5',
          'benchdesk jobs list --sort duration --reverse --json | jq -r ".jobs[].job_id"',
        ),
      )
      .action(async (o) => {
        const search = o.search?.trim() ?? '';
        const sort = apiSort(o.sort, o.reverse === true);
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) =>
          conn.client.listJobs({
            ...(o.status ? { status: o.status } : {}),
            ...(o.kind ? { kind: o.kind } : {}),
            ...(search ? { q: search } : {}),
            sort,
            ...(o.limit ? { limit: o.limit } : {}),
            ...(o.cursor ? { cursor: o.cursor } : {}),
          }),
        );
        if (o.json) printJson(res);
        else {
          print(res.jobs.length === 0 ? (search ? `no jobs match "${search}"` : 'no jobs') : jobsTable(res.jobs));
          if (res.next_cursor) print(out.dim(`more: benchdesk jobs list ${nextPageArgs(o, search, res.next_cursor)}`));
        }
        setExit(EXIT.ok);
      }),
  );

  jobs.addCommand(
    withConnection(new Command('show').description('one job: status, timing, cost, error or result').argument('<job-id>'))
      .addHelpText('after', examples('benchdesk jobs show 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10', 'benchdesk jobs show 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10 --json | jq .result.cost'))
      .action(async (jobId, o) => {
        const job = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.getJob({ job_id: jobId }));
        if (o.json) printJson(job);
        else printJob(job);
        setExit(EXIT.ok);
      }),
  );

  jobs.addCommand(
    withConnection(new Command('events').description("a job's events so far").argument('<job-id>').option('--after <seq>', 'only events after this seq', parseNonNegativeInt))
      .addHelpText('after', examples('benchdesk jobs events 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10', 'benchdesk jobs events 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10 --after 120 --json'))
      .action(async (jobId, o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.getJobEvents({ job_id: jobId, ...(o.after !== undefined ? { after: o.after } : {}) }));
        if (o.json) printJson(res);
        else print(res.events.length === 0 ? 'no events' : eventsTable(res.events));
        setExit(EXIT.ok);
      }),
  );

  jobs.addCommand(
    withConnection(new Command('cancel').description('cancel a job; it ends cancelled after its cleanup (rented machines released)').argument('<job-id>'))
      .addHelpText('after', examples('benchdesk jobs cancel 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10'))
      .action(async (jobId, o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.cancelJob({ job_id: jobId }));
        if (o.json) printJson(res);
        else if (res.status === 'running') print(`cancellation requested: job ${jobId} is cleaning up (watch it: benchdesk jobs watch ${jobId})`);
        else if (res.status === 'cancelled') print(`job ${jobId} is cancelled`);
        else print(`job ${jobId} had already ended: ${res.status}`);
        setExit(EXIT.ok);
      }),
  );

  jobs.addCommand(
    withConnection(
      new Command('watch')
        .description('follow a job live until it ends (exit 0 succeeded, 1 failed or cancelled)')
        .argument('<job-id>')
        .option('--cancel-on-interrupt', 'on Ctrl-C also cancel the job (on the app it keeps running otherwise)'),
    )
      .addHelpText('after', examples('benchdesk jobs watch 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10', 'benchdesk jobs watch 0b7c51c2-4f7e-4d55-9a43-0f1f7d3f8f10 --json > job.json'))
      .action(async (jobId, o) => {
        const code = await withConnectionOpen(connectionOf(o), 'run', (conn) => followJob(conn, jobId, { json: o.json === true, cancelOnInterrupt: o.cancelOnInterrupt === true }));
        setExit(code);
      }),
  );

  return jobs.addHelpText('after', examples('benchdesk jobs list', 'benchdesk jobs watch <job-id>', 'benchdesk jobs cancel <job-id>'));
}
