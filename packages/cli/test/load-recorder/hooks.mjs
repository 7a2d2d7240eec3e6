// Module hooks (they run on Node's hooks thread): each URL is written before the module is
// returned, so the file is complete whenever the process ends, however it ends.
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  appendFileSync(file, `${url}\n`);
  return loaded;
}
