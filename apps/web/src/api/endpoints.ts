/**
 * Every REST call the web app makes, on the client generated from the served OpenAPI document
 * (`@tributary/api-client`). Paths, parameters and bodies are the document's, and the answers'
 * types below are read from it, so a route that changes is a compile error here or in a screen,
 * not a surprise in the browser. Screens use these through TanStack Query; nothing else calls fetch.
 */
import type { ApiPaths } from '@tributary/api-client';
import { unwrap, type Http } from './client.js';

type Method = 'get' | 'put' | 'post' | 'delete';
type Operation<P extends keyof ApiPaths, M extends Method> = NonNullable<ApiPaths[P][M]>;
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<P extends keyof ApiPaths, M extends Method> = Operation<P, M> extends { responses: infer R } ? R : never;
/** The JSON body a route answers with on success (200 or 201), as the document gives it. */
export type Answer<P extends keyof ApiPaths, M extends Method> = {
  [S in keyof Responses<P, M>]: S extends 200 | 201 ? Json<Responses<P, M>[S]> : never;
}[keyof Responses<P, M>];
/** The JSON body a route takes. */
export type Body<P extends keyof ApiPaths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
type One<P extends keyof ApiPaths, M extends Method> = Answer<P, M> extends { data: infer D } ? D : never;
type Item<P extends keyof ApiPaths, M extends Method> = One<P, M> extends (infer I)[] ? I : never;

export type SavedComponentT = One<'/v1/components/{id}', 'get'>;
export type DeployedSourceT = One<'/v1/sources/{id}', 'get'>;
export type EventSummaryT = Item<'/v1/sources/{id}/event_summaries', 'get'>;
export type LogEntryT = Item<'/v1/sources/{id}/logs', 'get'>;
export type AppT = One<'/v1/apps/{slug}', 'get'>;
export type AccountT = Item<'/v1/accounts', 'get'>;
export type AccountTestResultT = One<'/v1/accounts/{id}/test', 'post'>;
export type ConnectAttemptT = One<'/v1/oauth/connect/{state}', 'get'>;
export type OAuthClientT = One<'/v1/apps/{slug}/oauth-client', 'get'>;
export type ApiKeyT = Item<'/v1/api_keys', 'get'>;
export type DeletedAccountT = One<'/v1/accounts/{id}', 'delete'>;
export type DeadLetterT = Item<'/v1/dead-letters', 'get'>;
export type ServerStatusT = One<'/v1/status', 'get'>;
export type CreatedApiKeyT = One<'/v1/api_keys', 'post'>;
export type ConfigureResultT = Answer<'/v1/components/configure', 'post'>;
export type ReloadPropsResultT = Answer<'/v1/components/props', 'post'>;
export type RunReportT = One<'/v1/actions/run', 'post'>;
export type ImportJobT = One<'/v1/registry/imports/{id}', 'get'>;
export type RegistryPackageT = Item<'/v1/registry/packages', 'get'>;
export type ConfiguredProps = Record<string, unknown>;
export type WorkflowT = One<'/v1/workflows/{id}', 'get'>;
/** What the builder saves: the body of POST /v1/workflows and PUT /v1/workflows/{id}. */
export type WorkflowSpecT = Body<'/v1/workflows', 'post'>;
export type WorkflowRunT = Item<'/v1/workflows/{id}/runs', 'get'>;
export type WorkflowRunDetailT = One<'/v1/workflow-runs/{id}', 'get'>;
export type RunStatusT = WorkflowRunT['status'];
export type SubscriptionT = One<'/v1/subscriptions/{id}', 'get'>;
export type DeliveryT = Item<'/v1/subscriptions/{id}/deliveries', 'get'>;
export type SubscribeQuery = NonNullable<ApiPaths['/v1/subscriptions']['post']['parameters']['query']>;
export type StepRunT = One<'/v1/workflows/{id}/steps/{name}/test', 'post'>;

/** Where a new source's code comes from. */
export type ComponentRef =
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'code'; readonly code: string }
  | { readonly kind: 'url'; readonly url: string };

function refBody(ref: ComponentRef): Body<'/v1/sources', 'post'> {
  switch (ref.kind) {
    case 'id':
      return { component_id: ref.id };
    case 'key':
      return { component_key: ref.key };
    case 'code':
      return { component_code: ref.code };
    case 'url':
      return { component_url: ref.url };
  }
}

/** Beyond this many sources the list would be slow to load in one go; the rest stay out of it. */
export const MAX_LISTED_SOURCES = 5000;

const id = (value: string) => ({ params: { path: { id: value } } });
const slug = (value: string) => ({ params: { path: { slug: value } } });
const data = <D>(answer: { readonly data: D }): D => answer.data;

export function createApi(http: Http) {
  return {
    me: () => unwrap(http.GET('/v1/users/me')).then(data),

    // Browser session (an HttpOnly cookie)
    session: () => unwrap(http.GET('/v1/session')).then(data),
    signIn: (apiKey: string) => unwrap(http.POST('/v1/session', { body: { api_key: apiKey } })).then(data),
    signOut: () => unwrap(http.DELETE('/v1/session')),

    // Sources
    /**
     * Every source, page after page of 100 (the API's largest page), so search, filters and sort
     * see them all; stops at MAX_LISTED_SOURCES.
     */
    listSources: async () => {
      const page = (after: string | null) =>
        unwrap(http.GET('/v1/users/me/sources', { params: { query: { limit: 100, ...(after ? { after } : {}) } } }));
      const first = await page(null);
      const sources = [...first.data];
      let cursor = first.page_info.end_cursor;
      while (cursor && sources.length < Math.min(first.page_info.total_count, MAX_LISTED_SOURCES)) {
        const next = await page(cursor);
        if (next.data.length === 0) break;
        sources.push(...next.data);
        cursor = next.page_info.end_cursor;
      }
      return { page_info: { ...first.page_info, count: sources.length, end_cursor: cursor }, data: sources };
    },
    getSource: (source: string) => unwrap(http.GET('/v1/sources/{id}', id(source))).then(data),
    deploySource: (input: {
      readonly ref: ComponentRef;
      readonly name?: string;
      readonly configuredProps: ConfiguredProps;
    }) =>
      unwrap(
        http.POST('/v1/sources', {
          body: {
            ...refBody(input.ref),
            ...(input.name ? { name: input.name } : {}),
            configured_props: input.configuredProps,
          },
        }),
      ).then(data),
    updateSource: (source: string, body: Body<'/v1/sources/{id}', 'put'>) =>
      unwrap(http.PUT('/v1/sources/{id}', { ...id(source), body })).then(data),
    deleteSource: (source: string) => unwrap(http.DELETE('/v1/sources/{id}', id(source))),
    runSource: (source: string, event?: unknown) =>
      unwrap(http.POST('/v1/sources/{id}/run', { ...id(source), body: event === undefined ? {} : { event } })).then(
        data,
      ),
    /** `expand` returns whole events; without it events over 1 KB come back cut (contract §9.2). */
    listEvents: (source: string, options: { readonly limit?: number; readonly expand?: boolean } = {}) =>
      unwrap(
        http.GET('/v1/sources/{id}/event_summaries', {
          params: {
            path: { id: source },
            query: { limit: options.limit ?? 100, ...(options.expand === false ? {} : { expand: 'event' }) },
          },
        }),
      ),
    listLogs: (source: string, limit = 100) =>
      unwrap(http.GET('/v1/sources/{id}/logs', { params: { path: { id: source }, query: { limit } } })),
    clearEvents: (source: string) => unwrap(http.DELETE('/v1/sources/{id}/events', id(source))),

    // Components
    getComponent: (idOrKey: string) => unwrap(http.GET('/v1/components/{id}', id(idOrKey))).then(data),
    getRegistryComponent: (key: string) =>
      unwrap(http.GET('/v1/components/registry/{key}', { params: { path: { key } } })).then(data),
    saveComponent: (input: { readonly code?: string; readonly url?: string }) =>
      unwrap(
        http.POST('/v1/components', {
          body: {
            ...(input.code !== undefined ? { component_code: input.code } : {}),
            ...(input.url !== undefined ? { component_url: input.url } : {}),
          },
        }),
      ).then(data),
    listRegistry: () => unwrap(http.GET('/v1/components/registry')),
    /** Starts an import of an npm package of components; the job is polled with getImportJob. */
    importPackage: (spec: string) => unwrap(http.POST('/v1/registry/packages', { body: { spec } })).then(data),
    getImportJob: (job: string) => unwrap(http.GET('/v1/registry/imports/{id}', id(job))).then(data),
    listRegistryPackages: () => unwrap(http.GET('/v1/registry/packages')),
    listSavedComponents: () => unwrap(http.GET('/v1/users/me/components', { params: { query: { limit: 100 } } })),
    configureProp: (body: Body<'/v1/components/configure', 'post'>) =>
      unwrap(http.POST('/v1/components/configure', { body })),
    /** The props after additionalProps(), of a saved component (`id`) or of code not saved yet (`component_code`). */
    reloadProps: (body: Body<'/v1/components/props', 'post'>) => unwrap(http.POST('/v1/components/props', { body })),
    runAction: (body: Body<'/v1/actions/run', 'post'>) => unwrap(http.POST('/v1/actions/run', { body })).then(data),

    // Workflows (docs/workflows.md)
    listWorkflows: () => unwrap(http.GET('/v1/workflows')),
    getWorkflow: (workflow: string) => unwrap(http.GET('/v1/workflows/{id}', id(workflow))).then(data),
    createWorkflow: (spec: WorkflowSpecT) => unwrap(http.POST('/v1/workflows', { body: spec })).then(data),
    updateWorkflow: (workflow: string, spec: WorkflowSpecT) =>
      unwrap(http.PUT('/v1/workflows/{id}', { ...id(workflow), body: spec })).then(data),
    deleteWorkflow: (workflow: string) => unwrap(http.DELETE('/v1/workflows/{id}', id(workflow))),
    setWorkflowActive: (workflow: string, active: boolean) =>
      unwrap(
        active
          ? http.POST('/v1/workflows/{id}/activate', id(workflow))
          : http.POST('/v1/workflows/{id}/deactivate', id(workflow)),
      ).then(data),
    runWorkflow: (workflow: string, event?: unknown) =>
      unwrap(http.POST('/v1/workflows/{id}/run', { ...id(workflow), body: event === undefined ? {} : { event } })).then(
        data,
      ),
    testWorkflowStep: (workflow: string, step: string, body: Body<'/v1/workflows/{id}/steps/{name}/test', 'post'>) =>
      unwrap(
        http.POST('/v1/workflows/{id}/steps/{name}/test', { params: { path: { id: workflow, name: step } }, body }),
      ).then(data),
    listWorkflowRuns: (workflow: string, options: { readonly limit?: number; readonly status?: RunStatusT } = {}) =>
      unwrap(
        http.GET('/v1/workflows/{id}/runs', {
          params: {
            path: { id: workflow },
            query: { limit: options.limit ?? 50, ...(options.status ? { status: options.status } : {}) },
          },
        }),
      ),
    getWorkflowRun: (run: string) => unwrap(http.GET('/v1/workflow-runs/{id}', id(run))).then(data),
    replayWorkflowRun: (run: string) => unwrap(http.POST('/v1/workflow-runs/{id}/replay', id(run))).then(data),

    // Apps and connected accounts
    listApps: () => unwrap(http.GET('/v1/apps')),
    getApp: (app: string) => unwrap(http.GET('/v1/apps/{slug}', slug(app))).then(data),
    listAccounts: (app?: string) =>
      unwrap(http.GET('/v1/accounts', { params: { query: { limit: 100, ...(app ? { app } : {}) } } })),
    createAccount: (body: Body<'/v1/accounts', 'post'>) => unwrap(http.POST('/v1/accounts', { body })).then(data),
    getAccount: (account: string) => unwrap(http.GET('/v1/accounts/{id}', id(account))).then(data),
    testAccount: (account: string) => unwrap(http.POST('/v1/accounts/{id}/test', id(account))).then(data),
    getOAuthClient: (app: string) => unwrap(http.GET('/v1/apps/{slug}/oauth-client', slug(app))).then(data),
    putOAuthClient: (app: string, body: Body<'/v1/apps/{slug}/oauth-client', 'put'>) =>
      unwrap(http.PUT('/v1/apps/{slug}/oauth-client', { ...slug(app), body })).then(data),
    startConnect: (body: Body<'/v1/oauth/connect', 'post'>) =>
      unwrap(http.POST('/v1/oauth/connect', { body })).then(data),
    getConnect: (state: string) =>
      unwrap(http.GET('/v1/oauth/connect/{state}', { params: { path: { state } } })).then(data),
    deleteAccount: (account: string) => unwrap(http.DELETE('/v1/accounts/{id}', id(account))).then(data),

    // API keys
    listApiKeys: () => unwrap(http.GET('/v1/api_keys')),
    createApiKey: (name: string) => unwrap(http.POST('/v1/api_keys', { body: { name } })).then(data),
    revokeApiKey: (key: string) => unwrap(http.DELETE('/v1/api_keys/{id}', id(key))),

    // Dead letters: invocations the platform failed to run on every attempt
    listDeadLetters: (sourceId?: string) =>
      unwrap(
        http.GET('/v1/dead-letters', {
          params: { query: { limit: 100, ...(sourceId ? { source_id: sourceId } : {}) } },
        }),
      ),
    retryDeadLetter: (letter: string) => unwrap(http.POST('/v1/dead-letters/{id}/retry', id(letter))).then(data),
    deleteDeadLetter: (letter: string) => unwrap(http.DELETE('/v1/dead-letters/{id}', id(letter))),

    // Subscriptions: an emitter's events to a source, a workflow or a webhook (docs/rest-api.md#subscriptions)
    listSubscriptions: () => unwrap(http.GET('/v1/subscriptions')).then(data),
    subscribe: (query: SubscribeQuery) => unwrap(http.POST('/v1/subscriptions', { params: { query } })).then(data),
    removeSubscription: (subscription: string) => unwrap(http.DELETE('/v1/subscriptions/{id}', id(subscription))),
    subscriptionDeliveries: (subscription: string) =>
      unwrap(
        http.GET('/v1/subscriptions/{id}/deliveries', {
          params: { path: { id: subscription }, query: { limit: 20 } },
        }),
      ).then(data),

    // How the server is doing (docs/operations.md)
    status: () => unwrap(http.GET('/v1/status')).then(data),
  };
}

export type Api = ReturnType<typeof createApi>;
