import { toBenchdeskApiError, type BenchdeskApiError } from '../../../shared/client';
import type { ReactNode } from 'react';
import { adviceFor } from '../../components/States';

/** The cluster's address as the server's problem names it ("https://10.0.0.1:6443"), or null. */
export function clusterOf(detail: string): string | null {
  return /https?:\/\/[^\s,()]+/.exec(detail)?.[0]?.replace(/[:.]+$/, '') ?? null;
}

/**
 * What a failed recording (or serving) means, in cluster terms: "the cluster at https://… did
 * not answer", not "a backend" or a raw code. Pure, so it is unit-tested.
 */
export function clusterProblemOf(error: BenchdeskApiError): { title: string; advice: ReactNode } {
  const detail = error.problem.detail;
  const server = clusterOf(detail);
  const cluster = server ? `The cluster at ${server}` : 'The cluster';
  if (error.code === 'upstream_unreachable') {
    const slow = /did not answer|timed? ?out|within/i.test(detail);
    return {
      title: `${cluster} did not answer${slow ? ' in time' : ''}`,
      advice: 'Check that the cluster is up and that its API server is reachable from the machine benchdesk runs on (VPN, port-forward, firewall), then record again.',
    };
  }
  if (error.code === 'upstream_error') {
    if (/401|credentials/i.test(detail)) return { title: `${cluster} refused the kubeconfig’s credentials`, advice: 'The token or certificate in the kubeconfig is wrong or expired: refresh it (your cloud CLI’s get-credentials, or kubectl config), then record again.' };
    if (/403|may not read/i.test(detail)) return { title: `The kubeconfig may not read everything on ${server ?? 'the cluster'}`, advice: 'Its user lacks a list permission (see the detail). Record with a user that may list and read pod logs, or record only some namespaces.' };
    return { title: `${cluster} answered with an error`, advice: 'See the detail; record again once the cluster answers normally.' };
  }
  if (error.code === 'snapshot_in_use') return { title: 'The snapshot is in use', advice: 'It can be deleted once nothing uses it: stop serving it, let its jobs end, or delete the suites that run on it.' };
  return adviceFor(error);
}

/** A failed snapshot operation, in cluster terms, with the server's detail. */
export function ClusterProblem({ error, testId }: { error: unknown; testId?: string }) {
  const err = toBenchdeskApiError(error);
  const { title, advice } = clusterProblemOf(err);
  return (
    <div className="problem" role="alert" data-testid={testId ?? 'cluster-problem'} data-code={err.code}>
      <p className="problem-title">{title}</p>
      <p>{advice}</p>
      <p className="problem-detail">{err.problem.detail}</p>
    </div>
  );
}
