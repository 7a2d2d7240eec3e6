// Pipedream's postgresql app always asks for TLS (its ssl config is never empty), and the local
// PostgreSQL has none. This proxy answers the client's SSLRequest with "S", terminates TLS with a
// throwaway self-signed certificate (made with the openssl CLI) and passes the plain protocol on to
// the local server, so the published components run unchanged against it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

const SSL_REQUEST_CODE = 80877103;

export async function startTlsPostgresProxy({ host, port }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-compat-tls-'));
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
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ],
    { stdio: 'ignore' },
  );
  const context = tls.createSecureContext({ key: readFileSync(keyFile), cert: readFileSync(certFile) });
  rmSync(dir, { recursive: true, force: true });
  const server = net.createServer((client) => {
    client.once('data', (first) => {
      if (first.length < 8 || first.readInt32BE(4) !== SSL_REQUEST_CODE) {
        client.destroy();
        return;
      }
      client.write('S');
      const secure = new tls.TLSSocket(client, { isServer: true, secureContext: context });
      const upstream = net.connect(port, host);
      secure.pipe(upstream).pipe(secure);
      const close = () => {
        secure.destroy();
        upstream.destroy();
      };
      secure.on('error', close);
      upstream.on('error', close);
      secure.on('close', close);
      upstream.on('close', close);
    });
    client.on('error', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
