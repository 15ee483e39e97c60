import { runServe } from './cli/serve';

// Headless entry (`npm run serve`, dist/main/server.js): the API without a window.
runServe({}).catch((err: unknown) => {
  console.error(`benchdesk: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
