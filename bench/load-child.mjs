// The protocol of a load generator forked by server-lib.mjs's runLoad (loadgen.mjs,
// autocannon-load.mjs): `ready` once listening; on `start`, run the load and send its `report`
// (or an `error`), then exit; exit as well when the parent goes away.
import process from 'node:process';
import { setTimeout } from 'node:timers';

export const sendToParent = (message) => process.send?.(message);

/** Serves runLoad's protocol with `run(config)`, which resolves with the report message. */
export function serveLoad(run) {
  process.on('message', (message) => {
    if (message?.type !== 'start') return;
    run(message).then(
      (report) => {
        sendToParent(report);
        setTimeout(() => process.exit(0), 100);
      },
      (error) => {
        sendToParent({ type: 'error', message: error instanceof Error ? error.stack : String(error) });
        process.exit(1);
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
  sendToParent({ type: 'ready' });
}
