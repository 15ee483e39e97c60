import type { StarterScenario } from '../scenario';
import { configmapMissingKey } from './configmap-missing-key';
import { crashloopBadArgs } from './crashloop-bad-args';
import { crashloopPanicRelease } from './crashloop-panic-release';
import { imagePullPrivateRegistry } from './image-pull-private-registry';
import { imagePullArchMismatch } from './image-pull-arch-mismatch';
import { oomSidecar } from './oom-sidecar';
import { nodeMemoryPressure } from './node-memory-pressure';
import { unschedulableNodeSelector } from './unschedulable-node-selector';
import { unschedulableGpuTaint } from './unschedulable-gpu-taint';

import { pvcZoneConflict } from './pvc-zone-conflict';
import { pvcMultiAttach } from './pvc-multi-attach';
import { livenessProbeTimeout } from './liveness-probe-timeout';
import { deploymentScaledZero } from './deployment-scaled-zero';
import { ingressBackendRenamed } from './ingress-backend-renamed';
import { netpolDefaultDeny } from './netpol-default-deny';
import { netpolEgressDns } from './netpol-egress-dns';
import { dnsCorednsCrashloop } from './dns-coredns-crashloop';
import { dnsUpstreamTimeout } from './dns-upstream-timeout';
import { nodeNotreadyCni } from './node-notready-cni';
import { jobDeadlineExceeded } from './job-deadline-exceeded';
import { jobOomBackoff } from './job-oom-backoff';
import { cronjobSuspended } from './cronjob-suspended';
import { quotaExceeded } from './quota-exceeded';
import { quotaRequiresLimits } from './quota-requires-limits';
/** The scenarios written with the builder, in suite order (after the ten hand-written ones of suite.json). */
export const STARTER_SCENARIOS: readonly StarterScenario[] = [configmapMissingKey, crashloopBadArgs, crashloopPanicRelease, imagePullPrivateRegistry, imagePullArchMismatch, oomSidecar, nodeMemoryPressure, unschedulableNodeSelector, unschedulableGpuTaint, pvcZoneConflict, pvcMultiAttach, livenessProbeTimeout, deploymentScaledZero, ingressBackendRenamed, netpolDefaultDeny, netpolEgressDns, dnsCorednsCrashloop, dnsUpstreamTimeout, nodeNotreadyCni, jobDeadlineExceeded, jobOomBackoff, cronjobSuspended, quotaExceeded, quotaRequiresLimits];
