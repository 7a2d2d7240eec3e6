export default {
  key: 'tributary-schedule',
  name: 'Schedule',
  description: 'Emits an event on a schedule: every N seconds or on a cron expression.',
  version: '1.0.0',
  type: 'source',
  props: {
    timer: {
      type: '$.interface.timer',
      label: 'Schedule',
      default: { intervalSeconds: 900 },
    },
  },
  async run(event) {
    this.$emit(
      { timestamp: event.timestamp, interval_seconds: event.interval_seconds ?? null, cron: event.cron ?? null },
      { summary: `tick at ${new Date(event.timestamp * 1000).toISOString()}` },
    );
  },
};
