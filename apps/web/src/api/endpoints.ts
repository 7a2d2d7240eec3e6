/**
 * Every REST call the web app makes, typed by the contract's zod schemas (contract §9). Screens
 * use these through TanStack Query; nothing else calls fetch.
 */
import {
  Account,
  AccountDetail,
  ConnectAttempt,
  OAuthClient,
  ApiKey,
  App,
  BrowserSessionInfo,
  ConfigureComponentResult,
  CreatedApiKey,
  DeadLetter,
  DeletedAccount,
  DeployedSource,
  EventSummary,
  ImportJob,
  RegistryPackage,
  Invocation,
  list,
  LogEntry,
  ReloadPropsResult,
  RunReport,
  SavedComponent,
  ServerStatus,
  single,
  User,
  StartedRun,
  StepRun,
  Workflow,
  WorkflowRun,
  WorkflowRunDetail,
  PageInfo,
} from '@tributary/contracts';
import { z } from 'zod';
import type { Http } from './client.js';

export type SavedComponentT = z.infer<typeof SavedComponent>;
export type DeployedSourceT = z.infer<typeof DeployedSource>;
export type EventSummaryT = z.infer<typeof EventSummary>;
export type LogEntryT = z.infer<typeof LogEntry>;
export type AppT = z.infer<typeof App>;
export type AccountT = z.infer<typeof Account>;
export type ConnectAttemptT = z.infer<typeof ConnectAttempt>;
export type OAuthClientT = z.infer<typeof OAuthClient>;
export type ApiKeyT = z.infer<typeof ApiKey>;
export type DeletedAccountT = z.infer<typeof DeletedAccount>;
export type DeadLetterT = z.infer<typeof DeadLetter>;
export type ServerStatusT = z.infer<typeof ServerStatus>;
export type CreatedApiKeyT = z.infer<typeof CreatedApiKey>;
export type ConfigureResultT = z.infer<typeof ConfigureComponentResult>;
export type ReloadPropsResultT = z.infer<typeof ReloadPropsResult>;
export type RunReportT = z.infer<typeof RunReport>;
export type ImportJobT = z.infer<typeof ImportJob>;
export type RegistryPackageT = z.infer<typeof RegistryPackage>;
export type ConfiguredProps = Record<string, unknown>;
export type WorkflowT = z.infer<typeof Workflow>;
export type WorkflowSpecT = WorkflowT['spec'];
export type WorkflowRunT = z.infer<typeof WorkflowRun>;
export type WorkflowRunDetailT = z.infer<typeof WorkflowRunDetail>;
export type StepRunT = z.infer<typeof StepRun>;

const RunPage = z.object({ page_info: PageInfo, data: z.array(WorkflowRun), runs_dropped: z.number().int() });

/** Where a new source's code comes from. */
export type ComponentRef =
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'code'; readonly code: string }
  | { readonly kind: 'url'; readonly url: string };

function refBody(ref: ComponentRef): Record<string, string> {
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

const Empty = z.object({});
/** Beyond this many sources the list would be slow to load in one go; the rest stay out of it. */
export const MAX_LISTED_SOURCES = 5000;
const enc = encodeURIComponent;

export function createApi(http: Http) {
  return {
    me: () => http({ method: 'GET', path: '/v1/users/me', schema: single(User) }).then((r) => r.data),

    // Browser session (an HttpOnly cookie)
    session: () => http({ method: 'GET', path: '/v1/session', schema: single(BrowserSessionInfo) }).then((r) => r.data),
    signIn: (apiKey: string) =>
      http({ method: 'POST', path: '/v1/session', body: { api_key: apiKey }, schema: single(BrowserSessionInfo) }).then(
        (r) => r.data,
      ),
    signOut: () => http({ method: 'DELETE', path: '/v1/session', schema: Empty }),

    // Sources
    /**
     * Every source, page after page of 100 (the API's largest page), so search, filters and sort
     * see them all; stops at MAX_LISTED_SOURCES.
     */
    listSources: async () => {
      const page = (after: string | null) =>
        http({
          method: 'GET',
          path: '/v1/users/me/sources',
          query: { limit: 100, after },
          schema: list(DeployedSource),
        });
      const first = await page(null);
      const data = [...first.data];
      let cursor = first.page_info.end_cursor;
      while (cursor && data.length < Math.min(first.page_info.total_count, MAX_LISTED_SOURCES)) {
        const next = await page(cursor);
        if (next.data.length === 0) break;
        data.push(...next.data);
        cursor = next.page_info.end_cursor;
      }
      return { page_info: { ...first.page_info, count: data.length, end_cursor: cursor }, data };
    },
    getSource: (id: string) =>
      http({ method: 'GET', path: `/v1/sources/${enc(id)}`, schema: single(DeployedSource) }).then((r) => r.data),
    deploySource: (input: {
      readonly ref: ComponentRef;
      readonly name?: string;
      readonly configuredProps: ConfiguredProps;
    }) =>
      http({
        method: 'POST',
        path: '/v1/sources',
        body: {
          ...refBody(input.ref),
          ...(input.name ? { name: input.name } : {}),
          configured_props: input.configuredProps,
        },
        schema: single(DeployedSource),
      }).then((r) => r.data),
    updateSource: (
      id: string,
      body: { name?: string; active?: boolean; configured_props?: ConfiguredProps; component_code?: string },
    ) =>
      http({ method: 'PUT', path: `/v1/sources/${enc(id)}`, body, schema: single(DeployedSource) }).then((r) => r.data),
    deleteSource: (id: string) => http({ method: 'DELETE', path: `/v1/sources/${enc(id)}`, schema: Empty }),
    runSource: (id: string, event?: unknown) =>
      http({
        method: 'POST',
        path: `/v1/sources/${enc(id)}/run`,
        body: event === undefined ? {} : { event },
        schema: single(Invocation),
      }).then((r) => r.data),
    /** `expand` returns whole events; without it events over 1 KB come back cut (contract §9.2). */
    listEvents: (id: string, options: { readonly limit?: number; readonly expand?: boolean } = {}) =>
      http({
        method: 'GET',
        path: `/v1/sources/${enc(id)}/event_summaries`,
        query: { limit: options.limit ?? 100, expand: options.expand === false ? undefined : 'event' },
        schema: list(EventSummary),
      }),
    listLogs: (id: string, limit = 100) =>
      http({ method: 'GET', path: `/v1/sources/${enc(id)}/logs`, query: { limit }, schema: list(LogEntry) }),
    clearEvents: (id: string) => http({ method: 'DELETE', path: `/v1/sources/${enc(id)}/events`, schema: z.unknown() }),

    // Components
    getComponent: (idOrKey: string) =>
      http({ method: 'GET', path: `/v1/components/${enc(idOrKey)}`, schema: single(SavedComponent) }).then(
        (r) => r.data,
      ),
    getRegistryComponent: (key: string) =>
      http({ method: 'GET', path: `/v1/components/registry/${enc(key)}`, schema: single(SavedComponent) }).then(
        (r) => r.data,
      ),
    saveComponent: (input: { readonly code?: string; readonly url?: string }) =>
      http({
        method: 'POST',
        path: '/v1/components',
        body: {
          ...(input.code !== undefined ? { component_code: input.code } : {}),
          ...(input.url !== undefined ? { component_url: input.url } : {}),
        },
        schema: single(SavedComponent),
      }).then((r) => r.data),
    listRegistry: () =>
      http({ method: 'GET', path: '/v1/components/registry', query: { limit: 100 }, schema: list(SavedComponent) }),
    /** Starts an import of an npm package of components; the job is polled with getImportJob. */
    importPackage: (spec: string) =>
      http({ method: 'POST', path: '/v1/registry/packages', body: { spec }, schema: single(ImportJob) }).then(
        (r) => r.data,
      ),
    getImportJob: (id: string) =>
      http({ method: 'GET', path: `/v1/registry/imports/${enc(id)}`, schema: single(ImportJob) }).then((r) => r.data),
    listRegistryPackages: () => http({ method: 'GET', path: '/v1/registry/packages', schema: list(RegistryPackage) }),
    listSavedComponents: () =>
      http({ method: 'GET', path: '/v1/users/me/components', query: { limit: 100 }, schema: list(SavedComponent) }),
    configureProp: (body: {
      id: string;
      prop_name: string;
      configured_props: ConfiguredProps;
      page?: number;
      prev_context?: Record<string, unknown>;
      query?: string;
    }) => http({ method: 'POST', path: '/v1/components/configure', body, schema: ConfigureComponentResult }),
    /** The props after additionalProps(), of a saved component (`id`) or of code not saved yet (`component_code`). */
    reloadProps: (body: ({ id: string } | { component_code: string }) & { configured_props: ConfiguredProps }) =>
      http({ method: 'POST', path: '/v1/components/props', body, schema: ReloadPropsResult }),
    runAction: (body: { id: string; configured_props: ConfiguredProps; timeout_seconds?: number }) =>
      http({ method: 'POST', path: '/v1/actions/run', body, schema: single(RunReport) }).then((r) => r.data),

    // Workflows (docs/workflows.md)
    listWorkflows: () => http({ method: 'GET', path: '/v1/workflows', schema: list(Workflow) }),
    getWorkflow: (id: string) =>
      http({ method: 'GET', path: `/v1/workflows/${enc(id)}`, schema: single(Workflow) }).then((r) => r.data),
    createWorkflow: (spec: WorkflowSpecT) =>
      http({ method: 'POST', path: '/v1/workflows', body: spec, schema: single(Workflow) }).then((r) => r.data),
    updateWorkflow: (id: string, spec: WorkflowSpecT) =>
      http({ method: 'PUT', path: `/v1/workflows/${enc(id)}`, body: spec, schema: single(Workflow) }).then(
        (r) => r.data,
      ),
    deleteWorkflow: (id: string) => http({ method: 'DELETE', path: `/v1/workflows/${enc(id)}`, schema: z.unknown() }),
    setWorkflowActive: (id: string, active: boolean) =>
      http({
        method: 'POST',
        path: `/v1/workflows/${enc(id)}/${active ? 'activate' : 'deactivate'}`,
        schema: single(Workflow),
      }).then((r) => r.data),
    runWorkflow: (id: string, event?: unknown) =>
      http({
        method: 'POST',
        path: `/v1/workflows/${enc(id)}/run`,
        body: event === undefined ? {} : { event },
        schema: single(StartedRun),
      }).then((r) => r.data),
    testWorkflowStep: (
      id: string,
      step: string,
      body: { event?: unknown; steps?: Record<string, Record<string, unknown>> },
    ) =>
      http({
        method: 'POST',
        path: `/v1/workflows/${enc(id)}/steps/${enc(step)}/test`,
        body,
        schema: single(StepRun),
      }).then((r) => r.data),
    listWorkflowRuns: (id: string, limit = 50) =>
      http({ method: 'GET', path: `/v1/workflows/${enc(id)}/runs`, query: { limit }, schema: RunPage }),
    getWorkflowRun: (id: string) =>
      http({ method: 'GET', path: `/v1/workflow-runs/${enc(id)}`, schema: single(WorkflowRunDetail) }).then(
        (r) => r.data,
      ),
    replayWorkflowRun: (id: string) =>
      http({ method: 'POST', path: `/v1/workflow-runs/${enc(id)}/replay`, schema: single(StartedRun) }).then(
        (r) => r.data,
      ),

    // Apps and connected accounts
    listApps: () => http({ method: 'GET', path: '/v1/apps', query: { limit: 100 }, schema: list(App) }),
    getApp: (slug: string) =>
      http({ method: 'GET', path: `/v1/apps/${enc(slug)}`, schema: single(App) }).then((r) => r.data),
    listAccounts: (app?: string) =>
      http({ method: 'GET', path: '/v1/accounts', query: { app, limit: 100 }, schema: list(Account) }),
    createAccount: (body: { app: string; name?: string; fields: Record<string, string> }) =>
      http({ method: 'POST', path: '/v1/accounts', body, schema: single(Account) }).then((r) => r.data),
    getAccount: (id: string) =>
      http({ method: 'GET', path: `/v1/accounts/${enc(id)}`, schema: single(AccountDetail) }).then((r) => r.data),
    getOAuthClient: (slug: string) =>
      http({ method: 'GET', path: `/v1/apps/${enc(slug)}/oauth-client`, schema: single(OAuthClient) }).then(
        (r) => r.data,
      ),
    putOAuthClient: (slug: string, body: { client_id: string; client_secret: string }) =>
      http({ method: 'PUT', path: `/v1/apps/${enc(slug)}/oauth-client`, body, schema: single(OAuthClient) }).then(
        (r) => r.data,
      ),
    startConnect: (body: { app: string; account?: string }) =>
      http({ method: 'POST', path: '/v1/oauth/connect', body, schema: single(ConnectAttempt) }).then((r) => r.data),
    getConnect: (state: string) =>
      http({ method: 'GET', path: `/v1/oauth/connect/${enc(state)}`, schema: single(ConnectAttempt) }).then(
        (r) => r.data,
      ),
    deleteAccount: (id: string) =>
      http({ method: 'DELETE', path: `/v1/accounts/${enc(id)}`, schema: single(DeletedAccount) }).then((r) => r.data),

    // API keys
    listApiKeys: () => http({ method: 'GET', path: '/v1/api_keys', query: { limit: 100 }, schema: list(ApiKey) }),
    createApiKey: (name: string) =>
      http({ method: 'POST', path: '/v1/api_keys', body: { name }, schema: single(CreatedApiKey) }).then((r) => r.data),
    revokeApiKey: (id: string) => http({ method: 'DELETE', path: `/v1/api_keys/${enc(id)}`, schema: Empty }),

    // Dead letters: invocations the platform failed to run on every attempt
    listDeadLetters: (sourceId?: string) =>
      http({
        method: 'GET',
        path: '/v1/dead-letters',
        query: { source_id: sourceId, limit: 100 },
        schema: list(DeadLetter),
      }),
    retryDeadLetter: (id: string) =>
      http({ method: 'POST', path: `/v1/dead-letters/${enc(id)}/retry`, schema: single(Invocation) }).then(
        (r) => r.data,
      ),
    deleteDeadLetter: (id: string) =>
      http({ method: 'DELETE', path: `/v1/dead-letters/${enc(id)}`, schema: z.unknown() }),

    // How the server is doing (docs/operations.md)
    status: () => http({ method: 'GET', path: '/v1/status', schema: single(ServerStatus) }).then((r) => r.data),
  };
}

export type Api = ReturnType<typeof createApi>;
