// How the end-to-end tests start Chromium: headless on machines without a display or GPU, run
// as root in CI (so no sandbox), and nothing reaching out to the network on its own.
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];
