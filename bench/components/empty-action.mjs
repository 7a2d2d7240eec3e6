// Benchmark component: an action whose run does nothing but return 1 (measures pure invocation overhead).
export default {
  key: 'bench-empty-action',
  name: 'Empty action',
  version: '0.0.1',
  type: 'action',
  async run() {
    return 1;
  },
};
