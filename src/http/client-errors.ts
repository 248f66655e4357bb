/**
 * Requests Node's HTTP parser refuses before Koa sees them (bytes not allowed in a request line or
 * header, headers over 16 KB) are answered like every other error, as `{message}` JSON, instead of
 * Node's bare `400 Bad Request`.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large'],
  HPE_URI_TOO_LONG: [414, 'Request URI is too long'],
};

export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) {
      socket.destroy();
      return;
    }
    const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Malformed HTTP request'];
    const body = JSON.stringify({ message });
    // A HEAD request gets the headers only (the request line is in the packet the parser refused).
    const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  });
}
