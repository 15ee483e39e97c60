/**
 * The kubeconfig of a replay: its https:// address on loopback, the replay's self-signed
 * certificate as the cluster's CA (kubectl sends a bearer token only over TLS), and the token the
 * replay checks. Names are quoted YAML strings, so a snapshot name cannot break the file.
 */
export function replayKubeconfig(options: { server: string; token: string; contextName: string; caPem: string; namespace?: string }): string {
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
    `    certificate-authority-data: ${Buffer.from(options.caPem).toString('base64')}`,
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
