/**
 * How deeply a JSON text nests, measured on its bytes before it is parsed: a body nested beyond
 * the API's needs (its bodies are flat objects) is refused as a client error instead of reaching
 * the recursive validation (which overflows the stack at a few thousand levels). Pure.
 */

/** the deepest nesting a request body may have: objects and arrays inside one another */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** true when the JSON text in `bytes` opens more than `max` objects or arrays inside one another (brackets in strings do not count) */
export function jsonDepthExceeds(bytes: Uint8Array, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) depth--;
  }
  return false;
}
