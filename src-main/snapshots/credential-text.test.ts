import { describe, expect, it } from 'vitest';
import { maskCredentialText } from './credential-text';

const SECRET = 'p4ssw0rd-do-not-keep';

describe('maskCredentialText', () => {
  it('masks what a credential looks like in free text', () => {
    const cases: [string, string][] = [
      [`postgres://app:${SECRET}@db:5432/shop`, 'postgres://app:***@db:5432/shop'],
      [`https://${SECRET}@github.com/acme/repo`, 'https://***@github.com/acme/repo'],
      [`password=${SECRET} user=app`, 'password=*** user=app'],
      [`DB_PASSWORD: "${SECRET}"`, 'DB_PASSWORD: "***'.concat('"')],
      [`api_key=${SECRET}&x=1`, 'api_key=***&x=1'],
      [`client-secret: ${SECRET}`, 'client-secret: ***'],
      [`Authorization: Bearer ${SECRET}`, 'Authorization: Bearer ***'],
      ['key AKIAABCDEFGHIJKLMNOP here', 'key *** here'],
      ['ghp_0123456789abcdefghijABCDEFGHIJ012345', '***'],
      ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop', 'jwt ***'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', '-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----'],
    ];
    for (const [input, output] of cases) expect(maskCredentialText(input), input).toBe(output);
  });

  it('leaves ordinary text alone', () => {
    for (const text of [
      'FATAL: password authentication failed for user "app"',
      'MountVolume.SetUp failed for volume "db-token" : secret "db-token" not found',
      'Back-off pulling image "ghcr.io/acme/api:9.9.9"',
      'ssh://git@github.com/acme/repo.git',
      'prompt_tokens: 512',
      'nginx:1.27@sha256:0123abcd',
    ]) {
      expect(maskCredentialText(text), text).toBe(text);
    }
  });

  it('stays linear on hostile text: long runs of the patterns’ own characters', () => {
    // Each would take minutes with a pattern that backtracks (nested or unbounded quantifiers before a literal).
    const hostile = ['token'.repeat(60_000), `password${'='.repeat(200_000)}`, `https://${'a:'.repeat(100_000)}`, `eyJ${'a'.repeat(200_000)}.`, `-----BEGIN PRIVATE KEY-----${'x'.repeat(200_000)}`];
    for (const text of hostile) {
      const started = process.hrtime.bigint();
      maskCredentialText(text);
      // A bound far above a linear pass (a few ms) and far below a quadratic one: not a timing figure, a guard against a freeze.
      expect(Number(process.hrtime.bigint() - started) / 1e6, text.slice(0, 20)).toBeLessThan(2_000);
    }
  });
});
