import { Cluster, appNamespace, baseCluster, daemonSet, deployment, event, job, jobPod, linesAfter, node, pendingReplica, replica, startedAt } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** The only GPU node is tainted nvidia.com/gpu; the new GPU workload does not tolerate it. */

const GPU_NODE = 'ip-10-0-4-8.eu-west-1.compute.internal';
const MESSAGE = '0/4 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.';
const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-unschedulable-gpu-taint',
    name: 'Starter: llm-server does not tolerate the GPU node taint',
    description: 'The GPU node (g5.2xlarge, one nvidia.com/gpu) is tainted nvidia.com/gpu=present:NoSchedule. llm-server asks for one GPU and has no matching toleration: the GPU node refuses it and the other nodes have no GPU. A smoke-test job with the toleration ran on it two days ago.',
    recordedAt: '2026-11-25T15:30:00Z',
  });
  const { nodes } = baseCluster(c);
  const gpu = node(c, { ip: '10.0.4.8', zone: 'eu-west-1a', instanceType: 'g5.2xlarge', nodegroup: 'gpu-2026-11', created: c.ago('3d'), cpu: '8', memoryKi: 32_068_784, labels: { 'nvidia.com/gpu.present': 'true' }, extraCapacity: { 'nvidia.com/gpu': '1' }, taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] });
  appNamespace(c, 'nvidia-device-plugin', '3d');
  appNamespace(c, 'inference', '3d');
  const plugin = daemonSet(c, { namespace: 'nvidia-device-plugin', name: 'nvidia-device-plugin', created: c.ago('3d'), desired: 1, labels: { app: 'nvidia-device-plugin' }, tolerations: [GPU_TOLERATION], extras: { nodeSelector: { 'nvidia.com/gpu.present': 'true' } }, containers: [{ name: 'nvidia-device-plugin-ctr', image: 'nvcr.io/nvidia/k8s-device-plugin:v0.17.0' }] });
  const dp = replica(c, plugin, { node: gpu, created: c.ago('2d23h58m'), seed: 'gpu' });
  c.log('nvidia-device-plugin', dp.metadata.name, 'nvidia-device-plugin-ctr', { current: linesAfter('klog', startedAt(dp), [[420, 'I main.go:279] Starting NVML'], [910, 'I server.go:215] Registered device plugin for \'nvidia.com/gpu\' with Kubelet']]).map((l) => `I${l}`) });
  const smoke = job(c, { namespace: 'inference', name: 'gpu-smoke-test', created: c.ago('2d22h'), end: { complete: '2d21h58m' }, extras: { tolerations: [GPU_TOLERATION] }, containers: [{ name: 'nvidia-smi', image: 'nvcr.io/nvidia/cuda:12.6.2-base-ubuntu24.04', command: ['nvidia-smi'], resources: { limits: { 'nvidia.com/gpu': '1' } } }] });
  const start = c.clock.ago('2d22h') + 4000;
  const sp = jobPod(c, smoke, { node: gpu, created: c.ago('2d22h'), states: { 'nvidia-smi': { state: { terminated: { startedAt: new Date(start).toISOString().replace('.000Z', 'Z'), finishedAt: c.ago('2d21h58m'), exitCode: 0, reason: 'Completed' } } } } });
  c.log('inference', sp.metadata.name, 'nvidia-smi', { current: ['+-----------------------------------------------------------------------------------------+', '| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |', '|   0  NVIDIA A10G                    On  |   00000000:00:1E.0 Off |                    0 |', '+-----------------------------------------------------------------------------------------+'] });
  const d = deployment(c, {
    namespace: 'inference',
    name: 'llm-server',
    replicas: 1,
    created: c.ago('22m'),
    containers: [{ name: 'vllm', image: 'vllm/vllm-openai:v0.11.0', args: ['--model', 'Qwen/Qwen2.5-7B-Instruct', '--max-model-len', '8192'], ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }], resources: { requests: { cpu: '4', memory: '16Gi', 'nvidia.com/gpu': '1' }, limits: { memory: '24Gi', 'nvidia.com/gpu': '1' } } }],
  });
  pendingReplica(c, d.current, { created: '22m', message: MESSAGE });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '22m', component: 'deployment-controller' });
  void nodes;
  return c;
}

const built = build();
const POD = podOf(built, 'inference', 'llm-server-');
const TAINT = String.raw`taint\w*|NoSchedule|nvidia\.com/gpu[=:] ?present|repel\w*`;

export const unschedulableGpuTaint: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'unschedulable-gpu-taint',
    title: 'Pending GPU workload: the GPU node taint is not tolerated',
    question: 'We added a GPU node three days ago and deployed llm-server in the inference namespace 20 minutes ago, but it has not started. The GPU test job worked. What is missing?',
    expected: [
      { finding: 'the llm-server pod is Pending: it cannot be scheduled', any_of: [C.scheduling, String.raw`\bpending\b`] },
      {
        finding: 'the GPU node has the taint nvidia.com/gpu=present:NoSchedule and llm-server has no toleration for it (the smoke test had one)',
        any_of: [
          String.raw`untolerated taint|taint\w*.{0,40}(not tolerated|untolerated)`,
          String.raw`\bno (matching |such |gpu )?toleration`,
          String.raw`(without|lacks?|lacking|missing|misses) (a |the |any |its |matching )?(gpu )?toleration`,
          String.raw`(does ?n[o']t|do ?n[o']t|never|not|cannot|can't) (tolerate|declare\w*|accept)\w*`,
          String.raw`(add|needs?|requires?|give it) (a |the |an? |matching )?(gpu |nvidia\.com/gpu )?toleration`,
          String.raw`\brepel\w*|taint\w*.{0,40}(keeps? (\w+ )?(out|off|away)|refus\w*|block\w*|reject\w*)`,
        ],
        all_of: [[TAINT]],
      },
    ],
    must_not: [
      WRONG.insufficientCpu,
      WRONG.insufficientMemory,
      String.raw`(not enough|no (free|spare|available)|too few) gpus?|gpus? (is |are )?(already )?(in use|taken|busy|allocated|occupied)`,
      String.raw`device[- ]plugin\b.{0,40}(down|broken|missing|not running|crash\w*|fail\w*|isn't running)`,
      WRONG.pvc,
      WRONG.imagePull,
    ],
    tags: ['unschedulable-resources', 'medium', 'scheduling', 'gpu', 'taints'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'unschedulable-resources', objects: ['deployment/inference/llm-server', `node/${GPU_NODE}`] }] },
    fixtures: [
      { label: 'correct', note: 'taint and toleration, with the scheduler message', answer: `${POD} is Pending: "0/4 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 3 Insufficient nvidia.com/gpu". Only ${GPU_NODE} has a GPU, and it is tainted nvidia.com/gpu=present:NoSchedule; llm-server has no toleration for that taint (gpu-smoke-test had one, which is why it ran). Add the toleration nvidia.com/gpu Exists NoSchedule.` },
      { label: 'correct', note: 'other words', answer: 'The GPU worker repels ordinary pods with a taint, and the new deployment never declared that it accepts it, so the scheduler keeps it waiting: the three other nodes have no GPU at all. Add the matching toleration to llm-server.' },
      { label: 'correct', note: 'with a verdict', answer: `llm-server cannot be scheduled: it does not tolerate the nvidia.com/gpu taint of the only GPU node.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'unschedulable-resources', objects: ['deployment/inference/llm-server'] }], fix: 'add toleration nvidia.com/gpu:NoSchedule' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: no free GPU', answer: 'The pod is Pending because there are not enough GPUs available: the single nvidia.com/gpu is in use; the taint is tolerated already.' },
      { label: 'wrong', note: 'wrong component', answer: 'The NVIDIA device plugin is not running on the GPU node, so nvidia.com/gpu is not advertised; restart the device plugin.' },
      { label: 'wrong', note: 'negation', answer: 'The taint is not the issue. llm-server is pending on insufficient memory: it requests 16Gi.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                          READY   STATUS    RESTARTS   AGE\n${POD}   0/1     Pending   0          22m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'inference' } }, { tool: 'get_node_conditions' }],
    facts: [new RegExp(`inference/${POD}: phase Pending; unschedulable: Unschedulable \\(0/4 nodes are available: 1 node\\(s\\) had untolerated taint \\{nvidia\\.com/gpu: present\\}, 3 Insufficient nvidia\\.com/gpu`), /ip-10-0-4-8\.eu-west-1\.compute\.internal: taints: nvidia\.com\/gpu=present:NoSchedule/],
    objects: [{ path: '/apis/batch/v1/namespaces/inference/jobs/gpu-smoke-test', facts: [/"tolerations":\[\{"key":"nvidia\.com\/gpu","operator":"Exists","effect":"NoSchedule"\}\]/] }],
  },
};
