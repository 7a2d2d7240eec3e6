/**
 * The web app's endpoints module against the real `tributary start`, in Node: every call goes
 * through the generated client (openapi-fetch) on a path template of the served document, the
 * session cookie with the CSRF header signs writes, errors carry the server's code, and a 401
 * returns the app to sign-in. The type checks run in the web build (its tsc covers test/): the
 * screens' types are the document's, so a changed route fails `npm run build`.
 */
import type { ApiClient, ApiPaths } from '@tributary/api-client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, createHttp, type Http } from '../src/api/client.js';
import { createApi, type Api, type DeployedSourceT, type WorkflowSpecT } from '../src/api/endpoints.js';
import { startServer, type RunningServer } from './harness.js';

type Json<P extends keyof ApiPaths, M extends 'get' | 'post'> = ApiPaths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.stop());

describe('web API client', () => {
  it('types the screens with the generated document, and refuses a path it does not have', () => {
    expectTypeOf<Http>().toEqualTypeOf<ApiClient>();
    expectTypeOf<DeployedSourceT>().toEqualTypeOf<Json<'/v1/sources/{id}', 'get'>['data']>();
    expectTypeOf<Awaited<ReturnType<Api['listWorkflows']>>>().toEqualTypeOf<Json<'/v1/workflows', 'get'>>();
    expectTypeOf<Parameters<Api['createWorkflow']>[0]>().toEqualTypeOf<WorkflowSpecT>();
    const neverCalled = (http: Http) =>
      // @ts-expect-error not a route of the document: the compiler, not the browser, finds it
      http.GET('/v1/no-such-route');
    expect(neverCalled).toBeTypeOf('function');
  });

  it('sends every call through openapi-fetch on the document’s paths, and keeps the server’s error code', async () => {
    const http = createHttp({ baseUrl: server.base, getToken: () => server.key });
    const templates: string[] = [];
    http.use({
      onRequest: ({ schemaPath }) => {
        templates.push(schemaPath);
      },
    });
    const api = createApi(http);
    expect((await api.listSources()).data).toEqual([]);
    expect((await api.listApps()).data.length).toBeGreaterThan(0);
    await api.listWorkflows();
    await api.listDeadLetters();
    expect(typeof (await api.status()).version).toBe('string');
    const missing = await api.getSource('dc_missing').catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });

    const document = await server.api<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    expect(templates).toContain('/v1/sources/{id}');
    for (const template of templates) expect(Object.keys(document.body.paths), template).toContain(template);
  });

  it('signs in with the session cookie, sends the CSRF header on writes, and returns to sign-in on a 401', async () => {
    let cookie = '';
    let signedOut = 0;
    // Node's fetch keeps no cookies: this jar plays the browser's part for the HttpOnly session cookie.
    const api = createApi(
      createHttp({
        baseUrl: server.base,
        onUnauthorized: () => {
          signedOut += 1;
        },
        fetchImpl: async (request) => {
          if (cookie) request.headers.set('cookie', cookie);
          const response = await fetch(request);
          const set = response.headers.getSetCookie().map((line) => line.split(';')[0] ?? '');
          if (set.length > 0) cookie = set.join('; ');
          return response;
        },
      }),
    );
    await api.signIn(server.key);
    expect(cookie).toMatch(/^tributary_session=./);
    // The same write without the header is refused: the client's header is what lets it through.
    const bare = await fetch(`${server.base}/v1/api_keys`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no-header' }),
    });
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('CSRF_HEADER_MISSING');
    const created = await api.createApiKey('from the web client');
    await api.revokeApiKey(created.id);

    await api.signOut();
    expect(signedOut).toBe(0);
    await expect(api.me()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(signedOut).toBe(1);
  });
});
