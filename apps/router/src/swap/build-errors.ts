/**
 * The two ways building a swap's instructions fails, as the API reports them: pool or account data
 * missing from the projection, or a route the instructions cannot express.
 */

/** Pool or account data the instructions need is not in the projection (API: `missing pool data`). */
export class MissingPoolDataError extends Error {
  constructor(readonly detail: string) {
    super('missing pool data');
    this.name = 'MissingPoolDataError';
  }
}

/** The route cannot be expressed as instructions (API: `failed to build instructions`). */
export class BuildError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'BuildError';
  }
}
