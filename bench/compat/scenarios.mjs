// What each component is run with end to end, and the causes a failure's message does not show.
// PostgreSQL components run against the local server (127.0.0.1:5432, its own database, dropped at
// the end); helper_functions actions get props and, where they fetch a URL, a local HTTP server.
import { createServer } from 'node:http';
import pg from 'pg';
import { classify } from './classify.mjs';
import { openLocalMysql } from './local-mysql.mjs';
import { startTlsPostgresProxy } from './tls-postgres-proxy.mjs';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', password: '' };
const DATABASE = 'tributary_compat';

/** Why a package's components are not run here when no scenario is written for them. */
const NOT_RUN = {
  'SaaS API': { cause: 'needs-network', note: "calls the service's API on the internet, with an account" },
  database: { cause: 'needs-network', note: 'needs a MySQL server; none the report can administer runs here' },
  'file server': { cause: 'needs-network', note: 'needs an SFTP server, which does not run here' },
};

/**
 * Causes of a whole package, by message: a SaaS client whose request cannot connect retries until
 * the deadline (Slack's and Apify's do), and options whose input values are earlier props chosen
 * from the service (a Notion data source, an Apify actor) cannot list anything without it.
 */
const PACKAGE_PATTERNS = {
  slack: [[/did not finish within/, 'needs-network', 'its client retries a request to slack.com until the deadline']],
  apify: [
    [/did not finish within/, 'needs-network', 'its client retries a request to api.apify.com until the deadline'],
    [/Expected `id` to be of type `string`/, 'needs-network', 'lists builds of an actor chosen from the service first'],
  ],
  notion: [[/reading 'match'/, 'needs-network', 'lists items of a page or data source chosen from the service first']],
};

/** Causes named by hand, per component and stage: what the message alone cannot tell. */
const STRICT_MODE_BUG = {
  run: {
    cause: 'component-bug',
    note: 'assigns the undeclared variable `url` (`for (url of …)`), a ReferenceError in an ES module',
  },
};
const KNOWN = {
  'helper_functions/actions/retrieve-all-rss-stories': STRICT_MODE_BUG,
  'helper_functions/actions/retrieve-new-rss-stories': STRICT_MODE_BUG,
  'helper_functions/actions/convert-currency': {
    'options:fromCurrency': { cause: 'needs-network', note: 'lists currencies from a public exchange-rate API' },
    'options:toCurrency': { cause: 'needs-network', note: 'lists currencies from a public exchange-rate API' },
    run: { cause: 'needs-network', note: 'converts with a public exchange-rate API' },
  },
  'helper_functions/actions/send-email-with-nodemailer': {
    run: { cause: 'needs-network', note: 'needs an SMTP server, which does not run here' },
  },
  'helper_functions/actions/send-to-s3': { run: { cause: 'needs-network', note: 'uploads to Amazon S3' } },
};

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Local</title>
<item><title>First</title><link>http://local/1</link><guid>1</guid><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
<item><title>Second</title><link>http://local/2</link><guid>2</guid><pubDate>Tue, 02 Jan 2024 00:00:00 GMT</pubDate></item>
</channel></rss>`;

export async function openScenarios() {
  const http = createServer((request, response) => {
    if (request.url === '/feed.xml') {
      response.writeHead(200, { 'content-type': 'application/rss+xml' });
      response.end(RSS);
      return;
    }
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ method: request.method, url: request.url, body }));
    });
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${http.address().port}`;
  const admin = new pg.Client({ ...PG, database: 'postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const db = new pg.Client({ ...PG, database: DATABASE });
  await db.connect();
  await db.query(
    `CREATE TABLE products (id serial PRIMARY KEY, name text UNIQUE, price numeric, updated_at timestamptz DEFAULT now())`,
  );
  await db.query(`INSERT INTO products (name, price) VALUES ('lamp', 20), ('desk', 150), ('chair', 75)`);
  const proxy = await startTlsPostgresProxy(PG);
  const postgresAuth = {
    postgresql: { ...PG, port: proxy.port, database: DATABASE, ssl_verification_mode: 'skip_verification' },
  };

  const mysql = openLocalMysql();
  const mysqlAuth = mysql ? { mysql: mysql.auth } : null;
  const table = { schema: 'public', table: 'products' };
  const MYSQL_SCENARIOS = mysqlAuth
    ? {
        'mysql/actions/create-row': { configured: { table: 'products', name: 'shelf', price: '40' } },
        'mysql/actions/find-row': {
          configured: { table: 'products', column: 'name', operator: '=', value: 'desk' },
        },
        'mysql/actions/execute-query': {
          configured: { table: 'products', condition: 'price > ?', values: ['50'] },
        },
        'mysql/actions/execute-raw-query': { configured: { sql: 'SELECT count(*) AS n FROM products' } },
        'mysql/actions/update-row': {
          configured: { table: 'products', condition: 'name = ?', conditionValues: ['lamp'], price: '25' },
        },
        'mysql/actions/delete-row': { configured: { table: 'products', condition: 'name = ?', values: ['shelf'] } },
        'mysql/actions/execute-stored-procedure': {
          configured: { storedProcedure: 'cheap_products', values: ['100'] },
        },
        'mysql/actions/list-table-options': { configured: {} },
        'mysql/actions/list-stored-procedure-options': { configured: {} },
        'mysql/sources/new-table': { configured: {}, source: true },
        'mysql/sources/new-column': { configured: { table: 'products' }, source: true },
        'mysql/sources/new-row': { configured: { table: 'products', column: 'id' }, source: true },
        'mysql/sources/new-or-updated-row': { configured: { table: 'products', column: 'id' }, source: true },
        'mysql/sources/new-row-custom-query': {
          configured: { table: 'products', column: 'id', condition: 'price > ?', values: ['10'] },
          source: true,
        },
      }
    : {};
  for (const scenario of Object.values(MYSQL_SCENARIOS)) scenario.accounts = mysqlAuth;
  const SCENARIOS = {
    ...MYSQL_SCENARIOS,
    'helper_functions/actions/base64-decode-string': { configured: { data: 'aGVsbG8=' }, exports: { data: 'hello' } },
    'helper_functions/actions/schedule-task-in-future': {
      configured: { numSeconds: '60', taskSchedulerURL: base, message: 'wake up' },
    },
    'helper_functions/actions/compare-arrays': {
      configured: { array1: ['a', 'b'], array2: ['b', 'c'], actionType: 'intersection' },
      expect: ['b'],
    },
    'helper_functions/actions/convert-html-to-slack-mrkdwn': { configured: { html: '<b>bold</b>' }, expect: '*bold*' },
    'helper_functions/actions/convert-object-to-json-string': { configured: { object: '{"a":1}' } },
    'helper_functions/actions/export-variables': { configured: { config: { a: '1' } } },
    'helper_functions/actions/format-iso8601-datetime': {
      configured: { iso8601: '2024-01-02T03:04:05' },
      expect: { date_time: '01/02/2024 3:04:05 am', date: '01/02/2024', time: '3:04:05 am' },
    },
    'helper_functions/actions/get-coutry-name-by-code-iso': { configured: { countryCode: 'FR' } },
    'helper_functions/actions/get-current-time-in-specific-timezone': { configured: { timezone: 'Europe/Paris' } },
    'helper_functions/actions/get-iso-string-n-days-ago': { configured: { days: '3' } },
    'helper_functions/actions/get-time-in-specific-timezone': {
      configured: { time: '2024-01-01T12:00:00Z', timezone: 'Asia/Tokyo' },
    },
    'helper_functions/actions/html-to-markdown': { configured: { input: '<h1>Title</h1>' } },
    'helper_functions/actions/prettify-json': { configured: { val: '{"a":{"b":1}}' } },
    'helper_functions/actions/random-integer': { configured: { min: 5, max: 5 }, expect: 5 },
    'helper_functions/actions/random-item-from-list': { configured: { list: ['only'], quantity: 1 } },
    'helper_functions/actions/xml-to-json': { configured: { input: '<a><b>1</b></a>', compact: true } },
    'helper_functions/actions/delay': { configured: { ms: '10' } },
    'helper_functions/actions/send-http-request': {
      configured: { httpRequest: { url: `${base}/echo`, method: 'POST', body: { type: 'raw', raw: 'hi' } } },
      expect: { method: 'POST', url: '/echo', body: 'hi' },
    },
    'helper_functions/actions/download-file-to-tmp': { configured: { url: `${base}/feed.xml`, filename: 'feed.xml' } },
    'helper_functions/actions/retrieve-all-rss-stories': { configured: { rss_feeds: [`${base}/feed.xml`] } },
    'helper_functions/actions/retrieve-new-rss-stories': { configured: { rss_feeds: [`${base}/feed.xml`] } },
    'postgresql/actions/find-row': { configured: { ...table, column: 'name', value: 'desk' }, accounts: postgresAuth },
    'postgresql/actions/find-row-custom-query': {
      configured: { query: 'SELECT name FROM products WHERE price > $1', values: ['50'] },
      accounts: postgresAuth,
    },
    'postgresql/actions/execute-custom-query': {
      configured: { sql: { query: 'SELECT count(*)::int AS n FROM products', params: [] } },
      accounts: postgresAuth,
    },
    'postgresql/actions/insert-row': {
      configured: { ...table, rowValues: { name: 'shelf', price: 40 } },
      accounts: postgresAuth,
    },
    'postgresql/actions/update-row': {
      configured: { ...table, column: 'name', value: 'lamp', rowValues: { price: 25 } },
      accounts: postgresAuth,
    },
    'postgresql/actions/upsert-row': {
      configured: { ...table, conflictTarget: 'name', rowValues: { name: 'chair', price: 80 } },
      accounts: postgresAuth,
    },
    'postgresql/actions/delete-rows': {
      configured: { ...table, column: 'name', value: 'shelf' },
      accounts: postgresAuth,
    },
    'postgresql/sources/new-row': { configured: { ...table, column: 'id' }, accounts: postgresAuth, source: true },
    'postgresql/sources/new-table': { configured: { schema: 'public' }, accounts: postgresAuth, source: true },
    'postgresql/sources/new-column': { configured: table, accounts: postgresAuth, source: true },
    'postgresql/sources/new-or-updated-row': {
      configured: { ...table, identifierColumn: 'id', timestampColumn: 'updated_at' },
      accounts: postgresAuth,
      source: true,
    },
    'postgresql/sources/new-row-custom-query': {
      configured: { ...table, column: 'id', query: 'SELECT * FROM products WHERE price > $1', values: ['10'] },
      accounts: postgresAuth,
      source: true,
    },
  };

  return {
    for(id, pkg) {
      const scenario = SCENARIOS[id];
      const known = KNOWN[id] ?? {};
      const patterns = PACKAGE_PATTERNS[id.split('/')[0]] ?? [];
      return {
        known: (stage, message = '') => {
          if (known[stage]) return known[stage];
          const found = patterns.find(([pattern]) => pattern.test(message));
          return found ? { cause: found[1], note: found[2] } : undefined;
        },
        // Options run with the scenario's props and accounts (the PostgreSQL ones list the local
        // database's schemas, tables and columns); others get placeholder credentials.
        configured: () => scenario?.configured ?? {},
        accounts: () => scenario?.accounts ?? {},
        run: async (handle, info, appAuth) => {
          if (!scenario)
            return {
              status: 'not-run',
              ...(known.run ?? NOT_RUN[pkg.kind] ?? { cause: 'our-bug', note: 'no scenario written' }),
            };
          return runScenario(handle, info, { ...scenario, appAuth }, known);
        },
      };
    },
    async close() {
      await db.end();
      await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
      await admin.end();
      await new Promise((resolve) => http.close(resolve));
      await proxy.close();
      mysql?.close();
    },
  };
}

async function runScenario(handle, info, scenario, known) {
  const request = {
    configured: scenario.configured,
    accounts: scenario.accounts ?? {},
    appAuth: scenario.appAuth,
    timeoutMs: 30_000,
  };
  let state = { db: {}, dedupe: null };
  let result;
  try {
    if (scenario.source && info.hooks.includes('deploy')) {
      result = await handle.invoke({ ...request, kind: 'deploy', state });
      if (!result.ok) return failed(result, known);
      state = result.state;
    }
    result = await handle.invoke({
      ...request,
      kind: 'run',
      state,
      ...(scenario.source ? { event: { timestamp: Math.floor(Date.now() / 1000) } } : {}),
    });
  } catch (error) {
    return { status: 'failed', message: error.message, ...classifyRun(error.message, known) };
  }
  if (!result.ok) return failed(result, known);
  if (scenario.expect !== undefined && JSON.stringify(result.returnValue) !== JSON.stringify(scenario.expect)) {
    const message = `returned ${JSON.stringify(result.returnValue)}, expected ${JSON.stringify(scenario.expect)}`;
    return { status: 'failed', message, ...classifyRun(message, known) };
  }
  for (const [name, value] of Object.entries(scenario.exports ?? {})) {
    if (JSON.stringify(result.exports[name]) !== JSON.stringify(value)) {
      const message = `exported ${name} = ${JSON.stringify(result.exports[name])}, expected ${JSON.stringify(value)}`;
      return { status: 'failed', message, ...classifyRun(message, known) };
    }
  }
  return {
    status: 'ok',
    ...(scenario.source ? { emits: result.emits.length } : { summary: result.summary }),
  };
}

function failed(result, known) {
  const message = `${result.error?.code ?? 'ERROR'}: ${result.error?.message ?? 'failed'}`;
  return { status: 'failed', message, ...classifyRun(message, known) };
}

function classifyRun(message, known) {
  return classify(message, known.run);
}
