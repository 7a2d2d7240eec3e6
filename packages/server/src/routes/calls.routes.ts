import {
  ConfigureComponentBody,
  ConfigureComponentResult,
  ReloadPropsBody,
  ReloadPropsResult,
  RunActionBody,
  RunReport,
  single,
} from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import { route, type RouteSpec } from './route-table.js';

/** Calls into a saved or published component: prop options, reloaded props, action runs. */
export function callRoutes(engine: Engine): RouteSpec[] {
  const { calls } = engine;
  return [
    route({
      method: 'POST',
      url: '/v1/components/configure',
      tag: 'components',
      summary: "One page of a prop's options, from its options() run in the sandbox with the configured accounts",
      body: ConfigureComponentBody,
      response: ConfigureComponentResult,
      handler: ({ body }) =>
        calls.listOptions({
          id: body.id,
          prop: body.prop_name,
          configured: body.configured_props ?? {},
          ...(body.page !== undefined ? { page: body.page } : {}),
          ...(body.prev_context !== undefined ? { prevContext: body.prev_context } : {}),
          ...(body.query !== undefined ? { query: body.query } : {}),
        }),
    }),
    route({
      method: 'POST',
      url: '/v1/components/props',
      tag: 'components',
      summary:
        'The props of a component (or of component_code not saved yet) once additionalProps() ran with these configured props (reloadProps)',
      body: ReloadPropsBody,
      response: ReloadPropsResult,
      handler: ({ body }) =>
        calls.props({
          component: body.component_code !== undefined ? { code: body.component_code } : { id: body.id ?? '' },
          configured: body.configured_props ?? {},
        }),
    }),
    route({
      method: 'POST',
      url: '/v1/actions/run',
      tag: 'actions',
      summary: 'Run an action once; data is exactly the object `tributary run --json` prints',
      body: RunActionBody,
      response: single(RunReport),
      handler: async ({ body }) => ({
        data: await calls.runAction({
          id: body.id,
          configured: body.configured_props ?? {},
          ...(body.timeout_seconds !== undefined ? { timeoutMs: body.timeout_seconds * 1000 } : {}),
        }),
      }),
    }),
  ];
}
