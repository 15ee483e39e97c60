import { z } from 'zod';

// Imported first by main.tsx. zod's JIT probes `new Function`, which our CSP (no 'unsafe-eval')
// reports as a violation even though zod catches it; jitless must be set before any schema is built.
z.config({ jitless: true });
