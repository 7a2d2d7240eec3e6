import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `vite` (dev) proxies the API to a running `tributary start`; the production build is served by it.
const api = process.env['TRIBUTARY_API_URL'] ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    fs: { allow: ['../..'] },
    proxy: { '/v1': api, '/sse': api, '^/sources/[^/]+/(logs/)?sse': api, '/e/': api, '/healthz': api },
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
});
