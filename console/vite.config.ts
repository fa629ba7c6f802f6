import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The service's API paths the console calls, proxied by `npm run dev -w console` to the service on :3000. */
const API_PATHS = ['/ecommerce', '/message', '/staff', '/content', '/getDataRows', '/customers', '/auth'];
const target = 'http://127.0.0.1:3000';

export default defineConfig({
  // Served by the service at /console (src/console); the built files go to console/dist.
  base: '/console/',
  plugins: [react()],
  resolve: {
    alias: {
      '@platform-service/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The CSP (script-src 'self') allows no inline script: keep every asset a file.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/console/session': { target, changeOrigin: false },
      ...Object.fromEntries(API_PATHS.map((path) => [path, { target, changeOrigin: false }])),
    },
  },
});
