/**
 * The bad-input corpus (fixtures/bad-inputs/*.json, described in docs/fuzzing.md): malformed
 * component sources, bad props, bad REST bodies, weird headers and paths, huge and deep JSON,
 * prototype keys and Unicode oddities. Each case is sent to a real server on loopback and must be
 * refused with exactly its status and registry code, in the error shape, with every row of the
 * database as it was before.
 */
import { ERROR_CODES } from '@tributary/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFuzzServer } from '../../../tools/fuzz/fuzz-server.mjs';
import { fingerprint, send } from '../../../tools/fuzz/rest-target.mjs';
import { FIXTURES, REPO } from './server-harness.js';

const CORPUS = path.join(REPO, 'fixtures/bad-inputs');

interface Generate {
  readonly deepArray?: { field: string; depth: number };
  readonly deepObject?: { field: string; depth: number; base?: Record<string, unknown> };
  readonly longString?: { field: string; length: number; base?: Record<string, unknown> };
  readonly manyKeys?: { field: string; count: number; base?: Record<string, unknown> };
  readonly bigArray?: { length: number };
}

interface BadInput {
  readonly name: string;
  readonly method?: string;
  readonly path?: string;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly rawBodyHex?: string;
  readonly contentType?: string;
  /** Absent: the API key; null: no Authorization header; a string: that header. */
  readonly auth?: string | null;
  readonly generate?: Generate;
  /** Sent on a socket exactly as written. */
  readonly raw?: string;
  readonly status: number;
  readonly code: string;
}

const files = readdirSync(CORPUS)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({
    name,
    ...(JSON.parse(readFileSync(path.join(CORPUS, name), 'utf8')) as { description: string; cases: BadInput[] }),
  }));

let server: Awaited<ReturnType<typeof startFuzzServer>>;

beforeAll(async () => {
  server = await startFuzzServer();
});

afterAll(async () => {
  await server?.close();
});

/** `{source}` and the other seeded names, in a path or any string of a body. */
function fill(text: string): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = (server.ids as Record<string, string | null>)[name];
    return typeof value === 'string' ? value : whole;
  });
}

/** The body value: placeholders filled, `@fixture:<file>` replaced by that fixture's text. */
function expand(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.startsWith('@fixture:')) return readFileSync(path.join(FIXTURES, value.slice(9)), 'utf8');
    return fill(value);
  }
  if (Array.isArray(value)) return value.map(expand);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => [key, expand(item)] as const);
    const out = Object.fromEntries(entries.filter(([key]) => key !== '@append')) as Record<string, unknown>;
    const append = entries.find(([key]) => key === '@append')?.[1];
    if (typeof append === 'string') out['component_code'] = `${String(out['component_code'])}${append}`;
    return out;
  }
  return value;
}

/** The JSON text of a generated body (deep nesting is written as text: JSON.stringify would overflow). */
function generated(spec: Generate): string {
  if (spec.deepArray) {
    const { field, depth } = spec.deepArray;
    return `{${JSON.stringify(field)}:${'['.repeat(depth)}1${']'.repeat(depth)}}`;
  }
  if (spec.deepObject) {
    const { field, depth, base } = spec.deepObject;
    const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const head = JSON.stringify(expand(base ?? {})).slice(0, -1);
    return `${head}${head.length > 1 ? ',' : ''}${JSON.stringify(field)}:${nested}}`;
  }
  return JSON.stringify(generatedValue(spec));
}

function generatedValue(spec: Generate): unknown {
  if (spec.longString) {
    return {
      ...(expand(spec.longString.base ?? {}) as object),
      [spec.longString.field]: 'x'.repeat(spec.longString.length),
    };
  }
  if (spec.manyKeys) {
    const many = Object.fromEntries(Array.from({ length: spec.manyKeys.count }, (_, i) => [`k${i}`, i]));
    return { ...(expand(spec.manyKeys.base ?? {}) as object), [spec.manyKeys.field]: many };
  }
  if (spec.bigArray) return Array.from({ length: spec.bigArray.length }, (_, i) => i);
  throw new Error(`unknown generator ${JSON.stringify(spec)}`);
}

/** Writes `raw` on a fresh connection; resolves with status and body of the answer. */
function rawExchange(raw: string): Promise<{ status: number; contentType: string; text: string }> {
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = (): void => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = answer.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1] ?? '',
        text: rest.join('\r\n\r\n'),
      });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', done);
    socket.on('close', done);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    });
    socket.write(raw);
  });
}

async function exchange(input: BadInput): Promise<{ status: number; contentType: string; text: string }> {
  if (input.raw !== undefined) return rawExchange(input.raw);
  const headers: Record<string, string> = {};
  if (input.auth === undefined) headers['authorization'] = `Bearer ${server.key}`;
  else if (input.auth !== null) headers['authorization'] = fill(input.auth);
  let body: string | Buffer | null = null;
  if (input.rawBodyHex !== undefined) body = Buffer.from(input.rawBodyHex, 'hex');
  else if (input.rawBody !== undefined) body = fill(input.rawBody);
  else if (input.generate) body = generated(input.generate);
  else if ('body' in input) body = JSON.stringify(expand(input.body));
  const contentType = body === null ? null : (input.contentType ?? 'application/json');
  return send(server.base, {
    method: input.method ?? 'GET',
    path: fill(input.path ?? '/'),
    headers,
    body: body as string | null,
    contentType,
  });
}

describe('the bad-input corpus', () => {
  it('holds at least 150 cases, each naming a registered code with its status', () => {
    const all = files.flatMap((file) => file.cases);
    expect(all.length).toBeGreaterThanOrEqual(150);
    for (const input of all) {
      expect(Object.hasOwn(ERROR_CODES, input.code), input.name).toBe(true);
      expect(ERROR_CODES[input.code as keyof typeof ERROR_CODES].status, input.name).toBe(input.status);
    }
  });

  for (const file of files) {
    describe(`${file.name}: ${file.description}`, () => {
      for (const input of file.cases) {
        it(`${input.name} → ${input.status} ${input.code}`, async () => {
          const before = fingerprint(server.db);
          const answer = await exchange(input);
          expect(answer.status, answer.text.slice(0, 300)).toBe(input.status);
          expect(answer.contentType).toMatch(/^application\/json/);
          const body = JSON.parse(answer.text) as { error: { code: string; message: string } };
          expect(Object.keys(body)).toEqual(['error']);
          expect(body.error.code, body.error.message).toBe(input.code);
          expect(body.error.message.length).toBeGreaterThan(5);
          expect(fingerprint(server.db), 'a refused request changed stored state').toBe(before);
        });
      }
    });
  }
});
