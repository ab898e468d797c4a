// The page's Content-Security-Policy as the pipewright:// scheme sends it. A copy of
// engine/host/contentSecurityPolicy.ts, which electron/ may not import;
// test/contentSecurityPolicy.test.ts fails if the two (or renderer/index.html's) differ.
export const CONTENT_SECURITY_POLICY_HEADER =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self' ws://127.0.0.1:*; object-src 'none'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";
