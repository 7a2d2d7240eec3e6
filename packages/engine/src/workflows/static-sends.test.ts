import { describe, expect, it } from 'vitest';
import { literalSends } from './static-sends.js';

describe('literalSends', () => {
  it('finds $.send calls whose checked destination is a literal, and only those', () => {
    const code = `export default defineComponent({
      async run({ steps, $ }) {
        $.send.http({ method: 'POST', url: 'https://example.com/a', data: steps.trigger.event });
        $.send.http({ url: this.url });
        $.send['sse']({ channel: \`orders\`, payload: 1 });
        $.send.sse({ channel: \`orders-\${steps.trigger.event.id}\` });
        $.send.s3({ bucket: 'my-bucket', payload: 1 });
        $.send.email({ subject: 'hi', text: this.text });
        $.send.emit({ raw_event: 1 });
        other.send.http({ url: 'ftp://x' });
      },
    });`;
    expect(literalSends(code)).toEqual([
      { kind: 'http', config: { method: 'POST', url: 'https://example.com/a' } },
      { kind: 'sse', config: { channel: 'orders' } },
      { kind: 's3', config: { bucket: 'my-bucket' } },
      { kind: 'email', config: { subject: 'hi' } },
    ]);
  });

  it('gives nothing for code that does not parse (the component check reports it)', () => {
    expect(literalSends('export default {')).toEqual([]);
  });
});
