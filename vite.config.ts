// Builds the renderer once for both shells: Electron loads it from disk (hence relative asset
// paths) and the browser form serves the same files.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 2000 },
});
