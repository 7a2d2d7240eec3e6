/* global fetch -- Node 20 has it; components run on Node. */
import { parseJson } from '../../common/json-value.mjs';

export default {
  key: 'tributary-http-request',
  name: 'Send HTTP Request',
  description: 'Sends an HTTP request and returns the status, headers and body (parsed when it is JSON).',
  version: '1.0.0',
  type: 'action',
  props: {
    url: { type: 'string', label: 'URL', description: 'An http(s) URL.' },
    method: {
      type: 'string',
      label: 'Method',
      options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'],
      default: 'GET',
    },
    headers: { type: 'object', label: 'Headers', optional: true },
    body: {
      type: 'string',
      label: 'Body',
      description: 'Sent as is; JSON text gets `content-type: application/json` unless a header says otherwise.',
      optional: true,
    },
  },
  async run({ $ }) {
    const headers = { ...(this.headers ?? {}) };
    const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
    if (this.body !== undefined && !hasType) {
      try {
        parseJson(this.body, 'body');
        headers['content-type'] = 'application/json';
      } catch {
        headers['content-type'] = 'text/plain';
      }
    }
    const response = await fetch(this.url, { method: this.method, headers, body: this.body });
    const text = await response.text();
    let body = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // Not JSON: the text as it came.
    }
    $.export('$summary', `${this.method} ${this.url}: ${response.status}`);
    return { status: response.status, headers: Object.fromEntries(response.headers), body };
  },
};
