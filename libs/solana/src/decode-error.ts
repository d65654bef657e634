/**
 * An account whose bytes cannot be decoded as the requested type (wrong owner program, wrong
 * size, wrong discriminator, an invalid enum/option tag). Decoders throw this and never return
 * a half-decoded value.
 */
export class AccountDecodeError extends Error {
  constructor(
    readonly account: string,
    readonly reason: string,
  ) {
    super(`cannot decode account ${account}: ${reason}`);
    this.name = 'AccountDecodeError';
  }
}
