// Benchmark workflow code step of the asynchronous case: the trigger already answered; the step
// returns what the registry action picked, and the run's end is what the benchmark counts.
/* global defineComponent -- provided to code steps by the sandbox */
export default defineComponent({
  async run({ steps }) {
    return steps.pick.$return_value;
  },
});
