import { InvalidInput, TooLarge } from '../domain/errors.js';
import sharp, { type OutputInfo } from 'sharp';

export const SIZES = { large: 256, medium: 64, small: 16 } as const;
export type Size = keyof typeof SIZES;
export const SIZE_NAMES = Object.keys(SIZES) as Size[];

export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
/** Decompression-bomb guard: sharp refuses to decode more pixels than this (12 MP photos pass). */
const MAX_INPUT_PIXELS = 50_000_000;

export type Encoded = Record<Size, Buffer>;

export function isSize(value: string): value is Size {
  return Object.hasOwn(SIZES, value);
}

/**
 * Turns any image sharp reads (first frame of an animation; EXIF orientation applied) into the
 * three square WebP sizes, centre-cropped. The format is judged by content, never by name.
 */
export async function encodePicture(input: Buffer): Promise<Encoded> {
  if (input.length === 0) throw new InvalidInput('The picture file is empty');
  if (input.length > MAX_UPLOAD_BYTES) throw new TooLarge('The picture is larger than 8 MB');
  let base: { data: Buffer; info: OutputInfo };
  try {
    // Decode once, to the largest size; the smaller sizes are made from that.
    base = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 })
      .rotate()
      .resize(SIZES.large, SIZES.large, { fit: 'cover', position: 'centre' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new InvalidInput(describeSharpError(err));
  }
  const raw = { raw: { width: base.info.width, height: base.info.height, channels: base.info.channels } };
  const encode = (size: number) =>
    sharp(base.data, raw).resize(size, size, { kernel: 'lanczos3' }).webp({ quality: 85 }).toBuffer();
  const [large, medium, small] = await Promise.all([encode(SIZES.large), encode(SIZES.medium), encode(SIZES.small)]);
  return { large, medium, small };
}

function describeSharpError(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(text)) {
    return `The picture has too many pixels: at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels`;
  }
  if (/unsupported image format/i.test(text)) return 'The file is not an image in a supported format';
  return 'The picture could not be read: the file is damaged or truncated';
}
