/**
 * The request size limits below the body (docs/decisions.md#request-size-limits), and requests
 * Node's HTTP parser refuses before Koa sees them (bytes not allowed in a request line or header,
 * a request line and headers over MAX_HEAD, 431) answered like every other error, as `{message}` JSON,
 * instead of Node's bare `400 Bad Request`.
 */
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type Koa from 'koa';
import type { Duplex } from 'node:stream';

/**
 * The longest request target (path and query) served; longer is 414. It holds the longest sign-in
 * address the service itself makes: `/signin?prompt=login&return_to=` and an authorization
 * request of every declared parameter at its `maxLength` in the worst encoding, encoded once more
 * (see RETURN_TO_MAX in src/security/return-paths.ts, and test/http/request-limits.test.ts).
 */
export const MAX_REQUEST_TARGET = 112 * 1024;
/**
 * What Node's parser counts against `maxHeaderSize`: the request line and the header lines, at
 * least 16 KiB of headers beside the longest target; more is 431.
 */
const MAX_HEAD = MAX_REQUEST_TARGET + 16 * 1024;

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large'],
  HPE_URI_TOO_LONG: [414, 'Request URI is too long'],
};

function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) {
      socket.destroy();
      return;
    }
    const packet = (err as { rawPacket?: Buffer }).rawPacket;
    // Node counts the request line and the headers together and cannot say which overflowed (an
    // over-long target within MAX_HEAD is the app's 414): a head over MAX_HEAD is 431.
    const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Malformed HTTP request'];
    const body = JSON.stringify({ message });
    // A HEAD request gets the headers only (the request line is in the packet the parser refused).
    const head = packet?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  });
}

/** An HTTP server with the service's limits and error answers, listening. */
export function listen(koa: Koa, port: number, host: string): Server {
  const handle = koa.callback();
  // Koa's handler answers its own errors: its promise never rejects.
  const server = createServer({ maxHeaderSize: MAX_HEAD }, (req, res) => void handle(req, res));
  answerClientErrors(server);
  return server.listen(port, host);
}
