/**
 * The kubeconfig of a replay: plain HTTP on loopback, so `insecure-skip-tls-verify: true` (which
 * @kubernetes/client-node requires before it talks http://), and a bearer token the replay checks.
 * Names are quoted YAML strings, so a snapshot name cannot break the file.
 */
export function replayKubeconfig(options: { server: string; token: string; contextName: string; namespace?: string }): string {
  const q = (text: string) => JSON.stringify(text);
  return [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${q(options.contextName)}`,
    'preferences: {}',
    'clusters:',
    `- name: ${q(options.contextName)}`,
    '  cluster:',
    `    server: ${q(options.server)}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${q(options.contextName)}`,
    '  user:',
    `    token: ${q(options.token)}`,
    'contexts:',
    `- name: ${q(options.contextName)}`,
    '  context:',
    `    cluster: ${q(options.contextName)}`,
    `    user: ${q(options.contextName)}`,
    `    namespace: ${q(options.namespace ?? 'default')}`,
    '',
  ].join('\n');
}
