// A Vite plugin (vite.config.ts): the gzip size of the initial JS after every build, against the
// design's budget. Plain JavaScript with JSDoc types, so the config imports it by its file name
// (Vite's native config loader, to become the default, refuses an import without an extension).
import { gzipSync } from 'node:zlib';

/** The design's budget for the JS the first screen loads (gzip). */
export const INITIAL_JS_BUDGET_KB = 350;

/**
 * Prints the gzip size of the initial JS (the entry chunk and everything it imports statically;
 * lazy pages are not counted) after every build, and fails the build above the budget.
 * @param {number} [budgetKb]
 * @returns {import('vite').Plugin}
 */
export function initialJsReport(budgetKb = INITIAL_JS_BUDGET_KB) {
  return {
    name: 'benchdesk-initial-js',
    apply: 'build',
    generateBundle(_options, bundle) {
      /** @type {Map<string, { code: string, imports: string[], isEntry: boolean }>} */
      const chunks = new Map();
      for (const [file, out] of Object.entries(bundle)) {
        if (out.type === 'chunk') chunks.set(file, { code: out.code, imports: out.imports, isEntry: out.isEntry });
      }
      /** @type {Set<string>} */
      const initial = new Set();
      /** @param {string} file */
      const visit = (file) => {
        if (initial.has(file)) return;
        const c = chunks.get(file);
        if (!c) return;
        initial.add(file);
        c.imports.forEach(visit);
      };
      for (const [file, c] of chunks) if (c.isEntry) visit(file);
      let raw = 0;
      let gz = 0;
      for (const file of initial) {
        const code = chunks.get(file)?.code ?? '';
        raw += Buffer.byteLength(code);
        gz += gzipSync(code, { level: 9 }).length;
      }
      let lazyGz = 0;
      for (const [file, c] of chunks) if (!initial.has(file)) lazyGz += gzipSync(c.code, { level: 9 }).length;
      /** @param {number} n */
      const kb = (n) => (n / 1024).toFixed(1);
      const line = `initial JS: ${kb(gz)} KB gzip (${kb(raw)} KB raw, ${initial.size} chunk(s)); lazy pages: ${kb(lazyGz)} KB gzip; budget ${budgetKb} KB gzip`;
      console.log(`\n${line}`);
      if (gz > budgetKb * 1024) this.error(`initial JS over budget: ${line}`);
    },
  };
}
