import type { SavedComponentT } from '@tributary/contracts';
import type { ApiClient } from './api-client.js';
import type { ComponentRef } from './component-ref.js';
import type { ConfigurableProp } from './prompt-props.js';

/**
 * The saved component behind FILE | URL | KEY: code and URLs are saved (validated) first, so the
 * CLI knows the props to ask for before it deploys; keys come from the registry.
 */
export async function savedComponentFor(client: ApiClient, ref: ComponentRef): Promise<SavedComponentT> {
  switch (ref.kind) {
    case 'code':
      return (await client.call(client.api.POST('/v1/components', { body: { component_code: ref.code } }))).data;
    case 'url':
      return (await client.call(client.api.POST('/v1/components', { body: { component_url: ref.url } }))).data;
    case 'key':
      return (
        await client.call(client.api.GET('/v1/components/registry/{key}', { params: { path: { key: ref.key } } }))
      ).data;
  }
}

export function configurableProps(component: SavedComponentT): ConfigurableProp[] {
  return component.configurable_props.filter(
    (prop): prop is ConfigurableProp => typeof prop['name'] === 'string' && typeof prop['type'] === 'string',
  );
}
