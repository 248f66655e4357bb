/** Reads one file part of a multipart/form-data request (busboy), with a byte cap. */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { ApiError } from './error-responses.js';

interface FilePartOptions {
  field: string;
  maxBytes: number;
  /** The message of the 413 when the file is larger than maxBytes. */
  tooLarge: string;
}

/** Room for the multipart framing and headers around the file. */
const FRAMING_BYTES = 64 * 1024;

export async function readFilePart(req: IncomingMessage, opts: FilePartOptions): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > opts.maxBytes + FRAMING_BYTES) {
    req.resume();
    throw new ApiError(413, opts.tooLarge);
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: opts.maxBytes, fields: 8, parts: 9 } });
  } catch {
    throw new ApiError(400, 'Malformed multipart body');
  }
  return new Promise<Buffer>((resolve, reject) => {
    let file: Buffer | undefined;
    let failed: ApiError | undefined;
    const fail = (err: ApiError) => {
      failed ??= err;
    };
    parser.on('file', (name, stream) => {
      if (name !== opts.field) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new ApiError(413, opts.tooLarge)));
      stream.on('end', () => {
        if (!failed) file = Buffer.concat(chunks);
      });
    });
    parser.on('error', () => {
      req.unpipe(parser);
      req.resume();
      reject(failed ?? new ApiError(400, 'Malformed multipart body'));
    });
    parser.on('close', () => {
      if (failed) reject(failed);
      else if (!file) reject(new ApiError(400, `The upload has no ${opts.field} part`));
      else resolve(file);
    });
    req.pipe(parser);
  });
}
