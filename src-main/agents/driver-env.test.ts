import { describe, expect, it } from 'vitest';
import { agentEnvironment } from './driver-env';

const SERVER_ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C.UTF-8',
  HTTPS_PROXY: 'http://proxy:3128',
  no_proxy: 'localhost',
  KUBECONFIG: '/home/me/.kube/config',
  VAST_API_KEY: 'vast-secret',
  SERVICE_API_TOKENS: 'default:tok',
  BENCHDESK_TOKEN: 'tok',
  BENCHDESK_DATA_DIR: '/data',
  MARKETPLACE_API_URL: 'http://fake',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  OPENAI_API_KEY: 'sk-openai',
  HOLMES_CONFIG_PATH: '/etc/holmes.yaml',
  OVERRIDE_MAX_CONTENT_SIZE: '32768',
  K8SGPT_CONFIG: '/etc/k8sgpt.yaml',
};

describe('agentEnvironment', () => {
  it('passes the common allow-list and drops everything else, our secrets first', () => {
    const env = agentEnvironment(SERVER_ENV, 'user');
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LANG: 'en_US.UTF-8', LC_ALL: 'C.UTF-8', HTTPS_PROXY: 'http://proxy:3128', no_proxy: 'localhost', KUBECONFIG: '/home/me/.kube/config' });
  });

  it('adds what each bundled driver documents', () => {
    expect(agentEnvironment(SERVER_ENV, 'holmes')).toMatchObject({ HOLMES_CONFIG_PATH: '/etc/holmes.yaml', OVERRIDE_MAX_CONTENT_SIZE: '32768' });
    expect(agentEnvironment(SERVER_ENV, 'holmes')).not.toHaveProperty('K8SGPT_CONFIG');
    expect(agentEnvironment(SERVER_ENV, 'k8sgpt')).toMatchObject({ K8SGPT_CONFIG: '/etc/k8sgpt.yaml' });
    expect(agentEnvironment(SERVER_ENV, 'k8sgpt')).not.toHaveProperty('HOLMES_CONFIG_PATH');
  });

  it('passes the names BENCHDESK_AGENT_ENV lists (prefixes with *), never ours even when listed', () => {
    const env = agentEnvironment({ ...SERVER_ENV, BENCHDESK_AGENT_ENV: 'OPENAI_API_KEY, AWS_* VAST_API_KEY,SERVICE_API_TOKENS BENCHDESK_*' }, 'user');
    expect(env).toMatchObject({ OPENAI_API_KEY: 'sk-openai', AWS_SECRET_ACCESS_KEY: 'aws-secret' });
    for (const name of ['VAST_API_KEY', 'SERVICE_API_TOKENS', 'BENCHDESK_TOKEN', 'BENCHDESK_DATA_DIR', 'MARKETPLACE_API_URL']) expect(env).not.toHaveProperty(name);
  });

  it('values we set win and may be ours (the time limit of a bundled driver)', () => {
    const env = agentEnvironment(SERVER_ENV, 'builtin', { BENCHDESK_AGENT_TIMEOUT_MS: '1000', KUBECONFIG: '/tmp/k' });
    expect(env).toMatchObject({ BENCHDESK_AGENT_TIMEOUT_MS: '1000', KUBECONFIG: '/tmp/k' });
  });
});
