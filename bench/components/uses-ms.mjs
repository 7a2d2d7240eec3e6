// Benchmark component: imports one small pinned npm package, so `prepare` has a dependency to install and cache.
import ms from 'ms@2.1.3';

export default {
  key: 'bench-uses-ms',
  name: 'Uses ms',
  version: '0.0.1',
  type: 'action',
  async run() {
    return ms('1m');
  },
};
