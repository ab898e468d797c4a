// The designer page's Content-Security-Policy, sent with the browser form's HTTP responses.
// Scripts only from the page's own origin (no inline script, no eval); inline styles allowed,
// because React Flow and CodeMirror set style attributes and <style> elements; the only
// connection besides the page's origin is the browser form's WebSocket. The desktop shell sends
// the same header (electron/appProtocol.ts imports it); renderer/index.html repeats it in a
// <meta> tag, and test/shellAgreement.test.ts keeps that tag equal to it.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self' ws://127.0.0.1:*",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** frame-ancestors works only as a response header (a <meta> tag may not carry it). */
export const CONTENT_SECURITY_POLICY_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;
