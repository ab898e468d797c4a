// What no page in the app may do, whatever the page's code says: navigate away (in any frame),
// open windows, attach <webview>s, or get permissions beyond the clipboard (which the canvas
// uses for copy and paste of operators), and only our own page gets even that.
import type { Session, WebContents } from 'electron';
import { isAppUrl } from './appProtocol.js';

const PAGE_PERMISSIONS = new Set(['clipboard-read', 'clipboard-sanitized-write']);

export function lockDownContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  // will-navigate covers the top frame only; a frame inside the page must not leave either.
  contents.on('will-frame-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

export function restrictPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(PAGE_PERMISSIONS.has(permission) && isAppUrl(details.requestingUrl));
  });
  session.setPermissionCheckHandler(
    (_contents, permission, requestingOrigin) =>
      PAGE_PERMISSIONS.has(permission) && isAppUrl(requestingOrigin),
  );
}
