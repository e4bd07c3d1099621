import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `npm start` listens; `npm run console:dev` proxies the APIs there. */
const API = process.env.FINWATCH_API ?? 'http://127.0.0.1:7071';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react(), tailwindcss()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline module-preload helper: the page's CSP allows no inline script.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
    sourcemap: false,
    // Read by scripts/build-console.ts to size the first page, then removed.
    manifest: true,
  },
  server: {
    port: 5173,
    proxy: { '/auth/api': API, '/finops/api': API, '/metrics/api': API },
  },
});
