/** What `tributary init` writes: each template passes `tributary validate` and runs as is. */

export interface SourceTemplateOptions {
  readonly key: string;
  readonly name: string;
  readonly http: boolean;
  readonly timer: boolean;
  readonly db: boolean;
}

export function sourceTemplate(options: SourceTemplateOptions): string {
  const props: string[] = [];
  if (options.http) props.push("    http: { type: '$.interface.http', customResponse: true },");
  if (options.timer) props.push("    timer: { type: '$.interface.timer', default: { intervalSeconds: 15 * 60 } },");
  if (options.db) props.push("    db: '$.service.db',");
  const body: string[] = [];
  if (options.db) {
    body.push("    const count = (this.db.get('count') ?? 0) + 1;", "    this.db.set('count', count);");
  } else {
    body.push('    const count = 1;');
  }
  if (options.http) {
    body.push(
      '    // HTTP requests arrive as the event; answer the caller, then emit the request.',
      '    this.http.respond({ status: 200, body: { ok: true } });',
      '    this.$emit({ body: event.body ?? null, count }, { summary: `request ${count}`, id: `${Date.now()}-${count}` });',
    );
  } else {
    body.push(
      '    this.$emit({ count, at: new Date().toISOString() }, { summary: `run ${count}`, id: `${Date.now()}-${count}` });',
    );
  }
  return `export default {
  key: '${options.key}',
  name: '${options.name}',
  description: 'Emits an event on every ${options.http ? 'HTTP request' : 'run'}.',
  version: '0.0.1',
  type: 'source',
  dedupe: 'unique',
  props: {
${props.join('\n')}
  },
  hooks: {
    async deploy() {
      console.log('deployed');
    },
  },
  async run(event) {
${body.join('\n')}
  },
};
`.replace('  props: {\n\n  },\n', '');
}

export function actionTemplate(options: { readonly key: string; readonly name: string }): string {
  return `export default {
  key: '${options.key}',
  name: '${options.name}',
  description: 'Greets someone and returns the greeting.',
  version: '0.0.1',
  type: 'action',
  props: {
    name: { type: 'string', label: 'Name', description: 'Who to greet', optional: true, default: 'World' },
  },
  async run({ $ }) {
    const greeting = \`Hello, \${this.name}!\`;
    $.export('$summary', \`Greeted \${this.name}\`);
    return greeting;
  },
};
`;
}

export function appTemplate(options: { readonly slug: string }): string {
  return `export default {
  type: 'app',
  app: '${options.slug}',
  propDefinitions: {
    item: {
      type: 'string',
      label: 'Item',
      description: 'An item of the ${options.slug} API.',
      async options({ page }) {
        const items = await this.listItems(page);
        return items.map((item) => ({ label: item.name, value: item.id }));
      },
    },
  },
  methods: {
    authHeaders() {
      return { Authorization: \`Bearer \${this.$auth.api_key}\` };
    },
    async listItems(page = 0) {
      // Replace with a call to the service, e.g. fetch(url, { headers: this.authHeaders() }).
      return page > 0 ? [] : [{ id: 'item-1', name: 'First item' }];
    },
  },
};
`;
}

export function appActionTemplate(options: { readonly slug: string; readonly key: string }): string {
  return `import app from '../../${options.slug}.app.mjs';

export default {
  key: '${options.key}',
  name: 'Get ${options.slug} item',
  description: 'An example action of the ${options.slug} app.',
  version: '0.0.1',
  type: 'action',
  props: {
    app,
    item: { propDefinition: [app, 'item'] },
  },
  async run({ $ }) {
    $.export('$summary', \`Got \${this.item}\`);
    return { item: this.item, authorized: Boolean(this.app.authHeaders().Authorization) };
  },
};
`;
}
