import type { AppsFileT } from '@tributary/contracts';

/**
 * Pipedream's utility apps: their components call no outside service, or only URLs given as props,
 * so an app prop of theirs runs with an empty `$auth` and no connected account.
 */
const NO_CREDENTIAL_APPS = [
  { slug: 'helper_functions', name: 'Helper Functions', description: 'Pipedream utility actions; no credentials.' },
  { slug: 'formatting', name: 'Formatting', description: 'Text, number and date formatting; no credentials.' },
  { slug: 'pipedream_utils', name: 'Pipedream Utils', description: 'Pipedream utility actions; no credentials.' },
  { slug: 'datetime', name: 'Date / Time', description: 'Date and time utilities; no credentials.' },
  { slug: 'rss', name: 'RSS', description: 'Public RSS and Atom feeds; no credentials.' },
  { slug: 'schedule', name: 'Schedule', description: 'Timer sources; no credentials.' },
];

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
        'GitHub REST API. Connect through OAuth (an OAuth client is needed), or paste a personal access token.',
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
    ...NO_CREDENTIAL_APPS.map((entry) => ({ ...entry, auth_type: 'none' as const, fields: [] })),
    {
      slug: 'http',
      name: 'HTTP',
      description: 'Plain HTTP requests; no credentials.',
      auth_type: 'none',
      fields: [],
    },
  ],
};
