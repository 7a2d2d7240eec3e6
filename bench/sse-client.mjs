// SSE client of the end-to-end benchmark, run as its own process (forked by server-lib.mjs).
// Connects to a 127.0.0.1 SSE URL, parses `data:` frames as JSON records `{ id, event, … }` and,
// for each record whose `event` carries `{ seq, sentAt }`, notes the receive time on the same
// clock as the load generator (`performance.timeOrigin + performance.now()`).
// Messages: parent → { type: 'connect', url, headers }, { type: 'stop' };
// child → { type: 'ready' }, { type: 'connected' }, { type: 'progress', received },
// { type: 'report', seqs, latenciesMs, receivedAt, frames, duplicates, otherFrames }.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { URL } from 'node:url';

const send = (message) => process.send?.(message);
const clock = () => performance.timeOrigin + performance.now();

const seqs = [];
const latenciesMs = [];
const receivedAt = [];
const seen = new Set();
let frames = 0;
let duplicates = 0;
let otherFrames = 0;
let request = null;

function onRecord(text, at) {
  frames += 1;
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    otherFrames += 1;
    return;
  }
  const event = record?.event;
  if (typeof event?.seq !== 'number' || typeof event?.sentAt !== 'number') {
    otherFrames += 1;
    return;
  }
  if (seen.has(event.seq)) {
    duplicates += 1;
    return;
  }
  seen.add(event.seq);
  seqs.push(event.seq);
  latenciesMs.push(at - event.sentAt);
  receivedAt.push(at);
}

function connect({ url, headers = {} }) {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error(`only 127.0.0.1 targets are allowed, got ${target.hostname}`);
  request = http.get(target, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
    if (res.statusCode !== 200) {
      send({ type: 'error', message: `SSE answered ${res.statusCode}` });
      process.exit(1);
    }
    send({ type: 'connected' });
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const at = clock();
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data !== '') onRecord(data, at);
      }
    });
    res.on('error', (error) => send({ type: 'error', message: `SSE stream: ${error.message}` }));
  });
  request.on('error', (error) => send({ type: 'error', message: `SSE request: ${error.message}` }));
}

process.on('message', (message) => {
  if (message?.type === 'connect') connect(message);
  else if (message?.type === 'count') send({ type: 'count', received: seqs.length, frames });
  else if (message?.type === 'stop') {
    request?.destroy();
    send({ type: 'report', seqs, latenciesMs, receivedAt, frames, duplicates, otherFrames });
    setTimeout(() => process.exit(0), 100);
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
