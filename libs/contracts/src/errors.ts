/** A log record that cannot be applied: unknown schema version or malformed body. */
export class ContractError extends Error {
  constructor(
    readonly topic: string,
    readonly reason: string,
  ) {
    super(`${topic}: ${reason}`);
    this.name = 'ContractError';
  }
}
