/**
 * Writes the binary test fixtures of test/fixtures/ with sharp. Deterministic: running it again
 * gives the same images. Run with `node --import tsx scripts/make-fixtures.ts`.
 *
 * - photo.jpg        640x480 JPEG gradient. The left and right thirds are red, the centre third
 *                    blue, so a test can tell a centre crop (keeps the blue centre) from a squash.
 * - transparent.png  48x32 PNG with an alpha channel (an opaque disc on a transparent field).
 * - animated.gif     40x40 GIF with 2 frames: green, then magenta (the first frame is the picture).
 * - truncated.jpg    the first half of the bytes of photo.jpg.
 * - picture.png      a text file with an image's name: not an image.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const dir = path.resolve(import.meta.dirname, '..', 'test', 'fixtures');
const MAX_BYTES = 200 * 1024;

/** Photo geometry (test/pictures/pictures.test.ts checks the crop against these numbers). */
const PHOTO = { width: 640, height: 480, thirdLeft: 213, thirdRight: 427 } as const;

function photoPixels(): Buffer {
  const { width, height, thirdLeft, thirdRight } = PHOTO;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const v = Math.round((y / (height - 1)) * 60); // a gentle vertical gradient, 0..60
    for (let x = 0; x < width; x++) {
      const h = Math.round((x / (width - 1)) * 30); // and a gentler horizontal one, 0..30
      const i = (y * width + x) * 3;
      if (x < thirdLeft || x >= thirdRight) {
        // red sides
        data[i] = 190 + v;
        data[i + 1] = 20 + h;
        data[i + 2] = 30;
      } else {
        // blue centre
        data[i] = 10 + h;
        data[i + 1] = 40 + v;
        data[i + 2] = 200;
      }
    }
  }
  return data;
}

async function photoJpeg(): Promise<Buffer> {
  return sharp(photoPixels(), { raw: { width: PHOTO.width, height: PHOTO.height, channels: 3 } })
    .jpeg({ quality: 85, mozjpeg: false })
    .toBuffer();
}

async function transparentPng(): Promise<Buffer> {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32">' +
    '<circle cx="24" cy="16" r="12" fill="#10a050"/></svg>';
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function solidFrame(r: number, g: number, b: number): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 40, channels: 3, background: { r, g, b } } }).png().toBuffer();
}

/** Two-frame GIF, or undefined when this sharp cannot write animated GIF. */
async function animatedGif(): Promise<Buffer | undefined> {
  if (!sharp.format.gif?.output.buffer) return undefined;
  const frames = [await solidFrame(0, 200, 0), await solidFrame(220, 0, 220)];
  try {
    const gif = await sharp(frames, { join: { animated: true } }).gif({ delay: [200, 200], loop: 0 }).toBuffer();
    const meta = await sharp(gif, { pages: -1 }).metadata();
    return meta.pages === 2 ? gif : undefined;
  } catch {
    return undefined;
  }
}

function write(name: string, data: Buffer): void {
  if (data.length > MAX_BYTES) throw new Error(`${name} is ${data.length} bytes, over ${MAX_BYTES}`);
  fs.writeFileSync(path.join(dir, name), data);
  process.stdout.write(`${name}: ${data.length} bytes\n`);
}

async function main(): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const photo = await photoJpeg();
  write('photo.jpg', photo);
  write('transparent.png', await transparentPng());
  const gif = await animatedGif();
  if (gif) write('animated.gif', gif);
  else process.stdout.write('animated.gif: skipped (this sharp cannot write animated GIF)\n');
  write('truncated.jpg', photo.subarray(0, Math.floor(photo.length / 2)));
  write('picture.png', Buffer.from('This is a text file, not a PNG image.\n', 'utf8'));
}

await main();
