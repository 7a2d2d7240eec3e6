// Benchmark source: an HTTP interface without customResponse; each request's parsed JSON body is
// emitted as the event (the end-to-end benchmark reads `seq` and `sentAt` back from it over SSE).
export default {
  key: 'bench-http-emit-body',
  name: 'Bench HTTP emit body',
  version: '0.0.1',
  type: 'source',
  props: { http: { type: '$.interface.http' } },
  async run(event) {
    this.$emit(event.body ?? null);
  },
};
