import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import { SIZES, type Size } from './images.js';

/** Bump when the drawing changes, so ETags change with it. */
const VERSION = 1;

/**
 * The default picture of a user without pfpTimestamp: a symmetric 5x5 identicon whose pattern
 * and colour come from a hash of the user id, so it is deterministic and distinct per user.
 */
function defaultPictureSvg(userId: number, pixels: number): string {
  const hash = createHash('sha256').update(`default-picture:${userId}`).digest();
  const hue = ((hash[0]! << 8) | hash[1]!) % 360;
  const fg = `hsl(${hue} 65% 45%)`;
  const bg = `hsl(${hue} 40% 92%)`;
  const cells: string[] = [];
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 3; col++) {
      const bit = (hash[2 + row]! >> col) & 1;
      if (!bit) continue;
      cells.push(`<rect x="${col}" y="${row}" width="1" height="1"/>`);
      if (col < 2) cells.push(`<rect x="${4 - col}" y="${row}" width="1" height="1"/>`);
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixels}" height="${pixels}" viewBox="-0.5 -0.5 6 6" shape-rendering="crispEdges">` +
    `<rect x="-0.5" y="-0.5" width="6" height="6" fill="${bg}"/><g fill="${fg}">${cells.join('')}</g></svg>`
  );
}

export class DefaultPictures {
  private readonly cache = new LRUCache<string, Buffer>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (b) => b.length });

  etag(userId: number, size: Size): string {
    return `"default-v${VERSION}-${userId}-${size}"`;
  }

  async get(userId: number, size: Size): Promise<Buffer> {
    const key = `${size}:${userId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const pixels = SIZES[size];
    const image = await sharp(Buffer.from(defaultPictureSvg(userId, pixels)))
      .resize(pixels, pixels)
      .webp({ quality: 90 })
      .toBuffer();
    this.cache.set(key, image);
    return image;
  }
}
