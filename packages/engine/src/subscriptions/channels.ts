/** The runtime names the default channel "default"; a subscription names it "" (or not at all). */
export const DEFAULT_CHANNEL = 'default';

/** The channel as subscriptions store it: "" for the default one. */
export function channelOf(name: string | undefined): string {
  return name === undefined || name === DEFAULT_CHANNEL ? '' : name;
}
