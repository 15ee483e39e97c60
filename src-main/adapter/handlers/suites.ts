import type { SuiteService } from '../../app/suites';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

type SuiteOperation = 'listSuites' | 'getSuite' | 'createSuite' | 'deleteSuite' | 'exportSuite' | 'importSuite' | 'scoreAnswer';

/** The suite operations (design §12), over the suite service. */
export function suiteHandlers(suites: SuiteService): Pick<OperationHandlers, SuiteOperation> {
  return {
    async listSuites(_ctx, input) {
      parseInput('listSuites', input);
      return suites.list();
    },
    async getSuite(_ctx, input) {
      return suites.get(parseInput('getSuite', input).suite_id);
    },
    // The service checks the tenant, then the body, so every transport names the same paths.
    createSuite: (ctx, input) => suites.create(ctx.tenantId, input),
    async deleteSuite(ctx, input) {
      await suites.delete(ctx.tenantId, parseInput('deleteSuite', input).suite_id);
      return undefined;
    },
    async exportSuite(_ctx, input) {
      return suites.export(parseInput('exportSuite', input).suite_id);
    },
    importSuite: (ctx, input) => suites.import(ctx.tenantId, input),
    async scoreAnswer(_ctx, input) {
      return suites.score(parseInput('scoreAnswer', input));
    },
  };
}
