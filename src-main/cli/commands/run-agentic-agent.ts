import { Command } from '@commander-js/extra-typings';
import { backendApiFields, connectionOf, examples, clusterOf, submitAndFollow, withAgent, withBackend, withConnection, withConnectionOpen, withJobSubmit } from '../common';
import { UsageError } from '../exit-codes';

/** `run-agentic-agent`: an agent answers a question about a Kubernetes cluster with an LLM. */
export function runAgenticAgentCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-agentic-agent')
    .description('ask an agent a question about a Kubernetes cluster, using a model on an llmserver')
    .requiredOption('-m, --model <name>', 'the model the agent uses');
  return withConnection(withJobSubmit(withBackend(withAgent(cmd))))
    .addHelpText(
      'after',
      examples(
        'benchdesk run-agentic-agent -q "Why is the checkout pod crash-looping?" -m llama3.1:8b \\',
        '    --backend-url http://127.0.0.1:11434 --kubeconfig ~/.kube/config',
        '# on a recorded cluster (benchdesk snapshot list) instead of a live one',
        'benchdesk run-agentic-agent -q "Why is the checkout pod crash-looping?" -m llama3.1:8b \\',
        '    --backend-url http://127.0.0.1:11434 --snapshot shop-3f9a1c',
        '# the built-in agent on a vLLM server (tools through OpenAI tool calls); its key from the environment',
        'BENCHDESK_BACKEND_API_KEY=sk-... benchdesk run-agentic-agent -q "Why is the checkout pod crash-looping?" \\',
        '    -m Qwen/Qwen2.5-7B-Instruct --backend-url http://gpu-box:8000 --backend-api openai',
        '# another agent, JSON for a script',
        'benchdesk run-agentic-agent -q "What is broken in namespace shop?" -m qwen2.5:7b --agent k8sgpt \\',
        '    --backend-url http://127.0.0.1:11434 --json | jq -r .result.answer',
      ),
    )
    .action(async (o) => {
      if (!o.backendUrl) throw new UsageError('run-agentic-agent needs --backend-url <url> (the llmserver the agent uses)');
      const request = {
        question: o.question,
        model: o.model,
        agent: o.agent,
        ...clusterOf(o),
        backend_url: o.backendUrl,
        backend_type: o.backendType,
        ...backendApiFields(o),
        ...(o.llmserverWarmup !== undefined ? { backend_warmup: o.llmserverWarmup } : {}),
      };
      const code = await withConnectionOpen(connectionOf(o), 'run', (conn) =>
        submitAndFollow(conn, { kind: 'agentic-agent', request, ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}) }, {
          json: o.json === true,
          wait: o.wait,
          cancelOnInterrupt: o.cancelOnInterrupt === true,
        }),
      );
      setExit(code);
    });
}
