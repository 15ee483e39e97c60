import { z } from 'zod';

// Imported first by the preload: zod's JIT probes `new Function`, which the window's CSP reports
// as a violation; jitless must be set before shared/ builds its schemas.
z.config({ jitless: true });
