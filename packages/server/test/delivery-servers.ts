/**
 * Real destination servers on loopback for the delivery tests: an SMTP server (smtp-server) that
 * keeps what it receives, an S3-compatible server (s3rver) with one bucket, and an HTTP receiver
 * whose answers a test scripts (fail the first attempts, then accept).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly raw: string;
}

/** An SMTP server that keeps what it accepts; `refuse` sets the replies to the next messages (e.g. 451, 550). */
export async function startSmtp(): Promise<{
  url: string;
  mails: ReceivedMail[];
  refuse(codes: number[]): void;
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  let refusals: number[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refusal = refusals.shift();
        if (refusal !== undefined) {
          callback(Object.assign(new Error(`refused with ${refusal}`), { responseCode: refusal }));
          return;
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((entry) => entry.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refuse: (codes) => {
      refusals = [...codes];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const S3_BUCKET = 'tributary-deliveries';

export async function startS3(): Promise<{ endpoint: string; directory: string; close(): Promise<void> }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: S3_BUCKET }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly answered: number;
}

/** An HTTP receiver that answers `statuses` in turn (the last one from then on). */
export async function startReceiver(statuses: number[] = [200]): Promise<{
  url: string;
  requests: ReceivedRequest[];
  answer(next: number[]): void;
  close(): Promise<void>;
}> {
  const requests: ReceivedRequest[] = [];
  let script = [...statuses];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = script.length > 1 ? (script.shift() ?? 200) : (script[0] ?? 200);
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answered: status,
      });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'try later');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer: (next) => {
      script = [...next];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
