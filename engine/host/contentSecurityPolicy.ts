// The designer page's Content-Security-Policy, sent with the browser form's HTTP responses.
// Scripts only from the page's own origin (no inline script, no eval); inline styles allowed,
// because React Flow and CodeMirror set style attributes and <style> elements; the only
// connection besides the page's origin is the browser form's WebSocket. The same policy is in
// electron/contentSecurityPolicy.ts (electron/ may not import this module) and in the <meta>
// tag of renderer/index.html; test/contentSecurityPolicy.test.ts keeps the three equal.
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
