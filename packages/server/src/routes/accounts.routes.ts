import {
  Account,
  AccountDetail,
  AccountTestResult,
  AccountsQuery,
  CreateAccountBody,
  DeletedAccount,
  list,
  single,
} from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

/** Connected accounts (docs/accounts.md): secrets go in, never come out. */
export function accountRoutes(engine: Engine): RouteSpec[] {
  const { accounts } = engine;
  return [
    route({
      method: 'POST',
      url: '/v1/accounts',
      tag: 'accounts',
      summary: "Connect an account: its fields are checked against the app's catalog entry and sealed at rest",
      body: CreateAccountBody,
      response: single(Account),
      status: 201,
      handler: async ({ body }) => ({
        data: accounts.toApi(
          await accounts.create({
            app: body.app,
            fields: body.fields,
            ...(body.name !== undefined ? { name: body.name } : {}),
          }),
        ),
      }),
    }),
    route({
      method: 'GET',
      url: '/v1/accounts',
      tag: 'accounts',
      summary: 'List connected accounts (secret fields shown as "[REDACTED]"), optionally of one app',
      query: AccountsQuery,
      response: list(Account),
      handler: async ({ query }) => {
        const { rows, total } = await accounts.list({
          limit: query.limit,
          ...(query.app !== undefined ? { app: query.app } : {}),
          ...(query.after ? { after: query.after } : {}),
          ...(query.before ? { before: query.before } : {}),
        });
        return { page_info: pageInfo(rows, total), data: rows.map((row) => accounts.toApi(row)) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/accounts/:id',
      tag: 'accounts',
      summary: 'Get a connected account (secret fields shown as "[REDACTED]") and the deployed sources that use it',
      response: single(AccountDetail),
      handler: async ({ params }) => {
        const row = await accounts.get(params['id'] ?? '');
        return { data: { ...accounts.toApi(row), used_by: await accounts.usedBy(row.id) } };
      },
    }),
    route({
      method: 'POST',
      url: '/v1/accounts/:id/test',
      tag: 'accounts',
      summary:
        'Test a connected account: the app\'s "who am I" request with its credentials, or a token refresh; ok, needs_reconnect or error with its code',
      response: single(AccountTestResult),
      handler: async ({ params }) => ({ data: await accounts.test(params['id'] ?? '') }),
    }),
    route({
      method: 'DELETE',
      url: '/v1/accounts/:id',
      tag: 'accounts',
      summary: 'Delete a connected account; used_by lists the deployed sources whose app props pointed at it',
      response: single(DeletedAccount),
      handler: async ({ params }) => {
        const { id, usedBy } = await accounts.remove(params['id'] ?? '');
        return { data: { id, used_by: usedBy } };
      },
    }),
  ];
}
