import type { AppsFileT } from '@tributary/contracts';

/**
 * The catalog entries that ship with the server, in the `--apps-file` format (docs/accounts.md):
 * the apps the fixtures and docs use. An operator's entry with the same slug replaces one of these.
 */
export const BUILTIN_APPS: AppsFileT = {
  apps: [
    {
      slug: 'acme',
      name: 'Acme',
      description: 'The example app of the docs and fixtures (fixtures/components/f16-acme.app.mjs).',
      auth_type: 'keys',
      fields: [
        {
          name: 'api_key',
          label: 'API key',
          secret: true,
          optional: false,
          description: 'Sent as a Bearer token to the Acme API.',
        },
        {
          name: 'base_url',
          label: 'Base URL',
          secret: false,
          optional: true,
          description: 'Where the Acme API answers (a local server in tests).',
        },
      ],
    },
    {
      slug: 'github',
      name: 'GitHub',
      description:
        'GitHub REST API. Paste a personal access token; there is no OAuth redirect flow on a self-hosted server.',
      auth_type: 'oauth2',
      fields: [
        {
          name: 'oauth_access_token',
          label: 'Access token',
          secret: true,
          optional: false,
          description: 'A personal access token or an OAuth token.',
        },
      ],
    },
    {
      slug: 'slack',
      name: 'Slack',
      description: 'Slack Web API. Paste a bot or user token.',
      auth_type: 'oauth2',
      fields: [
        {
          name: 'oauth_access_token',
          label: 'Access token',
          secret: true,
          optional: false,
          description: 'A bot (xoxb-) or user (xoxp-) token.',
        },
      ],
    },
    {
      slug: 'openai',
      name: 'OpenAI',
      description: 'OpenAI API.',
      auth_type: 'keys',
      fields: [{ name: 'api_key', label: 'API key', secret: true, optional: false, description: null }],
    },
    {
      slug: 'http',
      name: 'HTTP',
      description: 'Plain HTTP requests; no credentials.',
      auth_type: 'none',
      fields: [],
    },
  ],
};
