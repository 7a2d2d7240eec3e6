// Pipedream's postgresql app always asks for TLS (its ssl config is never empty), and the local
// PostgreSQL has none. This proxy answers the client's SSLRequest with "S", terminates TLS with a
// throwaway self-signed certificate (tools/test-support/self-signed-cert.mjs) and passes the plain
// protocol on to the local server, so the published components run unchanged against it.
import net from 'node:net';
import tls from 'node:tls';
import { selfSignedCert } from '../../tools/test-support/self-signed-cert.mjs';

const SSL_REQUEST_CODE = 80877103;

export async function startTlsPostgresProxy({ host, port }) {
  const context = tls.createSecureContext(selfSignedCert());
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
