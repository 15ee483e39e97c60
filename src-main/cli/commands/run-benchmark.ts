import { Command } from '@commander-js/extra-typings';
import type { BenchmarkRequestInput } from '../../../shared';
import { backendFields, clusterOf, examples, runJob, withAgent, withBackend, withConnection, withJobSubmit, withMarketplace } from '../common';

/** `run-benchmark`: provision → warm up → analyse → tear down, timed, with cost. */
export function runBenchmarkCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-benchmark')
    .description('benchmark an agent and a model: provision (rent or use a backend) → warm up → analyse → tear down, timed and costed')
    .requiredOption('-m, --model <name>', 'the model to benchmark')
    .option('--marketplace-stop-instance', 'release the rented machine at the end (default)')
    .option('--no-marketplace-stop-instance', 'keep the rented machine running after the benchmark');
  return withConnection(withJobSubmit(withBackend(withMarketplace(withAgent(cmd)))))
    .addHelpText(
      'after',
      examples(
        '# on a rented GPU (released at the end), at most $0.50/h',
        'benchdesk run-benchmark --marketplace --marketplace-template 4e17788f74f075dd9aab7d0d4427968f \\',
        '    --marketplace-max-dph 0.5 --marketplace-reliability 98 -m qwen2.5:32b -q "Why is the shop down?" --yes',
        '# on an existing llmserver, without warm-up',
        'benchdesk run-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b -q "Which pods are unhealthy?" --no-llmserver-warmup',
      ),
    )
    .action(async (o) => {
      const target = backendFields(o, 'benchmark an existing llmserver or rent one');
      const request: BenchmarkRequestInput = { ...target, question: o.question, model: o.model, agent: o.agent, ...clusterOf(o) };
      const code = await runJob(o, { kind: 'benchmark', request }, { target, model: o.model });
      setExit(code);
    });
}
