// An action on an OAuth account: returns the length of its access token (the oauth-refresh bench).
export default {
  key: 'bench-oauth-whoami',
  name: 'OAuth Whoami',
  version: '0.0.1',
  type: 'action',
  props: { mockidp: { type: 'app', app: 'mockidp' } },
  async run() {
    return this.mockidp.$auth.oauth_access_token.length;
  },
};
