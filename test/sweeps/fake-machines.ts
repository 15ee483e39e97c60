import type { CatalogEntry } from '../../shared';
import type { MarketplaceOffer } from '../../src-main/marketplace/vast-wire';
import { machineUsd } from '../../src-main/lease/cost';
import { resolveCatalogModel } from '../../src-main/marketplace/catalog';
import type { SweepMachines } from '../../src-main/sweeps/ports';

/**
 * In-test machines for sweeps where the marketplace is not the subject (the contract over three
 * transports): offers of a few GPUs, renting and releasing recorded, nothing on the network.
 */
export function inTestMachines(offers: readonly { gpu: string; ramMb: number; dph: number }[] = [
  { gpu: 'RTX 3090', ramMb: 24_576, dph: 0.2 },
  { gpu: 'A100', ramMb: 81_920, dph: 1.2 },
]) {
  const rented: number[] = [];
  const released: number[] = [];
  const costs = new Map<string, { dph: number; from: number; to: number | null }>();
  const cost = (machineId: string): number | null => {
    const c = costs.get(machineId);
    return c ? machineUsd(c.dph, c.from, c.to ?? Date.now()) : null;
  };
  let next = 5000;
  const list = offers.map(
    (o, i) => ({ id: 9000 + i, gpu_name: o.gpu, gpu_ram: o.ramMb, num_gpus: 1, dph_total: o.dph, reliability2: 0.999, direct_port_count: 2, disk_space: 500, rentable: true }) as MarketplaceOffer,
  );
  const machines: SweepMachines = {
    ready: () => true,
    catalogEntry: (m): CatalogEntry | undefined => resolveCatalogModel(m) ?? undefined,
    offers: async (gpu) => list.filter((o) => o.gpu_name === gpu),
    async rent(spec, hooks) {
      const offer = list.find((o) => o.gpu_name === spec.gpu && o.gpu_ram >= spec.sizing.vram_mb);
      if (!offer) throw new Error(`no ${spec.gpu} offer holds ${spec.sizing.vram_mb} MB`);
      const instanceId = next++;
      rented.push(instanceId);
      const rentedAt = new Date().toISOString();
      await hooks.onRented({ instanceId, dphTotal: offer.dph_total, rentedAt });
      costs.set(spec.machineId, { dph: offer.dph_total, from: Date.now(), to: null });
      return { machineId: spec.machineId, instanceId, dphTotal: offer.dph_total, rentedAt, offerId: offer.id, numGpus: 1, gpuRamMb: offer.gpu_ram, backendUrl: `http://127.0.0.1:9/${instanceId}` };
    },
    prepare: async (_m, model) => ({ model, downloadGb: 0, downloadUsd: null }),
    async release(machineId, instanceId) {
      if (instanceId !== undefined) released.push(instanceId);
      const c = costs.get(machineId);
      if (c) c.to ??= Date.now();
      return { released: true, verified: true, message: `instance ${instanceId} destroyed`, costUsd: cost(machineId) ?? 0 };
    },
    cost,
  };
  return { machines, rented, released };
}
