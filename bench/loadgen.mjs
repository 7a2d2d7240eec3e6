// Load generator of the server benchmarks, run as its own process (forked by server-lib.mjs).
// POSTs ~1 KB JSON bodies `{ seq, sentAt, pad }` to one 127.0.0.1 URL over keep-alive sockets.
// - closed loop (rate 0): `concurrency` requests always in flight;
// - fixed rate (rate > 0): sends are scheduled at `rate` per second, at most `concurrency` in
//   flight; a send that finds no free slot waits for one (counted as `lateSends`).
// Bounded by time (warmupMs + durationMs, then in-flight requests get `drainMs`) and by
// `maxRequests`. Latency is measured per request from just before it is written to the end of its
// response. Only requests *started* inside the measured window count in the figures.
// `sentAt` is `performance.timeOrigin + performance.now()` (epoch ms with sub-ms precision), which
// another process on the same machine can compare with its own clock of the same kind.
// Messages: parent → { type: 'start', url, concurrency, rate, warmupMs, durationMs, drainMs,
// maxRequests, bodyBytes, collectSeqs }; child → { type: 'ready' }, { type: 'phase', phase:
// 'measure' | 'end' } when the measured window opens and closes, { type: 'report', … }.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { sendToParent as send, serveLoad } from './load-child.mjs';
import { setTimeout as delay } from 'node:timers/promises';

async function main(config) {
  const url = new URL(config.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`only 127.0.0.1 targets are allowed, got ${url.hostname}`);
  const concurrency = config.concurrency ?? 50;
  const rate = config.rate ?? 0;
  const warmupMs = config.warmupMs ?? 2000;
  const durationMs = config.durationMs ?? 10_000;
  const drainMs = config.drainMs ?? 10_000;
  const maxRequests = config.maxRequests ?? 1_000_000;
  const bodyBytes = config.bodyBytes ?? 1024;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  // Pad so that the JSON body is `bodyBytes` long for a typical seq/sentAt.
  const probe = JSON.stringify({ seq: 1_000_000, sentAt: 1_700_000_000_000.123, pad: '' });
  const pad = 'x'.repeat(Math.max(0, bodyBytes - probe.length));
  const clock = () => performance.timeOrigin + performance.now();

  const measured = { latenciesMs: [], statuses: {}, errors: {}, ok: 0, started: 0, firstSeq: null, lastSeq: null };
  const warmup = { ok: 0, started: 0, statuses: {}, errors: {} };
  const ackedSeqs = config.collectSeqs ? [] : null;
  let seq = 0;
  let inFlight = 0;
  let lateSends = 0;
  const t0 = performance.now();
  const measureFrom = t0 + warmupMs;
  const measureTo = measureFrom + durationMs;
  let stopIssuing = false;

  const fire = () =>
    new Promise((resolve) => {
      seq += 1;
      const mySeq = seq;
      const startedAt = performance.now();
      const inWindow = startedAt >= measureFrom && startedAt < measureTo;
      const bucket = inWindow ? measured : warmup;
      bucket.started += 1;
      if (inWindow) {
        measured.firstSeq ??= mySeq;
        measured.lastSeq = mySeq;
      }
      const body = Buffer.from(JSON.stringify({ seq: mySeq, sentAt: clock(), pad }));
      inFlight += 1;
      const done = (status, error) => {
        inFlight -= 1;
        const elapsed = performance.now() - startedAt;
        if (error) bucket.errors[error] = (bucket.errors[error] ?? 0) + 1;
        else bucket.statuses[status] = (bucket.statuses[status] ?? 0) + 1;
        if (!error && status >= 200 && status < 300) {
          bucket.ok += 1;
          if (inWindow) measured.latenciesMs.push(elapsed);
          ackedSeqs?.push(mySeq);
        }
        resolve();
      };
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          timeout: 30_000,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => done(res.statusCode));
          res.on('error', (error) => done(0, error.code ?? 'response-error'));
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      req.on('error', (error) => done(0, error.code ?? error.message));
      req.end(body);
    });

  // The parent snapshots CPU use at these two moments.
  const phaseTimers = [
    setTimeout(() => send({ type: 'phase', phase: 'measure' }), warmupMs),
    setTimeout(() => {
      stopIssuing = true;
      send({ type: 'phase', phase: 'end' });
    }, warmupMs + durationMs),
  ];
  const timeUp = () => stopIssuing || performance.now() >= measureTo || seq >= maxRequests;

  if (rate <= 0) {
    // Closed loop: each of `concurrency` lanes sends its next request when the previous ends.
    const lane = async () => {
      while (!timeUp()) await fire();
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  } else {
    // Fixed rate: every millisecond or so, send what the schedule says is due, within the cap.
    const interval = 1000 / rate;
    const pending = new Set();
    let scheduled = 0;
    while (!timeUp()) {
      const due = Math.floor((performance.now() - t0) / interval) + 1;
      while (scheduled < due && !timeUp()) {
        if (inFlight >= concurrency) {
          lateSends += 1;
          await Promise.race(pending);
          continue;
        }
        scheduled += 1;
        const promise = fire();
        pending.add(promise);
        void promise.then(() => pending.delete(promise));
      }
      await delay(Math.max(0, Math.min(interval, 1)));
    }
  }
  for (const timer of phaseTimers) clearTimeout(timer);
  if (!stopIssuing) send({ type: 'phase', phase: 'end' });
  const issueEnded = performance.now();
  const drainDeadline = issueEnded + drainMs;
  while (inFlight > 0 && performance.now() < drainDeadline) await delay(5);
  agent.destroy();

  const windowMs = Math.min(durationMs, Math.max(1, issueEnded - measureFrom));
  return {
    type: 'report',
    config: { concurrency, rate, warmupMs, durationMs, maxRequests, bodyBytes: probe.length + pad.length },
    windowMs,
    /** The measured window on the epoch clock shared with other processes (ms). */
    windowEpochMs: [performance.timeOrigin + measureFrom, performance.timeOrigin + measureFrom + windowMs],
    measured: {
      firstSeq: measured.firstSeq,
      lastSeq: measured.lastSeq,
      started: measured.started,
      ok: measured.ok,
      statuses: measured.statuses,
      errors: measured.errors,
      nonOk: measured.started - measured.ok,
      okPerSecond: (measured.ok / windowMs) * 1000,
      latenciesMs: measured.latenciesMs,
    },
    warmup,
    totalSent: seq,
    lateSends,
    unfinishedAtEnd: inFlight,
    ackedSeqs,
  };
}

serveLoad(main);
