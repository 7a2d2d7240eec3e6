// A throwaway self-signed certificate for TLS servers on loopback (tests and benchmarks), made with
// the openssl CLI: RSA 2048, CN=localhost, valid one day. Plain JavaScript so the benchmarks
// (bench/compat/tls-postgres-proxy.mjs) import it as they are, without a TypeScript step.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Returns `{ key, cert }` as PEM buffers, ready for tls.createServer or tls.createSecureContext. */
export function selfSignedCert() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-self-signed-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
