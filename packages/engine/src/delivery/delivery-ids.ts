import { customAlphabet } from 'nanoid';

const token = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 14);

/** `dlv_…` deliveries, `sub_…` subscriptions (upstream's prefix), `arun_…` standalone action runs. */
export function newDeliveryId(prefix: 'dlv' | 'sub' | 'arun'): string {
  return `${prefix}_${token()}`;
}
