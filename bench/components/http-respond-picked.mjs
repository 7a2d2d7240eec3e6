// Benchmark source: an HTTP interface with customResponse; each request is answered from the run
// with the picked fields `seq` and `sentAt` of its JSON body (what the Node-RED function does).
export default {
  key: 'bench-http-respond-picked',
  name: 'Bench HTTP respond picked',
  version: '0.0.1',
  type: 'source',
  props: { http: { type: '$.interface.http', customResponse: true } },
  async run(event) {
    const body = event.body ?? {};
    this.http.respond({ status: 200, body: { seq: body.seq, sentAt: body.sentAt } });
  },
};
