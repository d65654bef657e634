/**
 * Which requests the API's key check and rate limit leave open: `/health` and the API docs,
 * spelled as the router routes them (case-insensitive, an absolute-form target's path, one
 * trailing slash). Everything else is checked and counted, however it is spelled: a duplicate
 * slash, a percent-encoded or dot segment is never taken as an open path.
 */

/** the path of a request target: an absolute-form target's host dropped, the query and fragment cut */
export function targetPath(url: string | undefined): string {
  let u = url ?? '';
  const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(u);
  if (abs !== null) u = u.slice(abs[0].length) || '/';
  const cut = u.search(/[?#]/);
  return cut === -1 ? u : u.slice(0, cut);
}

const OPEN = new Set(['/health', '/api/docs', '/api/docs-json', '/api/docs-yaml']);

/** true for /health and the API docs (their page and assets), false for everything the gate checks */
export function isOpenPath(url: string | undefined): boolean {
  let p = targetPath(url).toLowerCase();
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (OPEN.has(p)) return true;
  // the docs' assets: nothing there reaches a controller; a spelling that could is not open
  return p.startsWith('/api/docs/') && !p.includes('%') && !p.includes('//') && !/\/\.\.?(\/|$)/.test(p);
}
