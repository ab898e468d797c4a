// What the desktop shell and the engine host must agree on without importing each other's
// modules (the engine may not import 'electron'): the port shapes the engine host assumes,
// the page's Content-Security-Policy as renderer/index.html repeats it, and how a URL path
// maps to a renderer file, which both shells resolve with the same function.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MessagePortMain } from 'electron';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  CONTENT_SECURITY_POLICY_HEADER,
} from '../engine/host/contentSecurityPolicy.js';
import type { MessagePortMainLike, ParentPortLike } from '../engine/host/messagePortTransport.js';
import { resolveStaticPath } from '../engine/host/staticFiles.js';
import { repoRoot } from './cliHarness.js';

describe('types the two sides declare separately', () => {
  it("Electron's ports fit the shapes the engine host uses", () => {
    expectTypeOf<MessagePortMain>().toExtend<MessagePortMainLike>();
    expectTypeOf<Electron.ParentPort>().toExtend<ParentPortLike>();
  });
});

describe('the Content-Security-Policy', () => {
  it('is the same in the headers and the page', async () => {
    const html = await readFile(join(repoRoot, 'renderer', 'index.html'), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
    expect(meta, 'renderer/index.html has a CSP <meta> tag').not.toBeNull();
    // frame-ancestors is ignored in a <meta> tag; the headers carry it.
    expect([CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_HEADER]).toContain(meta?.[1]);
  });

  it('allows scripts from the page only, and no eval', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
  });
});

describe('URL paths to renderer files', () => {
  const root = join(repoRoot, 'dist', 'renderer');
  const inside = {
    '/': 'index.html',
    '/index.html': 'index.html',
    '/assets/index-abc.js': join('assets', 'index-abc.js'),
    '/assets/a%20b.css': join('assets', 'a b.css'),
    '//index.html': 'index.html',
  };
  const outside = [
    '/..',
    '/../package.json',
    '/assets/../../package.json',
    '/%2e%2e/package.json',
    '/..%2fpackage.json',
    '/..%5cpackage.json',
    '/C:%5CWindows%5Cwin.ini',
    '/%00',
    '/%E0%A4%A',
  ];

  it('stay inside the renderer build however they are encoded', () => {
    for (const [path, file] of Object.entries(inside)) {
      expect(resolveStaticPath(root, path), path).toBe(join(root, file));
    }
    for (const path of outside) {
      expect(resolveStaticPath(root, path), path).toBeUndefined();
    }
  });
});
