import http from 'node:http';
import tls from 'node:tls';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressChecker, DEFAULT_EGRESS, detectIsolation, egressFromEnv, type Sandbox } from '@tributary/sandbox';
import { selfSignedCert } from '../../../tools/test-support/self-signed-cert.mjs';
import { invoke, open, testSandbox } from './sandbox-harness.js';

type Probe = Record<string, { fetch: string; http: string; tcp: string }>;

const METADATA = 'http://169.254.169.254/latest/meta-data/';
const PRIVATE = 'http://10.20.30.40/';
const bwrap = detectIsolation().bwrapPath !== null;

let server: http.Server;
let hits = 0;
let loopback: string;
let mapped: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    hits += 1;
    response.end('hello from the test server\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  loopback = `http://127.0.0.1:${port}/`;
  mapped = `http://[::ffff:127.0.0.1]:${port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function probe(sandbox: Sandbox, urls: string[]): Promise<Probe> {
  const handle = await open(sandbox, 'hostile/egress-probe.mjs');
  const result = await invoke(handle, { configured: { urls }, timeoutMs: 30_000 });
  expect(result.error).toBeNull();
  return result.returnValue as Probe;
}

function expectRefused(outcome: Probe[string] | undefined): void {
  // undici reports the refused tunnel as an aborted request (its wording varies by version).
  expect(outcome?.fetch).toMatch(/^error (Proxy response \(403\)|Request was cancelled)/);
  expect(outcome?.http).toMatch(/^403 tributary egress policy: .* is not a public address/);
  // Raw TCP is tunnelled through the same proxy, and refused the same way.
  expect(outcome?.tcp).toBe('error ECONNREFUSED');
}

describe.runIf(bwrap)('egress policy (bubblewrap network namespace + host proxy)', () => {
  it('refuses loopback, cloud metadata, private and IPv4-mapped loopback addresses by default', async () => {
    const refusals: string[] = [];
    const { sandbox, dispose } = testSandbox({
      egress: DEFAULT_EGRESS,
      onEgressRefused: (target) => refusals.push(target),
    });
    try {
      hits = 0;
      const result = await probe(sandbox, [loopback, METADATA, PRIVATE, mapped]);
      for (const url of [loopback, METADATA, PRIVATE, mapped]) expectRefused(result[url]);
      expect(hits).toBe(0);
      expect(refusals).toContain('169.254.169.254:80');
      expect(refusals).toContain('10.20.30.40:80');
    } finally {
      await dispose();
    }
  });

  it('reaches an address the operator allows, through fetch, the http module and raw TCP', async () => {
    const { sandbox, dispose } = testSandbox({ egress: { mode: 'policy', allow: ['127.0.0.1/32'] } });
    try {
      hits = 0;
      const result = await probe(sandbox, [loopback, mapped, METADATA]);
      for (const url of [loopback, mapped]) {
        expect(result[url]?.fetch).toBe('200 hello from the test server');
        expect(result[url]?.http).toBe('200 hello from the test server');
        // Tunnelled through the proxy to the host's loopback, which the allow list lets through.
        expect(result[url]?.tcp).toBe('connected');
      }
      expect(hits).toBe(4);
      expectRefused(result[METADATA]);
    } finally {
      await dispose();
    }
  });

  it('tunnels raw TCP through the proxy: data both ways when allowed, ECONNREFUSED with the reason when not', async () => {
    const echo = net.createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as AddressInfo;
    const exchange = async (sandbox: Sandbox): Promise<Record<string, string>> => {
      const handle = await open(sandbox, 'hostile/egress-tcp-echo.mjs');
      const result = await invoke(handle, { configured: { host: '127.0.0.1', port }, timeoutMs: 30_000 });
      expect(result.error).toBeNull();
      return result.returnValue as Record<string, string>;
    };
    try {
      const allowed = testSandbox({ egress: { mode: 'policy', allow: ['127.0.0.1/32'] } });
      try {
        expect(await exchange(allowed.sandbox)).toEqual({ connect: 'echo ping', socket: 'echo ping' });
      } finally {
        await allowed.dispose();
      }
      const refused = testSandbox({ egress: DEFAULT_EGRESS });
      try {
        const result = await exchange(refused.sandbox);
        for (const way of ['connect', 'socket'])
          expect(result[way]).toMatch(/^error ECONNREFUSED connect ECONNREFUSED 127\.0\.0\.1:\d+: .*public/);
      } finally {
        await refused.dispose();
      }
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it('tunnels tls.connect({ host, port }) through the proxy too', async () => {
    const echo = tls.createServer(selfSignedCert(), (socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as AddressInfo;
    const { sandbox, dispose } = testSandbox({ egress: { mode: 'policy', allow: ['127.0.0.1/32'] } });
    try {
      const handle = await open(sandbox, 'hostile/egress-tls-echo.mjs');
      const result = await invoke(handle, { configured: { host: '127.0.0.1', port }, timeoutMs: 30_000 });
      expect(result.error).toBeNull();
      expect(result.returnValue).toMatch(/^echo ping over TLSv1\.[23]$/);
    } finally {
      await dispose();
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it("gives the host's network when the operator opts out (TRIBUTARY_EGRESS=open)", async () => {
    const { sandbox, dispose } = testSandbox({ egress: { mode: 'open', allow: [] } });
    try {
      expect(sandbox.isolation.layers.find((layer) => layer.name === 'egress-policy')?.active).toBe(false);
      const result = await probe(sandbox, [loopback]);
      expect(result[loopback]?.tcp).toBe('connected');
    } finally {
      await dispose();
    }
  });
});

describe('egress policy settings', () => {
  it('fails closed without bubblewrap: components do not start unless the operator opts out', async () => {
    const { sandbox, dispose } = testSandbox({ isolation: { mode: 'process' } });
    try {
      const layer = sandbox.isolation.layers.find((entry) => entry.name === 'egress-policy');
      expect(layer?.active).toBe(false);
      expect(layer?.note).toMatch(/EGRESS_UNENFORCEABLE/);
      await expect(open(sandbox, 'hostile/egress-probe.mjs')).rejects.toMatchObject({ code: 'EGRESS_UNENFORCEABLE' });
    } finally {
      await dispose();
    }
  });

  it('reads TRIBUTARY_EGRESS and TRIBUTARY_EGRESS_ALLOW, refusing malformed values', () => {
    expect(egressFromEnv({})).toEqual({ mode: 'policy', allow: [] });
    expect(egressFromEnv({ TRIBUTARY_EGRESS: 'open' }).mode).toBe('open');
    expect(egressFromEnv({ TRIBUTARY_EGRESS_ALLOW: '10.0.0.0/8, 192.168.1.5 ,fd00::/8' }).allow).toEqual([
      '10.0.0.0/8',
      '192.168.1.5',
      'fd00::/8',
    ]);
    expect(() => egressFromEnv({ TRIBUTARY_EGRESS: 'off' })).toThrow(/"policy" or "open"/);
    expect(() => egressFromEnv({ TRIBUTARY_EGRESS_ALLOW: '10.0.0.0/33' })).toThrow(/not an address or a CIDR/);
  });

  it('allows public addresses and the listed ranges, judging IPv4-mapped IPv6 as IPv4', () => {
    const allowed = addressChecker({ mode: 'policy', allow: ['10.0.0.0/8'] });
    expect(allowed('93.184.216.34')).toBe(true);
    expect(allowed('2606:4700::1111')).toBe(true);
    expect(allowed('10.1.2.3')).toBe(true);
    expect(allowed('::ffff:10.1.2.3')).toBe(true);
    for (const address of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '169.254.169.254',
      '192.168.0.1',
      'fd00::1',
      '0.0.0.0',
    ])
      expect(allowed(address), address).toBe(false);
  });
});
