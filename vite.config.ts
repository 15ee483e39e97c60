import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { initialJsReport } from './scripts/vite-initial-js.mjs';

// In `vite dev` the API lives on another port; proxy it so the HTTP bridge stays same-origin.
const devApi = process.env.BENCHDESK_API_URL ?? 'http://127.0.0.1:8080';
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

export default defineConfig({
  root: 'src-renderer',
  // Relative asset URLs: the same build is loaded via file:// in Electron and under /ui/ over http.
  base: './',
  plugins: [react(), initialJsReport()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: false,
    // The design budget is 350 KB gzip of initial JS; warn well before that.
    chunkSizeWarningLimit: 600,
  },
  server: {
    host: '127.0.0.1',
    strictPort: false,
    proxy: Object.fromEntries(
      ['/v1', '/healthz'].map((prefix) => [
        prefix,
        {
          target: devApi,
          changeOrigin: true,
          configure: (proxy) => {
            // The API refuses browser Origins; the dev server page is our own loopback origin.
            proxy.on('proxyReq', (proxyReq, req) => {
              const origin = req.headers.origin;
              if (origin && LOOPBACK_ORIGIN.test(origin)) proxyReq.removeHeader('origin');
            });
          },
        },
      ]),
    ),
  },
});
