/**
 * What decoding a picture will cost, judged before anything is decoded from its header and its
 * own structure (a JPEG's markers, a WebP's chunks): the pixel cap of its format and of its kind
 * within the format, a JPEG's scans, an AVIF's bytes. Each cap is the largest that keeps the
 * costliest picture of its kind within COST_BUDGET, as `npm run bench:pictures` measures it
 * (docs/performance.md#picture-decoding-budget; why per kind: docs/decisions.md#profile-pictures).
 */
import type { Metadata } from 'sharp';
import { InvalidInput } from '../domain/errors.js';

/** One conversion's bound (docs/decisions.md#profile-pictures). */
export const COST_BUDGET = { cpuSeconds: 1, memoryMb: 100 } as const;

/** The formats an upload may be in, told apart by their first bytes (never by name or Content-Type). */
export type Format = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

/**
 * Megapixels, per format and per kind of a format that costs more. JPEG and WebP shrink while
 * decoding and PNG streams, so their formats allow 50; a progressive JPEG holds every coefficient
 * (2 bytes a sample), an interlaced PNG, a lossless WebP, a WebP's alpha and a GIF frame are
 * decoded whole, a colour profile is applied to every pixel before the resize, 16 bits double the
 * work, and AV1 is slow.
 */
export const PIXEL_CAPS = {
  jpeg: 50,
  png: 50,
  webp: 50,
  gif: 12,
  avif: 2,
  'progressive JPEG': 12,
  'progressive CMYK JPEG': 8,
  'PNG with a colour profile': 20,
  '16-bit PNG': 16,
  'interlaced PNG': 12,
  'interlaced 16-bit PNG': 6,
  'lossless WebP': 16,
  'WebP with alpha': 12,
} as const satisfies Record<string, number>;
export type PixelCap = keyof typeof PIXEL_CAPS;

/**
 * Bytes, per format where the decoder's work grows with the coded bytes as much as with the
 * pixels (an AV1 decoder spends about a quarter of a second per MB of detail).
 */
export const MAX_BYTES = { avif: 1024 * 1024 } as const satisfies Partial<Record<Format, number>>;

/** Scans of a JPEG: each one is a pass over every block of the components it carries. */
export const MAX_SCANS = 100;

/**
 * Refuses (400) a picture whose decoding would cost more than the budget: over its format's
 * bytes, its kind's pixels, or a JPEG's scans. Reads the header sharp gave and the file's own
 * structure (WebP chunks, JPEG markers); decodes nothing.
 */
export function assertAffordable(format: Format, meta: Metadata, input: Buffer): void {
  const maxBytes = (MAX_BYTES as Partial<Record<Format, number>>)[format];
  if (maxBytes !== undefined && input.length > maxBytes) {
    throw new InvalidInput(`The picture is too large: at most ${maxBytes / (1024 * 1024)} MB for ${format.toUpperCase()}`);
  }
  const cap = pixelCapOf(format, meta, input);
  if (meta.width * meta.height > PIXEL_CAPS[cap] * 1_000_000) throw new InvalidInput(tooManyPixels(cap));
  if (format === 'jpeg' && jpegScans(input) > MAX_SCANS) {
    throw new InvalidInput(`The picture has too many scans: at most ${MAX_SCANS} for a JPEG`);
  }
}

/** The cap that applies to a picture of this format with this header. */
function pixelCapOf(format: Format, meta: Metadata, input: Buffer): PixelCap {
  switch (format) {
    case 'jpeg':
      if (!meta.isProgressive) return 'jpeg';
      return meta.channels === 4 ? 'progressive CMYK JPEG' : 'progressive JPEG';
    case 'png':
      if (meta.isProgressive) return meta.depth === 'ushort' ? 'interlaced 16-bit PNG' : 'interlaced PNG';
      if (meta.depth === 'ushort') return '16-bit PNG';
      return meta.hasProfile ? 'PNG with a colour profile' : 'png';
    case 'webp': {
      const chunks = webpChunks(input);
      if (chunks.has('VP8L')) return 'lossless WebP';
      return chunks.has('ALPH') ? 'WebP with alpha' : 'webp';
    }
    default:
      return format;
  }
}

export function tooManyPixels(cap: PixelCap): string {
  const kind: Record<string, string> = { jpeg: '', png: '', webp: '', gif: ' for GIF', avif: ' for AVIF' };
  const what = kind[cap] ?? ` for ${/^[aeiou]/i.test(cap) ? 'an' : 'a'} ${cap}`;
  return `The picture has too many pixels: at most ${PIXEL_CAPS[cap]} megapixels${what}`;
}

/**
 * The ids of a WebP file's RIFF chunks, those inside each animation frame (ANMF: 16 bytes of
 * frame header, then the frame's own chunks) included.
 */
function webpChunks(input: Buffer, from = 12, to = input.length, ids = new Set<string>()): Set<string> {
  for (let i = from; i + 8 <= to; ) {
    const id = input.toString('latin1', i, i + 4);
    const length = input.readUInt32LE(i + 4);
    ids.add(id);
    if (id === 'ANMF') webpChunks(input, i + 8 + 16, Math.min(to, i + 8 + length), ids);
    i += 8 + length + (length & 1);
  }
  return ids;
}

/**
 * The scans (SOS markers) of a JPEG, found as libjpeg finds them: a marker is 0xFF (after any
 * fill 0xFFs) followed by a byte other than 0x00 (a stuffed zero in coded data); a segment with
 * a length is skipped whole; everything else (coded data, restart markers, garbage the decoder
 * skips with a warning) is passed over to the next marker, up to EOI.
 */
function jpegScans(input: Buffer): number {
  let scans = 0;
  for (let i = 2; ; ) {
    i = input.indexOf(0xff, i);
    if (i < 0) return scans;
    while (input[i + 1] === 0xff) i += 1;
    if (i + 1 >= input.length) return scans;
    const marker = input[i + 1]!;
    i += 2;
    if (marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; // no length
    if (marker === 0xd9) return scans; // EOI
    if (marker === 0xda) scans += 1;
    if (i + 2 > input.length) return scans;
    i += input.readUInt16BE(i);
  }
}
