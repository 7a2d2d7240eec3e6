// Turns a failure into its cause: the four categories of the report.
export const CAUSES = {
  'our-bug': 'our bug',
  'needs-network': 'needs outside network',
  'needs-credentials': 'needs credentials',
  'component-bug': "component's own bug",
};

const NETWORK =
  /egress policy: \S+ does not resolve|ENOTFOUND|EAI_AGAIN|getaddrinfo|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|fetch failed|socket hang up|Client network socket disconnected/;

/**
 * The cause of a failure from its error message; `known` (from scenarios.mjs) names the causes
 * that a message alone does not show. Anything left is counted as our bug until explained.
 */
export function classify(message, known) {
  if (known) return known;
  if (NETWORK.test(message)) return { cause: 'needs-network', note: 'reaches a host outside this machine' };
  if (/needs a connected account|PROP_REQUIRED: app prop/.test(message))
    return { cause: 'needs-credentials', note: 'its app needs an account' };
  // What the services' clients say when `$auth` is empty (the report connects no accounts).
  if (/Should send 'token'|No accessToken or apiKey|not_authed|invalid_auth/.test(message))
    return { cause: 'needs-credentials', note: 'its client refuses to start without a token' };
  if (/Access denied for user ''/.test(message))
    return { cause: 'needs-credentials', note: 'the database refuses a connection without a user' };
  return { cause: 'our-bug', note: 'unexplained failure' };
}
