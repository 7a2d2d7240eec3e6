// Benchmark source: an interval timer every 15 s. Each run emits the scheduled tick the timer event
// carries (`timestamp`, whole seconds), the wall-clock time the run started (`at`, epoch ms) and
// whether this worker process had already loaded the code (`warm`: any hook or run of this code ran
// in it before), to tell runs that paid for a fresh worker apart.
let callsInThisWorker = 0;

export default {
  key: 'bench-timer-15s',
  name: 'Bench timer 15s',
  version: '0.0.1',
  type: 'source',
  props: { timer: { type: '$.interface.timer', default: { intervalSeconds: 15 } } },
  hooks: {
    async deploy() {
      callsInThisWorker += 1;
    },
    async activate() {
      callsInThisWorker += 1;
    },
  },
  async run(event) {
    const at = Date.now();
    const warm = callsInThisWorker > 0;
    callsInThisWorker += 1;
    this.$emit({ timestamp: event.timestamp, at, warm });
  },
};
