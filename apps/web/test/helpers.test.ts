/**
 * The web app's pure pieces, in Node: Markdown rendering and anchors, the props form's value
 * conversions, timer next-run times, the 24 h chart buckets, log grouping and the API client's
 * error handling (against a real HTTP server on loopback), the code box's height and the workflow
 * file's name.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SavedComponent } from '@tributary/contracts';
import { ApiError, createHttp } from '../src/api/client.js';
import { createApi } from '../src/api/endpoints.js';
import { installText, parseInstallEvent } from '../src/api/install-stream.js';
import { countOf } from '@tributary/contracts/count';
import { errorEchoIndex, withoutErrorEcho } from '@tributary/contracts/error-echo';
import { boxRows } from '../src/components/code-editor.js';
import { workflowFileName } from '../src/workflows/download-file.js';
import { newestSaved } from '../src/components/saved-choices.js';
import { hourlyCounts } from '../src/components/sparkline.js';
import { cronRuns, describeSchedule, nextRun, triggersOf } from '../src/components/trigger.js';
import { docGroups, DOC_PAGES, searchDocs } from '../src/docs/pages.js';
import { docHref, plainText, renderDoc, renderUntrusted, repoPath } from '../src/markdown/render.js';
import { initialValues, normalizeOptions, wireValues, type FormProp } from '../src/props/prop-types.js';
import { groupLogs } from '../src/screens/source-logs.js';
import { describeOutcome, runOutcome } from '../src/screens/source-run-now.js';
import { applyView, paramsFromView, viewFromParams } from '../src/screens/sources-filter.js';
import { REPO } from './harness.js';

describe('docs Markdown', () => {
  it('turns Markdown into the text a reader sees, for search snippets', () => {
    expect(
      plainText(
        'Use **`$emit`** with a [dedupe](props.md#dedupe) key.\n\n| a | b |\n|---|---|\n| `x` | y |\n\n```js\nconst z = 1;\n```\n',
      ),
    ).toBe('Use $emit with a dedupe key. a b x y');
    for (const hit of searchDocs('dedupe', 50)) expect(hit.snippet).not.toMatch(/\*\*|`|\]\(|\|\s*-{3}/);
  });

  it('groups the docs pages: getting started, guides, reference; every page once', () => {
    const groups = docGroups();
    expect(groups.slice(0, 3).map((group) => group.title)).toEqual(['Getting started', 'Guides', 'Reference']);
    const slugs = groups.flatMap((group) => group.pages.map((page) => page.slug));
    expect([...slugs].sort()).toEqual(DOC_PAGES.map((page) => page.slug).sort());
    expect(groups[0]?.pages[0]).toEqual({ slug: 'README', label: 'Overview' });
    expect(groups.find((group) => group.title === 'More')).toBeUndefined();
  });

  it('gives headings GitHub-style ids, numbering repeats', () => {
    const { html, headings } = renderDoc(
      '# Title\n\n## Differences between sources and actions\n\n### `$.service.db`\n\n## Props\n\n## Props\n',
    );
    expect(headings.map((heading) => heading.id)).toEqual([
      'title',
      'differences-between-sources-and-actions',
      'servicedb',
      'props',
      'props-1',
    ]);
    expect(html).toContain('<h2 id="differences-between-sources-and-actions">');
  });

  it('has every in-page anchor of the specification on the reference page', () => {
    const markdown = readFileSync(path.join(REPO, 'docs/component-api.md'), 'utf8');
    const ids = new Set(renderDoc(markdown).headings.map((heading) => heading.id));
    const wanted = [
      'overview',
      'what-is-a-component',
      'quickstarts',
      'differences-between-sources-and-actions',
      'cli',
      'examples',
      'component-api',
      'component-structure',
      'props',
      'user-input-props',
      'interface-props',
      'timer',
      'http',
      'service-props',
      'db',
      'app-props',
      'limits-on-props',
      'methods',
      'hooks',
      'dedupe-strategies',
      'run',
      'emit',
    ];
    expect(wanted.filter((id) => !ids.has(id))).toEqual([]);
  });

  it('rewrites links between pages to in-app routes and keeps others', () => {
    expect(docHref('props.md#options')).toBe('/docs/props#options');
    expect(docHref('./cli.md')).toBe('/docs/cli');
    expect(docHref('component-api.md#emit')).toBe('/docs#emit');
    expect(docHref('https://example.com/x.md')).toBe('https://example.com/x.md');
    expect(docHref('../fixtures/components/f01-ping.mjs')).toBe('../fixtures/components/f01-ping.mjs');
    expect(renderDoc('[opts](props.md#options)').html).toContain('href="/docs/props#options"');
  });

  it('names repository files instead of linking to pages the app does not have', () => {
    // A screenshot beside the docs is named like any other file of the repository, not loaded.
    expect(renderDoc('![The builder](screenshots/workflow-builder.png)').html).toContain(
      '<span class="repo-link" title="In the repository: docs/screenshots/workflow-builder.png">The builder <span class="muted small">(docs/screenshots/workflow-builder.png)</span></span>',
    );
    expect(renderDoc('![A chart](https://example.com/c.png)').html).toContain(
      '<a href="https://example.com/c.png" rel="noreferrer" target="_blank">A chart</a>',
    );
    expect(repoPath('../packages/cli/test/remote-commands.test.ts')).toBe('packages/cli/test/remote-commands.test.ts');
    expect(repoPath('decisions/')).toBe('docs/decisions/');
    expect(repoPath('decisions/0004-cli-exit-codes.md')).toBe('docs/decisions/0004-cli-exit-codes.md');
    expect(repoPath('props.md#options')).toBeNull();
    expect(repoPath('https://example.com/a')).toBeNull();
    expect(repoPath('#emit')).toBeNull();
    const { html } = renderDoc('See [the test](../packages/cli/test/a.test.ts).');
    expect(html).not.toContain('<a ');
    expect(html).toContain('packages/cli/test/a.test.ts');
  });

  it('puts a copy button on code blocks and hides doc-test markers', () => {
    const { html } = renderDoc('<!-- cli-output -->\n\n```js\nconst a = "<b>";\n```\n');
    expect(html).toContain('data-copy-code');
    expect(html).toContain('const a = &quot;&lt;b&gt;&quot;;');
    expect(html).not.toContain('cli-output');
  });

  it("shows a component author's raw HTML as text and drops script links", () => {
    const html = renderUntrusted('Hi <img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://example.com)');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('href="https://example.com"');
  });
});

describe('props form values', () => {
  const props: FormProp[] = [
    { name: 'http', type: '$.interface.http' },
    { name: 'timer', type: '$.interface.timer', default: { intervalSeconds: 900 } },
    { name: 'token', type: 'string', secret: true },
    { name: 'count', type: 'integer', optional: true, default: 2 },
    { name: 'tags', type: 'string[]', optional: true },
    { name: 'note', type: 'alert', content: 'hi' },
  ];

  it('starts from defaults, or from the API echo when editing (timers back to camelCase)', () => {
    expect(initialValues(props)).toEqual({ timer: { intervalSeconds: 900 }, count: 2 });
    expect(
      initialValues(props, {
        timer: { cron: '*/5 * * * *', interval_seconds: null },
        token: '[REDACTED]',
        http: { endpoint_url: 'x' },
      }),
    ).toEqual({
      timer: { cron: '*/5 * * * *' },
      token: '[REDACTED]',
      count: 2,
    });
  });

  it('sends neither interface echoes, untouched secrets nor empty optional values', () => {
    expect(wireValues(props, { timer: { intervalSeconds: 60 }, token: '[REDACTED]', count: '', tags: [] })).toEqual({
      timer: { intervalSeconds: 60 },
    });
    expect(wireValues(props, { token: 'new', count: 3 }, new Set(['token']))).toEqual({ token: 'new' });
  });

  it('accepts plain and labelled static options', () => {
    expect(normalizeOptions(['a', { label: 'Bee', value: 'b' }, 3])).toEqual([
      { label: 'a', value: 'a' },
      { label: 'Bee', value: 'b' },
      { label: '3', value: 3 },
    ]);
  });
});

describe('sources list', () => {
  const base = {
    id: 'dc_1',
    owner_id: 'u',
    component_id: 'sc_1',
    component_key: null,
    active: true,
    name: 's',
    name_slug: 's',
    next_run_at: null,
    created_at: 0,
    updated_at: 1_000,
  };

  it('lists every trigger a source has, and when a timer fires next', () => {
    expect(
      triggersOf({
        ...base,
        configured_props: { http: { endpoint_url: 'http://h/e/x' } },
        endpoint_url: 'http://h/e/x',
      }),
    ).toEqual([{ kind: 'http', url: 'http://h/e/x' }]);
    // Both props: the endpoint is not hidden by the timer.
    expect(
      triggersOf({
        ...base,
        configured_props: {
          http: { endpoint_url: 'http://h/e/x' },
          timer: { cron: '0 * * * *', interval_seconds: null },
        },
        endpoint_url: 'http://h/e/x',
      }).map((trigger) => trigger.kind),
    ).toEqual(['http', 'timer']);
    expect(triggersOf({ ...base, configured_props: {}, endpoint_url: null })).toEqual([]);
    const [timer] = triggersOf({
      ...base,
      configured_props: { timer: { cron: null, interval_seconds: 60 } },
      endpoint_url: null,
    });
    if (timer?.kind !== 'timer') throw new Error('expected a timer');
    expect(describeSchedule(timer)).toBe('every 1 min');
    // The server's next_run_at while it is ahead; then the interval carries it forward: 1,060 s, 1,120 s, …
    expect(nextRun(timer, 1_060, 1_000_000)).toBe(1_060_000);
    expect(nextRun(timer, 1_060, 1_000_000 + 61_000)).toBe(1_120_000);
    expect(nextRun(timer, null, 1_000_000)).toBeNull();
    const cron = { kind: 'timer' as const, prop: 't', cron: '*/15 * * * *', intervalSeconds: null };
    const tenOClock = Date.parse('2026-01-01T10:00:00Z') / 1000;
    expect(new Date(nextRun(cron, tenOClock, Date.parse('2026-01-01T10:07:00Z')) ?? 0).toISOString()).toBe(
      '2026-01-01T10:15:00.000Z',
    );
    expect(cronRuns('0 9 * * 1', new Date('2026-01-01T00:00:00Z'), 2)?.map((date) => date.toISOString())).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-01-12T09:00:00.000Z',
    ]);
    expect(cronRuns('not a cron', new Date(0), 2)).toBeNull();
  });

  it('searches, filters and sorts the sources list, kept in the URL', () => {
    const http = {
      ...base,
      configured_props: { http: { endpoint_url: 'http://h/e/a' } },
      id: 'dc_a',
      name: 'Orders hook',
      endpoint_url: 'http://h/e/a',
      created_at: 3,
      updated_at: 3,
    };
    const timer = {
      ...base,
      id: 'dc_b',
      name: 'nightly',
      active: false,
      configured_props: { timer: { cron: '0 0 * * *', interval_seconds: null } },
      endpoint_url: null,
      created_at: 1,
      updated_at: 9,
    };
    const manual = { ...base, id: 'dc_c', name: 'Backfill', configured_props: {}, endpoint_url: null, created_at: 2 };
    const all = [http, timer, manual];
    const names = (query: string) => applyView(all, viewFromParams(new URLSearchParams(query))).map((s) => s.name);
    expect(names('')).toEqual(['Backfill', 'nightly', 'Orders hook']);
    expect(names('q=hook')).toEqual(['Orders hook']);
    expect(names('q=dc_b')).toEqual(['nightly']);
    expect(names('status=inactive')).toEqual(['nightly']);
    expect(names('trigger=manual')).toEqual(['Backfill']);
    expect(names('trigger=http&status=active')).toEqual(['Orders hook']);
    expect(names('sort=newest')).toEqual(['Orders hook', 'Backfill', 'nightly']);
    expect(names('sort=updated')).toEqual(['Backfill', 'nightly', 'Orders hook']);
    // Unknown values fall back to the defaults; defaults leave the URL plain.
    expect(viewFromParams(new URLSearchParams('sort=bogus&status=x')).sort).toBe('name');
    expect(paramsFromView(viewFromParams(new URLSearchParams('status=all&sort=name'))).toString()).toBe('');
  });

  it('counts events per hour over the last 24 hours', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    const counts = hourlyCounts([now - 1_000, now - 2_000, now - 3_600_000 - 1, now - 86_400_000, now + 5], now);
    expect(counts).toHaveLength(24);
    expect(counts[23]).toBe(2);
    expect(counts[22]).toBe(1);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
  });
});

describe('logs', () => {
  it('groups lines per invocation, newest invocation first, lines in order', () => {
    const groups = groupLogs([
      { id: '4', ts: 40, level: 'error', message: 'boom', invocation_id: 'inv_b' },
      { id: '3', ts: 30, level: 'info', message: 'b1', invocation_id: 'inv_b' },
      { id: '2', ts: 20, level: 'info', message: 'a2', invocation_id: 'inv_a' },
      { id: '1', ts: 10, level: 'info', message: 'a1', invocation_id: 'inv_a' },
    ]);
    expect(groups.map((group) => [group.invocation, group.entries.map((entry) => entry.message)])).toEqual([
      ['inv_b', ['b1', 'boom']],
      ['inv_a', ['a1', 'a2']],
    ]);
  });
});

describe('run now', () => {
  const line = (id: string, invocation: string | null, message: string, level: 'info' | 'error' = 'info') => ({
    id,
    ts: 1,
    level,
    message,
    invocation_id: invocation,
  });

  it("finds the end of the run now started among the source's log lines", () => {
    const logs = [
      line('4', 'inv_other', '--- run finished in 3 ms'),
      line('3', 'inv_1', '--- run failed in 12 ms: COMPONENT_ERROR', 'error'),
      line('2', 'inv_1', 'Error: boom', 'error'),
      line('1', 'inv_1', 'starting'),
    ];
    expect(runOutcome(logs, 'inv_1')).toEqual({ ok: false, durationMs: 12, error: 'COMPONENT_ERROR' });
    expect(runOutcome(logs, 'inv_other')).toEqual({ ok: true, durationMs: 3, error: null });
    // Still running: its lines so far have no end marker.
    expect(runOutcome(logs.slice(2), 'inv_1')).toBeNull();
    expect(describeOutcome({ ok: true, durationMs: 3, error: null })).toBe('Run finished in 3 ms');
  });
});

describe('API client', () => {
  let server: Server;
  let base = '';
  const seen: { url: string; auth: string | undefined; client?: string | string[] | undefined }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({
        url: request.url ?? '',
        auth: request.headers.authorization,
        client: request.headers['x-tributary-client'],
      });
      response.setHeader('content-type', 'application/json');
      if (request.url?.startsWith('/v1/actions/run')) {
        response.statusCode = 400;
        response.end(
          JSON.stringify({
            error: {
              code: 'PROP_OUT_OF_RANGE',
              message: 'prop "repeat" must be <= 3, got 9',
              details: { prop: 'repeat' },
            },
          }),
        );
      } else if (request.url?.startsWith('/v1/users/me')) {
        response.statusCode = 502;
        response.end('<html>bad gateway</html>');
      } else {
        response.end(JSON.stringify({ page_info: {}, data: [] }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends a given key as a Bearer header, the CSRF header always, and encodes the query', async () => {
    const api = createApi(createHttp({ baseUrl: base, getToken: () => 'trb_k' }));
    await api.listAccounts('a b&c');
    expect(seen.at(-1)).toEqual({ url: '/v1/accounts?limit=100&app=a%20b%26c', auth: 'Bearer trb_k', client: 'web' });
  });

  it('turns the error body into an ApiError that names the prop', async () => {
    const api = createApi(createHttp({ baseUrl: base, getToken: () => null }));
    const error = await api
      .runAction({ id: 'sc_1', configured_props: { repeat: 9 } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'PROP_OUT_OF_RANGE', field: 'repeat' });
  });

  it('gives an answer without an error body the HTTP status as its code', async () => {
    const api = createApi(createHttp({ baseUrl: base, getToken: () => null }));
    await expect(api.me()).rejects.toMatchObject({ status: 502, code: 'HTTP_502' });
  });

  it('reports an unreachable server as NETWORK_ERROR', async () => {
    const api = createApi(createHttp({ baseUrl: 'http://127.0.0.1:1', getToken: () => null }));
    await expect(api.me()).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
  });
});

describe('saved components in the picker', () => {
  const saved = (id: string, name: string, version: string | null, extra: Record<string, unknown> = {}) =>
    SavedComponent.parse({
      id,
      key: null,
      name,
      version,
      description: null,
      component_type: 'source',
      code: '',
      code_hash: id,
      configurable_props: [],
      created_at: 1,
      updated_at: 1,
      ...extra,
    });

  it('shows the newest save of each component once, not every save of it', () => {
    const list = [
      saved('sc_3', 'Greeter', '0.2.0'),
      saved('sc_2', 'Greeter', '0.2.0'),
      saved('sc_1', 'Greeter', '0.1.0'),
      saved('sc_0', 'Greeter', '0.2.0'),
      saved('sc_k', 'Keyed', '1.0.0', { key: 'keyed' }),
      saved('sc_a', 'Runner', '1.0.0', { component_type: 'action' }),
    ];
    expect(newestSaved(list, 'source').map((component) => component.id)).toEqual(['sc_3', 'sc_1']);
    expect(newestSaved(list, 'action').map((component) => component.id)).toEqual(['sc_a']);
  });
});

describe('install stream events', () => {
  it('reads each phase the server sends and refuses malformed payloads', () => {
    const installed = parseInstallEvent({ phase: 'installed', packages: ['ms@2.1.3'], duration_ms: 1400 });
    expect(installed).toEqual({ phase: 'installed', packages: ['ms@2.1.3'], duration_ms: 1400 });
    expect(installed && installText(installed)).toBe('Installed ms@2.1.3 in 1.4 s');
    const failed = parseInstallEvent({
      phase: 'failed',
      packages: ['nope@1.0.0'],
      duration_ms: 300,
      code: 'PACKAGE_NOT_FOUND',
      message: 'no such package',
    });
    expect(failed && installText(failed)).toBe('Installing nope@1.0.0 failed after 0.3 s: PACKAGE_NOT_FOUND');
    expect(parseInstallEvent({ phase: 'cached', packages: ['ms@2.1.3'] })).toEqual({
      phase: 'cached',
      packages: ['ms@2.1.3'],
    });
    for (const bad of [
      null,
      'installed',
      { phase: 'installed', packages: ['ms'] },
      { phase: 'installing', packages: [1] },
      { phase: 'failed', packages: [], duration_ms: 1, code: 'X' },
      { phase: 'exploded', packages: [] },
    ])
      expect(parseInstallEvent(bad)).toBeNull();
  });
});

describe('counts in words', () => {
  it('puts the noun in the singular for one only, and takes an irregular plural', () => {
    expect([0, 1, 2, 1000].map((n) => countOf(n, 'run'))).toEqual(['0 runs', '1 run', '2 runs', '1000 runs']);
    expect(countOf(1, 'older one', 'older ones')).toBe('1 older one');
    expect(countOf(3, 'older one', 'older ones')).toBe('3 older ones');
  });
});

describe("a step's error and its log lines", () => {
  const error = { code: 'COMPONENT_ERROR', message: 'boom', stack: 'Error: boom\n    at run (component.mjs:2:9)' };
  it('finds the last error line that only repeats the error: its stack, its message, or code and message', () => {
    const line = (level: string, message: string) => ({ level, message });
    expect(errorEchoIndex([line('info', 'start'), line('error', error.stack)], error)).toBe(1);
    expect(errorEchoIndex([line('error', 'boom'), line('info', 'after')], error)).toBe(0);
    expect(errorEchoIndex([line('error', 'COMPONENT_ERROR: boom\n    at x')], error)).toBe(0);
    // The component's own lines stay, an info line that says the same included.
    expect(errorEchoIndex([line('info', 'boom'), line('error', 'something else')], error)).toBe(-1);
    expect(errorEchoIndex([line('error', 'boom')], null)).toBe(-1);
    // The lines shown beside the error: every other one, in order.
    const logs = [line('info', 'start'), line('error', error.stack), line('info', 'after')];
    expect(withoutErrorEcho(logs, error)).toEqual([logs[0], logs[2]]);
    expect(withoutErrorEcho(logs, null)).toEqual(logs);
  });
});

describe('the code box', () => {
  it('is as tall as the code and a line to type on, between its rows and 32 lines', () => {
    expect(boxRows(10, 'one line')).toBe(10);
    expect(boxRows(10, Array.from({ length: 13 }, () => 'x').join('\n'))).toBe(14);
    expect(boxRows(10, Array.from({ length: 200 }, () => 'x').join('\n'))).toBe(32);
  });
});

describe('the workflow file download', () => {
  it('names the file after the workflow, in a form any shell takes', () => {
    expect(workflowFileName('web flow')).toBe('web-flow.workflow.json');
    expect(workflowFileName('  Sign-up: Ada’s flow! ')).toBe('sign-up-ada-s-flow.workflow.json');
    expect(workflowFileName('…')).toBe('workflow.workflow.json');
  });
});
