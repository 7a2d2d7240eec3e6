import type { Command } from 'commander';
import type { SubscribeFlags } from '../actions/subscriptions.js';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

/** `subscriptions list|add|remove|deliveries`: an emitter's events sent to a source, a workflow or a webhook. */
export function registerSubscriptionsCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  const subscriptions = program
    .command('subscriptions')
    .description(
      "Send a source's or workflow's events to another source, a workflow or a webhook: list, add, remove, deliveries",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary subscriptions add dc_Fd3kR8mQ1x --url https://hooks.example.com/orders
  $ tributary subscriptions add dc_Fd3kR8mQ1x --listener wf_Sh1pp1ng01
  $ tributary subscriptions list
  $ tributary subscriptions deliveries sub_7FhQ2nWc0LpZxA
  $ tributary subscriptions remove sub_7FhQ2nWc0LpZxA

Emitters and listeners are named by id (dc_… sources, wf_… workflows) or by name; docs/rest-api.md#subscriptions.`,
    );

  addRemoteOptions(subscriptions.command('list').description('List every subscription'))
    .addHelpText('after', '\nExamples:\n  $ tributary subscriptions list --json')
    .action(async (flags: RemoteCommandFlags) => {
      const { runSubscriptionsList } = await import('../actions/subscriptions.js');
      setExit(await runSubscriptionsList(flags, output));
    });

  addRemoteOptions(
    subscriptions
      .command('add')
      .description(
        "Subscribe a listener to an emitter's events (a source's committed events, a workflow's $.send.emit)",
      )
      .argument('<emitter>', 'a source or workflow: its dc_ or wf_ id or its name (dc_* for every source)'),
  )
    .option('--listener <ID>', 'a source, run with each event, or a workflow, started by each event: id or name')
    .option('--url <URL>', 'a webhook: each event is POSTed to it, signed, with retries')
    .option('--event-name <NAME>', 'only the events of this channel (the name of the emits; default channel if absent)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary subscriptions add dc_Fd3kR8mQ1x --url https://hooks.example.com/orders
  $ tributary subscriptions add orders --listener shipping --event-name shipped

Give --listener or --url, not both. A new webhook subscription prints its signing secret once.
Exit codes: 0 subscribed (or already subscribed), 1 refused or not found, 2 server or network error.`,
    )
    .action(async (emitter: string, flags: SubscribeFlags) => {
      const { runSubscriptionsAdd } = await import('../actions/subscriptions.js');
      setExit(await runSubscriptionsAdd(emitter, flags, output));
    });

  addRemoteOptions(
    subscriptions
      .command('remove')
      .description('Remove a subscription; its events stop going to the listener')
      .argument('<id>', 'sub_ id of the subscription'),
  )
    .addHelpText('after', '\nExamples:\n  $ tributary subscriptions remove sub_7FhQ2nWc0LpZxA')
    .action(async (id: string, flags: RemoteCommandFlags) => {
      const { runSubscriptionsRemove } = await import('../actions/subscriptions.js');
      setExit(await runSubscriptionsRemove(id, flags, output));
    });

  addRemoteOptions(
    subscriptions
      .command('deliveries')
      .description("A webhook subscription's delivery log, newest first: status, attempts, last error")
      .argument('<id>', 'sub_ id of the subscription'),
  )
    .option('-n, --limit <N>', 'how many (default 10, at most 100)', '10')
    .addHelpText('after', '\nExamples:\n  $ tributary subscriptions deliveries sub_7FhQ2nWc0LpZxA -n 20 --json')
    .action(async (id: string, flags: RemoteCommandFlags & { limit: string }) => {
      const { runSubscriptionDeliveries } = await import('../actions/subscriptions.js');
      setExit(await runSubscriptionDeliveries(id, flags, output));
    });
}
