/** the response header naming an answer's record on `quotes-served` (GET /quote, POST /swap and /instructions) */
export const QUOTE_ID_HEADER = 'X-Quote-Id';
