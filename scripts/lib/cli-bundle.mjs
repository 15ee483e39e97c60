// The `benchdesk` CLI's bundle: split into chunks so that a command loads only what it uses. The
// engine and the server (fastify, pino, conf…: about half of a command's start-up CPU) are imported
// on use (`--local`, `serve`); `benchdesk jobs list` against a running app, `--help` and a usage
// error never load them. `npm run build` and the CLI tests' own bundle (test/cli/cli-harness.ts)
// both build it with these options.

/** @type {import('esbuild').BuildOptions} */
export const CLI_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  packages: 'external',
  splitting: true,
  // Beside cli.js (not in a subfolder): modules find their neighbours (the workers, cli.js) from
  // their own folder.
  chunkNames: 'cli-chunk-[hash]',
};
