import { Command } from '@commander-js/extra-typings';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { CliError, EXIT } from '../exit-codes';
import { formatAge, formatUsd, note, out, print, printJson, table } from '../output';
import { parsePositiveInt } from '../parsers';

function classification(c: string): string {
  if (c === 'orphaned') return out.red(c);
  if (c === 'kept') return out.yellow(c);
  if (c === 'foreign') return out.dim(c);
  return out.green(c);
}

/** `instances [release <id>]`: the rented machines benchdesk labelled, and releasing one. */
export function instancesCommand(setExit: (code: number) => void) {
  const instances = withConnection(
    new Command('instances')
      .description('list the marketplace machines benchdesk rented (job, GPU, $/h, cost so far, active/kept/orphaned)')
      .option('--orphaned', 'only machines whose job has ended or is unknown (still billing)'),
  )
    .addHelpText('after', examples('benchdesk instances', 'benchdesk instances --orphaned --json', 'benchdesk instances release 30000001'))
    .action(async (o) => {
      const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listInstances(o.orphaned ? { orphaned: true } : {}));
      if (o.json) printJson(res);
      else {
        const now = Date.now();
        if (res.instances.length === 0) print(res.note ?? 'no benchdesk machines are rented');
        else {
          print(
            table(
              ['instance', 'state', 'class', 'job', 'GPU', '$/h', 'rented', 'cost so far'],
              res.instances.map((i) => [
                i.instance_id,
                i.state ?? '-',
                classification(i.classification),
                i.job ? `${i.job.job_id} (${i.job.kind}, ${i.job.status})` : i.label,
                i.gpu_name ? `${i.num_gpus ?? 1}× ${i.gpu_name}` : '-',
                i.dph_total === null ? '-' : `$${i.dph_total.toFixed(3)}`,
                i.rented_at ? `${formatAge(i.rented_at, now)} ago` : '-',
                formatUsd(i.cost_usd_so_far),
              ]),
            ),
          );
          if (res.note) print(out.dim(res.note));
          for (const i of res.instances) if (i.release_error) print(out.red(`instance ${i.instance_id}: the last release failed: ${i.release_error}`));
          const billing = res.instances.filter((i) => i.classification !== 'active' && i.classification !== 'foreign');
          if (billing.length > 0) print(out.yellow(`release one: benchdesk instances release <instance>`));
          if (res.instances.some((i) => i.classification === 'foreign')) {
            print(out.dim('foreign: rented by another benchdesk install (another data dir); release it from there, or here with --force'));
          }
        }
      }
      setExit(EXIT.ok);
    });

  instances.addCommand(
    withConnection(
      new Command('release')
        .description('destroy one machine and confirm it is gone (a machine of a running job: cancel the job instead)')
        .argument('<instance-id>', 'the instance id', parsePositiveInt)
        .option('--force', 'also release a machine another benchdesk install rented (class foreign)'),
    )
      .addHelpText('after', examples('benchdesk instances release 30000001', 'benchdesk instances release 30000002 --force'))
      .action(async (instanceId, o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.releaseInstance({ instance_id: instanceId, ...(o.force ? { force: true } : {}) }));
        if (o.json) printJson(res);
        else print(`instance ${res.instance_id}: ${res.message}`);
        if (!res.released || !res.verified) {
          if (!o.json) note(out.yellow(res.released ? 'the destroy was accepted but not yet confirmed: check again with benchdesk instances' : 'not released'));
          if (!res.released) throw new CliError(`instance ${res.instance_id} was not released: ${res.message}`);
        }
        setExit(EXIT.ok);
      }),
  );
  return instances;
}
