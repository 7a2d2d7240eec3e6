import type { AppField, AppT } from '@tributary/contracts';
import type { z } from 'zod';
import type { GeneratedApp } from './generated-app.js';

type Field = z.infer<typeof AppField>;

/**
 * A generated catalog record as a catalog entry: its auth mode decides the fields a user types.
 * OAuth apps also take a pasted access token, so an operator without an OAuth client can still
 * connect an account by hand.
 */
export function catalogEntry(app: GeneratedApp): Omit<AppT, 'oauth_client'> {
  const base = {
    slug: app.slug,
    name: app.name,
    description: null,
    auth_mode: app.auth_mode,
    oauth: app.oauth ? { ...app.oauth, issuer: null } : null,
    base_url: app.base_url,
    test_request: app.test_request,
    origin: 'catalog' as const,
  };
  switch (app.auth_mode) {
    case 'oauth2_authorization_code':
    case 'oauth2_client_credentials':
      return { ...base, auth_type: 'oauth2', fields: [PASTED_TOKEN] };
    case 'api_key':
      return { ...base, auth_type: 'keys', fields: app.fields ? [...app.fields] : [apiKeyField(app.key)] };
    case 'basic':
      return { ...base, auth_type: 'keys', fields: app.fields ? [...app.fields] : BASIC_FIELDS };
    case 'none':
      return { ...base, auth_type: 'none', fields: [] };
  }
}

const PASTED_TOKEN: Field = {
  name: 'oauth_access_token',
  label: 'Access token',
  secret: true,
  optional: false,
  description: 'Paste a token, or connect through OAuth (tributary accounts connect).',
};

const BASIC_FIELDS: Field[] = [
  { name: 'username', label: 'User name', secret: false, optional: false, description: null },
  { name: 'password', label: 'Password', secret: true, optional: false, description: null },
];

function apiKeyField(key: GeneratedApp['key']): Field {
  return {
    name: 'api_key',
    label: 'API key',
    secret: true,
    optional: false,
    description: key ? `Sent in the ${key.in} as ${key.name}.` : null,
  };
}
