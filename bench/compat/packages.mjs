// The published @pipedream/* packages the compatibility report measures, by kind. Versions are
// pinned so two runs compare the same code; bump them deliberately.
export const PACKAGES = [
  { name: '@pipedream/helper_functions', version: '0.3.13', kind: 'utility' },
  { name: '@pipedream/postgresql', version: '2.2.4', kind: 'database' },
  { name: '@pipedream/mysql', version: '2.5.0', kind: 'database' },
  { name: '@pipedream/sftp', version: '0.5.1', kind: 'file server' },
  { name: '@pipedream/pipedream', version: '0.4.2', kind: 'SaaS API' },
  { name: '@pipedream/slack', version: '0.10.3', kind: 'SaaS API' },
  { name: '@pipedream/notion', version: '1.0.6', kind: 'SaaS API' },
  { name: '@pipedream/gitlab', version: '0.5.6', kind: 'SaaS API' },
  { name: '@pipedream/linear_app', version: '0.8.1', kind: 'SaaS API' },
  { name: '@pipedream/monday', version: '0.7.0', kind: 'SaaS API' },
  { name: '@pipedream/apify', version: '0.4.0', kind: 'SaaS API' },
  { name: '@pipedream/brex', version: '0.1.1', kind: 'SaaS API' },
];
