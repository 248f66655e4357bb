import { InvalidInput, TooLarge, Unavailable } from '../domain/errors.js';
import sharp, { type OutputInfo } from 'sharp';
import { type Format, PIXEL_CAPS, assertAffordable, tooManyPixels } from './decode-cost.js';

export const SIZES = { large: 256, medium: 64, small: 16 } as const;
export type Size = keyof typeof SIZES;
export const SIZE_NAMES = Object.keys(SIZES) as Size[];

export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

/** The formats taken (judged by content, sniff below), as the account page's hint and a refusal say them. */
export const ACCEPTED_FORMATS = 'JPEG, PNG, WebP, GIF or AVIF';
/** The same formats as the media types of a file input's `accept`, so a picker offers only these. */
export const ACCEPTED_TYPES = 'image/jpeg,image/png,image/webp,image/gif,image/avif';
const NOT_ACCEPTED = `The picture must be a ${ACCEPTED_FORMATS} image`;

export type Encoded = Record<Size, Buffer>;

export function isSize(value: string): value is Size {
  return Object.hasOwn(SIZES, value);
}

/** The format the first bytes announce, or undefined for anything else (SVG, TIFF, HEIC, text...). */
function sniff(input: Buffer): Format | undefined {
  const ascii = (start: number, end: number) => input.toString('latin1', start, end);
  if (input[0] === 0xff && input[1] === 0xd8 && input[2] === 0xff) return 'jpeg';
  if (input.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'gif';
  // ISO base media file: a first box 'ftyp' whose major brand is avif (still) or avis (sequence).
  if (ascii(4, 8) === 'ftyp' && ['avif', 'avis'].includes(ascii(8, 12))) return 'avif';
  return undefined;
}

/** A conversion refused because the instance is already converting as many pictures as it may. */
class Busy extends Unavailable {
  readonly retryAfterSeconds = 5;
}

/**
 * At most `running` conversions at once on this instance; up to `waiting` more wait their turn,
 * beyond that an upload is refused at once (503 with Retry-After) rather than piling up memory.
 */
export class ConversionGate {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) {
        throw new Busy('Too many pictures are being converted right now; retry in 5 seconds');
      }
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.active += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      // The slot passes straight to the next waiter; only when nobody waits is it freed.
      if (next) next();
      else this.active -= 1;
    }
  }
}

/** Two conversions at once per instance (each uses several libvips threads), eight more may wait. */
const gate = new ConversionGate(2, 8);

/**
 * Turns a JPEG, PNG, WebP, GIF or AVIF image (first frame of an animation; EXIF orientation
 * applied) into the three square WebP sizes, centre-cropped. The format is judged by content,
 * never by name; anything else (SVG included) is refused before any decoding.
 */
export async function encodePicture(input: Buffer, conversions: ConversionGate = gate): Promise<Encoded> {
  if (input.length === 0) throw new InvalidInput('The picture file is empty');
  if (input.length > MAX_UPLOAD_BYTES) throw new TooLarge('The picture is larger than 8 MB');
  const format = sniff(input);
  if (!format) throw new InvalidInput(NOT_ACCEPTED);
  return conversions.run(() => convert(input, format));
}

async function convert(input: Buffer, format: Format): Promise<Encoded> {
  const options = { limitInputPixels: PIXEL_CAPS[format] * 1_000_000, failOn: 'error', pages: 1, sequentialRead: true } as const;
  let base: { data: Buffer; info: OutputInfo };
  try {
    // The header first: it names the real format, the size and the kind, before anything is decoded.
    const meta = await sharp(input, options).metadata();
    if (meta.format !== (format === 'avif' ? 'heif' : format) || (format === 'avif' && meta.compression !== 'av1')) {
      throw new InvalidInput(NOT_ACCEPTED);
    }
    assertAffordable(format, meta, input);
    // Decode once, to the largest size; the smaller sizes are made from that.
    base = await sharp(input, options)
      .rotate()
      .resize(SIZES.large, SIZES.large, { fit: 'cover', position: 'centre' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    if (err instanceof InvalidInput) throw err;
    throw new InvalidInput(describeSharpError(err, format));
  }
  const raw = { raw: { width: base.info.width, height: base.info.height, channels: base.info.channels } };
  const encode = (size: number) =>
    sharp(base.data, raw).resize(size, size, { kernel: 'lanczos3' }).webp({ quality: 85 }).toBuffer();
  const [large, medium, small] = await Promise.all([encode(SIZES.large), encode(SIZES.medium), encode(SIZES.small)]);
  return { large, medium, small };
}

function describeSharpError(err: unknown, format: Format): string {
  const text = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(text)) return tooManyPixels(format);
  return 'The picture could not be read: the file is damaged or truncated';
}
