import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** The built renderer served at /ui/ (browser mode: dev and e2e), framed by no other page. */

export const UI_PREFIX = '/ui/';
// frame-ancestors and X-Frame-Options: no other page may frame the UI (clickjacking a Cancel or Release button).
const UI_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";
const UI_HEADERS: Readonly<Record<string, string>> = { 'content-security-policy': UI_CSP, 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' };

export async function registerUi(app: FastifyInstance, uiDir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: uiDir,
    prefix: UI_PREFIX,
    setHeaders: (res) => {
      for (const [name, value] of Object.entries(UI_HEADERS)) res.setHeader(name, value);
    },
  });
  app.get('/ui', { schema: { hide: true } }, async (_request, reply) => reply.headers(UI_HEADERS).redirect(UI_PREFIX));
}
