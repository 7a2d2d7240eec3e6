// Benchmark workflow code step: answers the waiting HTTP caller with what the registry action
// (`tributary-pick-fields`, the step before) returned.
/* global defineComponent -- provided to code steps by the sandbox */
export default defineComponent({
  async run({ steps, $ }) {
    await $.respond({ status: 200, body: steps.pick.$return_value });
    return steps.pick.$return_value;
  },
});
