import { describe, expect, it } from 'vitest';
import { fileFromArgv } from '../electron/commandLine.js';

describe('fileFromArgv', () => {
  it('takes the first argument after the app path in development, the first of all packaged', () => {
    expect(fileFromArgv(['electron', 'dist/electron/main.js', 'a.job.json'], '/w', false)).toBe(
      '/w/a.job.json',
    );
    expect(fileFromArgv(['/opt/Pipewright/pipewright', 'a.job.json'], '/w', true)).toBe('/w/a.job.json');
    expect(fileFromArgv(['electron', 'dist/electron/main.js'], '/w', false)).toBeUndefined();
    expect(fileFromArgv(['/opt/Pipewright/pipewright'], '/w', true)).toBeUndefined();
  });

  it('skips switches wherever they are, before the app path too (as Playwright puts them)', () => {
    const argv = [
      'electron',
      '--inspect=0',
      '--remote-debugging-port=0',
      'main.js',
      '--no-sandbox',
      '/abs/b.job.json',
    ];
    expect(fileFromArgv(argv, '/w', false)).toBe('/abs/b.job.json');
    expect(fileFromArgv(['pipewright', '--allow-file-access-from-files', 'b.job.json'], '/w', true)).toBe(
      '/w/b.job.json',
    );
  });
});
