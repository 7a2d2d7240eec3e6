// The closed-loop load of the workflow benchmarks driven by autocannon, the load generator issue 10
// names, in its own process: forked by server-lib.mjs's runLoad (`generator: 'autocannon'`), with
// loadgen.mjs's messages and report, so closed-loop.mjs reads either the same way.
// Why beside loadgen.mjs: autocannon writes prebuilt requests on raw sockets and parses answers with
// its own parser; loadgen.mjs goes through node:http's client, which costs it about four times the
// CPU per request (0.078 against 0.018 ms, measured against the bare node:http server). On two cores
// shared by the server and its load generator, that CPU comes out of the server measured; it costs
// a server that uses both cores (Tributary and its workers) more than one that uses one (Node-RED).
// Differences from loadgen.mjs: closed loop only (`rate` must be 0); every request has the same
// ~1 KB body `{ seq, sentAt, pad }` (autocannon sends one prebuilt request; no case here reads a
// per-request value), so no `ackedSeqs`; latency is autocannon's per response, from the request's
// write to the end of its response. Only requests started inside the measured window count, as in
// loadgen.mjs: a response's start is its arrival less its latency.
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { URL } from 'node:url';
import { sendToParent as send, serveLoad } from './load-child.mjs';

function emptyBucket() {
  return { ok: 0, started: 0, statuses: {}, errors: {} };
}

function run(config) {
  const url = new URL(config.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`only 127.0.0.1 targets are allowed, got ${url.hostname}`);
  if ((config.rate ?? 0) > 0) throw new Error('autocannon-load.mjs is closed loop only: rate must be 0');
  const concurrency = config.concurrency ?? 50;
  const warmupMs = config.warmupMs ?? 2000;
  const durationMs = config.durationMs ?? 10_000;
  const bodyBytes = config.bodyBytes ?? 1024;
  // loadgen.mjs's body shape, with the values its probe sizes the padding by.
  const fields = { seq: 1_000_000, sentAt: 1_700_000_000_000.123 };
  const unpadded = JSON.stringify({ ...fields, pad: '' }).length;
  const body = JSON.stringify({ ...fields, pad: 'x'.repeat(Math.max(0, bodyBytes - unpadded)) });

  const measured = { ...emptyBucket(), latenciesMs: [] };
  const warmup = emptyBucket();
  const t0 = performance.now();
  const measureFrom = t0 + warmupMs;
  const measureTo = measureFrom + durationMs;
  let ended = null;
  const bucketAt = (startedAt) => (startedAt >= measureFrom && startedAt < measureTo ? measured : warmup);

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: config.url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections: concurrency,
        pipelining: 1,
        // Stopped by the timer below; the duration is only a backstop.
        duration: (warmupMs + durationMs) / 1000 + 60,
        // autocannon acts on a stop at its next sample: sample often so it stops promptly.
        sampleInt: 100,
        timeout: 30,
      },
      (error, result) => {
        clearTimeout(endTimer);
        if (error) return reject(error);
        const windowMs = Math.min(durationMs, Math.max(1, (ended ?? performance.now()) - measureFrom));
        measured.nonOk = measured.started - measured.ok;
        measured.okPerSecond = (measured.ok / windowMs) * 1000;
        resolve({
          type: 'report',
          generator: 'autocannon',
          config: { concurrency, rate: 0, warmupMs, durationMs, bodyBytes: body.length },
          windowMs,
          windowEpochMs: [performance.timeOrigin + measureFrom, performance.timeOrigin + measureFrom + windowMs],
          measured,
          warmup,
          totalSent: result.totalRequests,
          lateSends: 0,
          unfinishedAtEnd: Math.max(0, result.totalRequests - result.totalCompletedRequests - result.errors),
          ackedSeqs: null,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      const now = performance.now();
      const bucket = bucketAt(now - responseTime);
      bucket.started += 1;
      bucket.statuses[statusCode] = (bucket.statuses[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) {
        bucket.ok += 1;
        if (bucket === measured) measured.latenciesMs.push(responseTime);
      }
    });
    instance.on('reqError', (error) => {
      const bucket = bucketAt(performance.now());
      bucket.started += 1;
      const code = error?.code ?? error?.message ?? 'error';
      bucket.errors[code] = (bucket.errors[code] ?? 0) + 1;
    });
    const measureTimer = setTimeout(() => send({ type: 'phase', phase: 'measure' }), warmupMs);
    const endTimer = setTimeout(() => {
      clearTimeout(measureTimer);
      ended = performance.now();
      send({ type: 'phase', phase: 'end' });
      instance.stop();
    }, warmupMs + durationMs);
  });
}

serveLoad(run);
