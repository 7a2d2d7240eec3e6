export default {
  key: 'tributary-http-webhook',
  name: 'HTTP Webhook',
  description: 'Emits every HTTP request sent to its endpoint: method, path, query, headers and body.',
  version: '1.0.0',
  type: 'source',
  props: {
    http: { type: '$.interface.http', customResponse: true },
    responseStatus: {
      type: 'integer',
      label: 'Response status',
      description: 'The status the endpoint answers with.',
      default: 200,
      min: 100,
      max: 599,
    },
  },
  async run(request) {
    this.http.respond({ status: this.responseStatus, body: { ok: true } });
    this.$emit(request, {
      summary: `${request.method} ${request.path}`,
      ts: Date.now(),
    });
  },
};
