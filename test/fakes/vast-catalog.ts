/**
 * The fake Vast.ai's marketplace: offers in the shape of the official example (reference §A.2),
 * the default catalogue (consumer and datacenter cards, hosts a job cannot use), and templates
 * (reference §A.4) with the offer filters (`extra_filters`) their image needs.
 */

export type FakeOffer = Record<string, unknown> & {
  id: number;
  gpu_name: string;
  num_gpus: number;
  gpu_ram: number;
  dph_base: number;
  storage_cost: number;
};

export type FakeTemplate = Record<string, unknown> & { id: number; hash_id: string; env: string };

export const FAKE_VAST_KEY = 'test-vast-key-0123456789abcdef';
export const OLLAMA_TEMPLATE_HASH = '4e17788f74f075dd9aab7d0d4427968f';
export const NO_PORT_TEMPLATE_HASH = '9c2d0c1b7a3e4f5a8b6c7d8e9f001122';
export const OPEN_TEMPLATE_HASH = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
/** A public template that runs no Ollama (the picker lists it; renting it would never serve a model). */
export const PYTORCH_TEMPLATE_HASH = '7a8b9c0d1e2f30415263748596a7b8c9';
/** Vast's vLLM template (reference §F.4): `MODEL_NAME` and `VLLM_ARGS` env, the OpenAI server on port 8000; found by its name `vLLM`. */
export const VLLM_TEMPLATE_HASH = 'b7e5a1c3d9f24e6a8c0b2d4f6a8c0e11';
/** The account's own template: not on the recommended list, found by its exact name or hash. */
export const PRIVATE_TEMPLATE_HASH = 'c0ffee00c0ffee00c0ffee00c0ffee00';

/** A full offer object in the shape of the official example, with the given overrides. */
export function makeOffer(o: Partial<FakeOffer> & Pick<FakeOffer, 'id' | 'gpu_name' | 'gpu_ram' | 'dph_base'>): FakeOffer {
  const numGpus = o.num_gpus ?? 1;
  const reliability = (o.reliability2 as number | undefined) ?? 0.998;
  const offer: FakeOffer = {
    ask_contract_id: o.id,
    bundle_id: 900000000 + o.id,
    machine_id: 10000 + (o.id % 100000),
    host_id: 50000 + (o.id % 1000),
    num_gpus: numGpus,
    gpu_total_ram: o.gpu_ram * numGpus,
    gpu_frac: 1.0,
    gpu_arch: 'nvidia',
    gpu_mem_bw: 888.8,
    gpu_max_power: 450,
    gpu_max_temp: 83,
    gpu_lanes: 16,
    gpu_display_active: false,
    gpu_ids: Array.from({ length: numGpus }, (_, i) => 1000 + i),
    compute_cap: 890,
    cuda_max_good: 12.4,
    driver_version: '550.54.14',
    driver_vers: 550054014,
    cpu_name: 'AMD EPYC 7B13',
    cpu_arch: 'amd64',
    cpu_cores: 64,
    cpu_cores_effective: 16.0,
    cpu_ghz: 2.99,
    cpu_ram: 65536,
    has_avx: 1,
    disk_space: 2048.5,
    disk_bw: 1234.5,
    disk_name: 'SSD',
    inet_down: 987.6,
    inet_up: 876.5,
    inet_down_cost: 0.00123,
    inet_up_cost: 0.00456,
    internet_down_cost_per_tb: 1.23,
    internet_up_cost_per_tb: 4.56,
    dph_total: o.dph_base,
    dph_total_adj: o.dph_base,
    min_bid: round(o.dph_base * 0.4),
    is_bid: false,
    storage_cost: o.storage_cost ?? 0.15,
    storage_total_cost: 0,
    vram_costperhour: 0.0098,
    discount_rate: 0,
    discounted_hourly: 0,
    discounted_dph_total: o.dph_base,
    credit_discount_max: 0.15,
    search: {},
    instance: {},
    reliability: reliability,
    reliability2: reliability,
    reliability_mult: 0.88,
    expected_reliability: 0.5,
    dlperf: 222.2,
    dlperf_per_dphtotal: 711.5,
    flops_per_dphtotal: 264.4,
    total_flops: 82.6,
    score: 1234.56,
    geolocation: 'Texas, US',
    geolocode: 42424242,
    public_ipaddr: '203.0.113.42',
    static_ip: true,
    direct_port_count: 42,
    pci_gen: 4,
    pcie_bw: 24.5,
    bw_nvlink: 0,
    mobo_name: 'X570',
    os_version: '22.04',
    verification: 'verified',
    vericode: 1,
    rentable: true,
    rented: false,
    external: false,
    hosting_type: 0,
    duration: 1234567.89,
    start_date: 1893450000.5,
    end_date: 1893456000,
    vms_enabled: false,
    resource_type: 'gpu',
    cluster_id: null,
    time_remaining: '',
    time_remaining_isbid: '',
    rn: 1,
    webpage: null,
    logo: '/static/logos/x.png',
    hostname: null,
    ...o,
  };
  return priceOffer(offer, 5);
}

/** A realistic marketplace: consumer and datacenter cards, one tie on price, a few that must be filtered out. */
export function defaultOffers(): FakeOffer[] {
  return [
    makeOffer({ id: 20000001, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.065, reliability2: 0.995, geolocation: 'Ontario, CA' }),
    makeOffer({ id: 20000002, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.16, reliability2: 0.9962, geolocation: 'Texas, US' }),
    makeOffer({ id: 20000003, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.29, reliability2: 0.9981, geolocation: 'Texas, US' }),
    makeOffer({ id: 20000004, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.29, reliability2: 0.9991, geolocation: 'Bavaria, DE' }),
    makeOffer({ id: 20000005, gpu_name: 'RTX 3090', num_gpus: 2, gpu_ram: 24576, dph_base: 0.33, reliability2: 0.993, geolocation: 'Quebec, CA' }),
    makeOffer({ id: 20000006, gpu_name: 'RTX A6000', gpu_ram: 49140, dph_base: 0.47, reliability2: 0.997, geolocation: 'Oregon, US' }),
    makeOffer({ id: 20000007, gpu_name: 'L40S', gpu_ram: 46068, dph_base: 0.79, reliability2: 0.999, geolocation: 'Virginia, US' }),
    makeOffer({ id: 20000008, gpu_name: 'A100 SXM4', gpu_ram: 81920, dph_base: 1.15, reliability2: 0.998, geolocation: 'Utah, US' }),
    makeOffer({ id: 20000009, gpu_name: 'H100 SXM', gpu_ram: 81559, dph_base: 2.05, reliability2: 0.9995, geolocation: 'Iowa, US' }),
    makeOffer({ id: 20000010, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.21, reliability2: 0.9, geolocation: 'Vietnam, VN' }),
    makeOffer({ id: 20000011, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.12, reliability2: 0.985, verification: 'unverified', vericode: 0, geolocation: 'Lagos, NG' }),
    makeOffer({ id: 20000012, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.25, reliability2: 0.999, rented: true, rentable: false, geolocation: 'Texas, US' }),
    ...unusableOffers(),
  ];
}

/**
 * Offers a job cannot use or should not prefer, each the cheapest of its kind (reference §A.10): a host
 * without direct ports (11434/tcp would never map), a $40/TB host (cheap per hour, dear to download a
 * model to), an external one, and one whose disk is too small for most models.
 */
export const NO_DIRECT_PORTS_OFFER = 20000013;
export const DEAR_DOWNLOAD_OFFER = 20000014;
export const EXTERNAL_OFFER = 20000015;
export const SMALL_DISK_OFFER = 20000016;
export function unusableOffers(): FakeOffer[] {
  return [
    makeOffer({ id: NO_DIRECT_PORTS_OFFER, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.05, reliability2: 0.999, direct_port_count: 0, geolocation: 'Nevada, US' }),
    makeOffer({ id: DEAR_DOWNLOAD_OFFER, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.06, reliability2: 0.999, inet_down_cost: 0.04, internet_down_cost_per_tb: 40, geolocation: 'Alaska, US' }),
    makeOffer({ id: EXTERNAL_OFFER, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.1, reliability2: 0.999, external: true, geolocation: 'Oslo, NO' }),
    makeOffer({ id: SMALL_DISK_OFFER, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.11, reliability2: 0.999, disk_space: 16, geolocation: 'Lisbon, PT' }),
  ];
}

export function defaultTemplates(): FakeTemplate[] {
  const base = {
    creator_id: 1,
    created_at: 1767000000.0,
    count_created: 1234,
    default_tag: '0.15.2',
    docker_login_repo: null,
    jup_direct: false,
    ssh_direct: false,
    use_ssh: false,
    recommended: true,
    recommended_disk_space: 8,
    extra_filters: { cuda_max_good: { gte: 12.0 } },
    image: 'vastai/ollama',
    tag: '0.15.2',
    onstart: 'entrypoint.sh',
    runtype: 'args',
  };
  return [
    {
      ...base,
      id: 334548,
      hash_id: OLLAMA_TEMPLATE_HASH,
      name: 'Ollama',
      env: '-p 1111:1111 -p 11434:11434 -e OPEN_BUTTON_PORT=1111 -e OPEN_BUTTON_TOKEN=1 -e OLLAMA_MODEL=llama3.2:1b -e PORTAL_CONFIG="localhost:1111:11111:/:Instance Portal|localhost:11434:21434:/:Ollama API"',
    },
    { ...base, id: 334549, hash_id: NO_PORT_TEMPLATE_HASH, name: 'Ollama (no port mapping)', env: '-e OLLAMA_MODEL=llama3.2:1b' },
    { ...base, id: 334550, hash_id: OPEN_TEMPLATE_HASH, name: 'Ollama (open)', env: '-p 11434:11434 -e AUTH_EXCLUDE=11434 -e ENABLE_HTTPS=false' },
    { ...base, id: 334551, hash_id: PYTORCH_TEMPLATE_HASH, name: 'PyTorch (Vast)', image: 'vastai/pytorch', tag: '2.5.1', default_tag: '2.5.1', count_created: 98765, env: '-p 8080:8080' },
    {
      ...base,
      id: 334553,
      hash_id: VLLM_TEMPLATE_HASH,
      name: 'vLLM',
      image: 'vastai/vllm',
      tag: 'v0.11.0-cuda-12.8',
      default_tag: 'v0.11.0-cuda-12.8',
      count_created: 45678,
      recommended_disk_space: 32,
      env: '-p 1111:1111 -p 8000:8000 -e OPEN_BUTTON_PORT=1111 -e OPEN_BUTTON_TOKEN=1 -e MODEL_NAME=Qwen/Qwen3-8B -e VLLM_ARGS="--max-model-len 8192" -e PORTAL_CONFIG="localhost:1111:11111:/:Instance Portal|localhost:8000:18000:/docs:vLLM API"',
    },
    { ...base, id: 334552, hash_id: PRIVATE_TEMPLATE_HASH, name: 'Ollama (team)', recommended: false, creator_id: 123456, count_created: 3, env: '-p 11434:11434 -e OPEN_BUTTON_TOKEN=1' },
  ];
}

/**
 * A host whose CUDA is too old for the default templates (their `extra_filters` ask for
 * cuda_max_good ≥ 12): the cheapest RTX 3060 of all, which a search that honours the template
 * never returns. Tests that check "fit before rent" add it to the catalogue.
 */
export const OLD_CUDA_OFFER = 20000017;
export function incompatibleOffers(): FakeOffer[] {
  return [makeOffer({ id: OLD_CUDA_OFFER, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.04, reliability2: 0.999, cuda_max_good: 11.8, driver_version: '470.57.02', driver_vers: 470057002, geolocation: 'Ohio, US' })];
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/** dph_total = dph_base + storage at `allocated_storage` GB ($/GB/month ÷ 720 h), as the real API prices it. */
export function priceOffer(offer: FakeOffer, allocatedGb: number): FakeOffer {
  const storageHour = round((offer.storage_cost * allocatedGb) / 720);
  const total = round(offer.dph_base + storageHour);
  const breakdown = { gpuCostPerHour: offer.dph_base, diskHour: storageHour, totalHour: total, discountTotalHour: 0, discountedTotalPerHour: total };
  return { ...offer, storage_total_cost: storageHour, dph_total: total, dph_total_adj: total, discounted_dph_total: total, search: breakdown, instance: breakdown };
}
