import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * The replay's TLS certificate: kubectl never sends a bearer token over plain http://, so the
 * replay speaks HTTPS with a self-signed certificate for 127.0.0.1 and localhost, made once per
 * process (its key lives only in memory) and trusted through the kubeconfig's
 * `certificate-authority-data`. Node makes the key; node-forge writes and signs the certificate
 * (Node can read X.509 certificates but not make them).
 */

export type ReplayCertificate = { key: string; cert: string };

let made: Promise<ReplayCertificate> | undefined;

async function make(): Promise<ReplayCertificate> {
  const { default: forge } = await import('node-forge');
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60_000);
  // A replay lives as long as a job; a process that runs longer than this makes a new one at restart.
  cert.validity.notAfter = new Date(now + 365 * 24 * 3600_000);
  const name = [{ name: 'commonName', value: 'benchdesk snapshot replay' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { key: privateKey, cert: forge.pki.certificateToPem(cert) };
}

/** The process's replay certificate (made on first use). */
export function replayCertificate(): Promise<ReplayCertificate> {
  made ??= make().catch((err: unknown) => {
    made = undefined;
    throw err;
  });
  return made;
}
