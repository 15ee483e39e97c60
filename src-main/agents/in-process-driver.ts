import { DRIVER_ACTIONS, DriverAskParamsSchema, type DriverInfo } from './driver-wire';
import { askHolmes } from './drivers/holmes';
import { askK8sgpt } from './drivers/k8sgpt';
import { AgentError } from './errors';
import { DEFAULT_DRIVER_TIMEOUT_MS, DRIVER_VERSION, type DriverCallOptions, type DriverTransport } from './transport';

/**
 * The bundled holmes and k8sgpt drivers, served in this process instead of a `benchdesk driver
 * <name>` child. Both only wrap an external CLI (they spawn `holmes` / `k8sgpt` themselves), so the
 * extra Node process buys nothing but needs a Node to run it: the packaged desktop app has none,
 * because its Electron binary has the runAsNode fuse off (ELECTRON_RUN_AS_NODE is ignored). The
 * registry uses this transport in the desktop app; the headless server and the CLI keep the
 * child-process drivers, which also exercise the stdio protocol end to end.
 */

export const IN_PROCESS_DRIVER_NAMES = ['holmes', 'k8sgpt'] as const;
export type InProcessDriverName = (typeof IN_PROCESS_DRIVER_NAMES)[number];

export type InProcessDriverOptions = {
  /** Environment of the wrapped CLI (PATH finds it; KUBECONFIG etc. are set per call). */
  env?: NodeJS.ProcessEnv;
  /** Time limit of one call, the same as a child driver's (default 300 s). */
  timeoutMs?: number;
  killGraceMs?: number;
};

export function inProcessDriver(name: InProcessDriverName, options: InProcessDriverOptions = {}): DriverTransport {
  const ask = name === 'holmes' ? askHolmes : askK8sgpt;
  return {
    description: `${name} (in-process driver)`,
    async call(action: string, params: Record<string, unknown>, callOptions: DriverCallOptions = {}): Promise<unknown> {
      if (action === 'info') {
        const info: DriverInfo = { name, version: DRIVER_VERSION, actions: [...DRIVER_ACTIONS] };
        return info;
      }
      if (action !== 'ask') throw new AgentError('invalid_params', `unknown action '${action}'; supported actions: ${DRIVER_ACTIONS.join(', ')}`);
      const parsed = DriverAskParamsSchema.safeParse(params);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AgentError('invalid_params', `invalid ask params (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
      }
      return ask(parsed.data, {
        env: options.env ?? process.env,
        signal: callOptions.signal,
        timeoutMs: callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS,
        killGraceMs: options.killGraceMs,
        onStderrLine: callOptions.onStderr,
      });
    },
  };
}
