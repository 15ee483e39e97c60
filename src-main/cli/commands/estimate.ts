import { Command } from '@commander-js/extra-typings';
import { connectionOf, examples, marketplaceFields, withConnection, withConnectionOpen, withMarketplace } from '../common';
import { EXIT } from '../exit-codes';
import { formatUsd, print, printJson } from '../output';
import { parsePositiveInt } from '../parsers';

/** `estimate`: what renting would cost, from live offers (with a key) or the price range. */
export function estimateCommand(setExit: (code: number) => void) {
  const cmd = new Command('estimate')
    .description('estimate what renting a marketplace GPU for a model will cost')
    .option('-m, --model <name>', 'model to size the GPU for')
    .option('--duration <seconds>', 'how long the machine would run (default 3600)', parsePositiveInt);
  return withConnection(withMarketplace(cmd))
    .addHelpText(
      'after',
      examples(
        'benchdesk estimate --marketplace --marketplace-max-dph 0.6 --marketplace-reliability 98 -m qwen2.5:32b --duration 1800',
        'benchdesk estimate --marketplace --marketplace-min-dph 0.2 --marketplace-max-dph 0.4 --json',
      ),
    )
    .action(async (o) => {
      const m = marketplaceFields(o);
      const request = {
        marketplace: m.marketplace,
        ...(m.min_dph !== undefined ? { min_dph: m.min_dph } : {}),
        ...(m.max_dph !== undefined ? { max_dph: m.max_dph } : {}),
        ...(m.reliability !== undefined ? { reliability: m.reliability } : {}),
        ...(o.model ? { model: o.model } : {}),
        ...(o.duration !== undefined ? { estimated_duration_seconds: o.duration } : {}),
      };
      const e = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.createEstimate(request));
      if (o.json) printJson(e);
      else {
        print(`projected cost   ${formatUsd(e.projected_cost_usd, 2)} for ${e.hours} h (${e.cost_driver}, impact ${e.resource_impact})`);
        print(`range            ${formatUsd(e.cost_range_usd.low, 2)} – ${formatUsd(e.cost_range_usd.expected, 2)} – ${formatUsd(e.cost_range_usd.high, 2)} (low / expected / high)`);
        print(`basis            ${e.basis}, confidence ${Math.round(e.confidence_score * 100)}%`);
        if (e.offers) {
          const c = e.offers.cheapest;
          print(`offers           ${e.offers.count} fit: $${e.offers.min_dph.toFixed(3)} / $${e.offers.median_dph.toFixed(3)} / $${e.offers.max_dph.toFixed(3)} per hour (min / median / max)`);
          print(`cheapest         #${c.id} ${c.num_gpus}× ${c.gpu_name}, ${Math.round(c.gpu_ram / 1024)} GB, $${c.dph_total.toFixed(3)}/h, reliability ${(c.reliability * 100).toFixed(1)}%${c.geolocation ? `, ${c.geolocation}` : ''}`);
          if (c.download_usd != null) print(`download         ${formatUsd(c.download_usd, 2)} for the model on that host ($${c.inet_down_cost ?? '?'}/GB), included above`);
        }
        if (e.nearest_offer) {
          const n = e.nearest_offer;
          print(`nearest offer    #${n.id} ${n.num_gpus}× ${n.gpu_name}, $${n.dph_total.toFixed(3)}/h: raise --marketplace-max-dph to rent it`);
        }
        print(`local energy     ${e.local_energy_kwh} kWh`);
        if (e.warning) print(`warning          ${e.warning}`);
      }
      setExit(EXIT.ok);
    });
}
