/**
 * The methods an Express application routes for a path, read from its router: a request for a
 * known path with another method is answered 405 with `Allow` instead of 404.
 */
import type { Application } from 'express';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): unknown;
}

/** the methods routed for `path` (upper case, HEAD with GET, sorted); empty when no route matches it */
export function allowedMethods(app: Application, path: string): string[] {
  const stack = (app as Application & { router?: { stack: RouteLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (layer.route === undefined || !layer.match(path)) continue;
    for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') methods.add(m.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
