import { SavedComponent, single, type SavedComponentT } from '@tributary/contracts';
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
      return (await client.post('/v1/components', { component_code: ref.code }, single(SavedComponent))).data;
    case 'url':
      return (await client.post('/v1/components', { component_url: ref.url }, single(SavedComponent))).data;
    case 'key':
      return (await client.get(`/v1/components/registry/${encodeURIComponent(ref.key)}`, single(SavedComponent))).data;
  }
}

export function configurableProps(component: SavedComponentT): ConfigurableProp[] {
  return component.configurable_props.filter(
    (prop): prop is ConfigurableProp => typeof prop['name'] === 'string' && typeof prop['type'] === 'string',
  );
}
