/**
 * Requests Node's HTTP server refuses before any route (a malformed request, headers over its
 * 16 KB limit, a request not received within the request timeout) answered with the API's
 * envelope {success:false, error} instead of Node's bare status line, then the connection closed.
 */
import type { Server } from 'http';
import type { Duplex } from 'stream';

/** status, reason phrase and envelope text of a parser or timeout error */
export function clientErrorAnswer(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large', 'request headers too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'request timeout'];
  return [400, 'Bad Request', 'bad request'];
}

function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, text, error] = clientErrorAnswer(err.code);
  const body = JSON.stringify({ success: false, error });
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** answer the server's client errors with the envelope */
export function answerClientErrors(server: Server): void {
  server.on('clientError', answerClientError);
}
