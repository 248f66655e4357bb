/**
 * Hostile pictures made on the fly, each the costliest of its kind for its size: too large to
 * commit, and cheap to make. Shared by test/hostile/pictures.test.ts (uploads over HTTP) and
 * scripts/picture-cost.ts (the CPU and memory each one costs, docs/performance.md).
 */
import zlib from 'node:zlib';
import sharp, { type Sharp } from 'sharp';

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** Adam7: each pass's first column and row, and its steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface PngShape {
  width: number;
  height: number;
  /** Bits per sample. */
  depth: 8 | 16;
  alpha: boolean;
  /** Adam7-interlaced: a decoder must hold the whole image before it can hand out a row. */
  interlaced: boolean;
  /** An embedded colour profile (Display P3): the pipeline converts every pixel to sRGB. */
  profile?: boolean;
}

/** The iCCP chunk of a PNG sharp tags with the Display P3 profile. */
async function p3ProfileChunk(): Promise<Buffer> {
  const tagged = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).withIccProfile('p3').png().toBuffer();
  for (let i = 8; i < tagged.length; ) {
    const end = i + 12 + tagged.readUInt32BE(i);
    if (tagged.toString('latin1', i + 4, i + 8) === 'iCCP') return tagged.subarray(i, end);
    i = end;
  }
  throw new Error('sharp wrote no iCCP chunk');
}

/**
 * A valid RGB(A) PNG whose every row uses the Paeth filter (the costliest to undo) over black:
 * the raw rows deflate to almost nothing, so the file is small whatever its pixel count.
 */
export async function png({ width, height, depth, alpha, interlaced, profile = false }: PngShape): Promise<Buffer> {
  const bytesPerPixel = ((alpha ? 4 : 3) * depth) / 8;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([depth, alpha ? 6 : 2, 0, 0, interlaced ? 1 : 0], 8);
  const deflate = zlib.createDeflate({ level: 6 });
  const parts: Buffer[] = [];
  deflate.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const passes = interlaced
    ? ADAM7.map(([x0, y0, dx, dy]) => [Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)] as const)
    : [[width, height] as const];
  for (const [w, h] of passes) {
    if (w <= 0 || h <= 0) continue;
    const row = Buffer.alloc(1 + w * bytesPerPixel);
    row[0] = 4; // Paeth
    // Rows in batches of about 4 MB, so a 50-megapixel image is not one buffer.
    const batch = Math.max(1, Math.floor((4 << 20) / row.length));
    const rows = Buffer.concat(Array.from({ length: Math.min(batch, h) }, () => row));
    for (let left = h; left > 0; left -= batch) {
      const n = Math.min(batch, left);
      if (!deflate.write(n === batch ? rows : rows.subarray(0, n * row.length))) await new Promise((resolve) => deflate.once('drain', resolve));
    }
  }
  deflate.end();
  await done;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const iccp = profile ? await p3ProfileChunk() : Buffer.alloc(0);
  return Buffer.concat([signature, pngChunk('IHDR', ihdr), iccp, pngChunk('IDAT', Buffer.concat(parts)), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * Noise (an xorshift, so the same every run): what costs an entropy decoder the most per pixel.
 * `grain` > 1 makes it of squares that size, for an encoder that cannot fit fine noise in 8 MB.
 */
export function noise(width: number, height: number, grain = 1, channels: 3 | 4 = 3): Sharp {
  const [w, h] = [Math.ceil(width / grain), Math.ceil(height / grain)];
  const coarse = Buffer.alloc(Math.ceil((w * h * channels) / 4) * 4);
  let x = 2463534242;
  for (let i = 0; i < coarse.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    coarse.writeUInt32LE(x >>> 0, i);
  }
  if (grain === 1) return sharp(coarse.subarray(0, width * height * channels), { raw: { width, height, channels } });
  const data = Buffer.alloc(width * height * channels);
  for (let py = 0; py < height; py++) {
    const row = Math.floor(py / grain) * w;
    for (let px = 0; px < width; px++) {
      const from = (row + Math.floor(px / grain)) * channels;
      coarse.copy(data, (py * width + px) * channels, from, from + channels);
    }
  }
  return sharp(data, { raw: { width, height, channels } });
}

/** The encoding at the highest quality (90 down to 10) that fits in `maxBytes`. */
export async function largestUnder(maxBytes: number, encode: (quality: number) => Promise<Buffer>): Promise<Buffer> {
  for (let quality = 90; quality >= 10; quality -= 10) {
    // libwebp refuses some qualities of noise outright (its first partition overflows).
    const out = await encode(quality).catch(() => undefined);
    if (out && out.length <= maxBytes) return out;
  }
  throw new Error(`no quality fits in ${maxBytes} bytes`);
}

interface JpegShape {
  width: number;
  height: number;
  progressive: boolean;
  /** CMYK: four full-resolution components, the most a JPEG decodes into. */
  cmyk?: boolean;
  /** Noise at the highest quality that keeps the file under `maxBytes`, instead of a flat colour. */
  maxBytes?: number;
}

/**
 * A JPEG without chroma subsampling (every component at full resolution: the most coefficients a
 * progressive decoder must hold per pixel), flat or as noisy as `maxBytes` allows.
 */
export async function jpeg({ width, height, progressive, cmyk = false, maxBytes }: JpegShape): Promise<Buffer> {
  const image = maxBytes ? noise(width, height) : sharp({ create: { width, height, channels: 3, background: '#336699' } });
  if (cmyk) image.toColourspace('cmyk');
  const encode = (quality: number) => image.clone().jpeg({ progressive, chromaSubsampling: '4:4:4', quality }).toBuffer();
  return maxBytes ? largestUnder(maxBytes, encode) : encode(90);
}

/** A JPEG marker segment: marker, 16-bit length, body. */
function segment(marker: number, body: number[]): Buffer {
  const out = Buffer.alloc(4 + body.length);
  out.set([0xff, marker]);
  out.writeUInt16BE(body.length + 2, 2);
  out.set(body, 4);
  return out;
}

/** Entropy-coded bits, with the 0xFF byte stuffing JPEG asks for, padded with ones. */
function bitWriter() {
  const bytes: number[] = [];
  let acc = 0;
  let n = 0;
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >> i) & 1);
      if (++n === 8) {
        bytes.push(acc);
        if (acc === 0xff) bytes.push(0);
        acc = 0;
        n = 0;
      }
    }
  };
  return {
    put,
    end(): Buffer {
      while (n !== 0) put(1, 1);
      return Buffer.from(bytes);
    },
  };
}

/**
 * The most scans a valid progressive JPEG can have: a greyscale image whose DC comes in one scan,
 * then every AC coefficient (1 to 63) in a first scan at the coarsest approximation and 13
 * refinements, each a pass over every block of the image that costs a few bytes (one run of
 * empty blocks). Up to 883 scans; `scans` takes the first that many.
 */
export function manyScanJpeg(width: number, height: number, scans: number): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const parts = [
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    segment(0xc2, [8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0]),
    // DC table: one symbol (difference 0) coded '0'. AC table: the end-of-band runs EOB0..EOB14.
    segment(0xc4, [0x00, 1, ...new Array<number>(15).fill(0), 0]),
    segment(0xc4, [0x10, 0, 0, 0, 15, ...new Array<number>(12).fill(0), ...Array.from({ length: 15 }, (_, r) => r << 4)]),
  ];
  const dc = bitWriter();
  for (let i = 0; i < blocks; i++) dc.put(0, 1);
  parts.push(segment(0xda, [1, 1, 0x00, 0, 0, 0x00]), dc.end());
  const emptyBlocks = bitWriter();
  for (let left = blocks; left > 0; ) {
    const run = Math.min(left, 32767);
    const bits = Math.floor(Math.log2(run));
    emptyBlocks.put(bits, 4);
    if (bits > 0) emptyBlocks.put(run - (1 << bits), bits);
    left -= run;
  }
  const empty = emptyBlocks.end();
  let count = 1;
  for (let k = 1; k <= 63 && count < scans; k++) {
    for (let al = 13; al >= 0 && count < scans; al--, count++) {
      const ah = al === 13 ? 0 : al + 1;
      parts.push(segment(0xda, [1, 1, 0x00, k, k, (ah << 4) | al]), empty);
    }
  }
  if (count < scans) throw new Error(`a progressive JPEG has at most ${count} valid scans`);
  parts.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

/** One row of many colours (no palette holds them) repeated: cheap to code, costly to decode. */
function manyColourRows(width: number, height: number, channels: 3 | 4): Buffer {
  const row = Buffer.alloc(width * channels);
  for (let x = 0; x < width; x++) row.set([x & 255, (x * 7) & 255, (x >> 8) & 255, 128].slice(0, channels), x * channels);
  const data = Buffer.alloc(row.length * height);
  for (let y = 0; y < height; y++) row.copy(data, y * row.length);
  return data;
}

/**
 * Two frames of `side` x `side` as raw RGBA: the first of many colours, the second flat (they
 * differ, or an encoder would merge them).
 */
function twoFrames(side: number): Sharp {
  const frame = side * side * 4;
  const data = Buffer.alloc(frame * 2);
  manyColourRows(side, side, 4).copy(data);
  for (let i = frame; i < frame * 2; i += 4) data.set([200, 100, 20, 255], i);
  return sharp(data, { raw: { width: side, height: side * 2, channels: 4, pageHeight: side } });
}

/** A GIF animation of `frames` frames of `side` x `side`: the second frame repeated. */
export async function animatedGif(side: number, frames: number): Promise<Buffer> {
  const gif = await twoFrames(side).gif().toBuffer();
  const skipSubBlocks = (i: number) => {
    while (gif[i] !== 0) i += gif[i]! + 1;
    return i + 1;
  };
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * (1 << ((flags & 7) + 1)) : 0);
  // Header and logical screen, then extensions and images up to the trailer (0x3b).
  const ends: number[] = [];
  let i = 13 + colourTable(gif[10]!);
  while (gif[i] !== 0x3b) {
    if (gif[i] === 0x21) i = skipSubBlocks(i + 2);
    else if (gif[i] === 0x2c) {
      i = skipSubBlocks(i + 10 + colourTable(gif[i + 9]!) + 1);
      ends.push(i);
    } else throw new Error(`unexpected GIF block ${gif[i]} at ${i}`);
  }
  const [first, second] = ends as [number, number];
  return Buffer.concat([gif.subarray(0, first), ...Array.from({ length: frames - 1 }, () => gif.subarray(first, second)), Buffer.from([0x3b])]);
}

/** An animated WebP of `frames` frames of `side` x `side` (lossy or lossless): the second frame repeated. */
export async function animatedWebp(side: number, frames: number, lossless = false): Promise<Buffer> {
  const chunks = riffChunks(await twoFrames(side).webp({ lossless, effort: 0 }).toBuffer());
  const [first, second] = chunks.filter((c) => c.id === 'ANMF').map((c) => riffChunk(c.id, c.data)) as [Buffer, Buffer];
  const rest = chunks.filter((c) => c.id !== 'ANMF').map((c) => riffChunk(c.id, c.data));
  const body = Buffer.concat([...rest, first, ...Array.from({ length: frames - 1 }, () => second)]);
  const header = Buffer.from('RIFF....WEBP', 'latin1');
  header.writeUInt32LE(body.length + 4, 4);
  return Buffer.concat([header, body]);
}

/**
 * A still WebP whose every row repeats one row of many colours: lossless compresses it to almost
 * nothing (each row a copy of the one above) but cannot use a palette, so the decoder works on
 * whole 32-bit pixels. With a colour profile it is in the extended (VP8X) container.
 */
export async function manyColourWebp(width: number, height: number, { lossless, alpha, profile = false }: { lossless: boolean; alpha: boolean; profile?: boolean }): Promise<Buffer> {
  const channels = alpha ? 4 : 3;
  const image = sharp(manyColourRows(width, height, channels), { raw: { width, height, channels } });
  if (profile) image.withIccProfile('p3');
  return image.webp({ lossless, effort: 0, quality: 80 }).toBuffer();
}

/** A WebP file's chunks: id and payload (an ANMF chunk's frames are inside its payload). */
function riffChunks(file: Buffer, from = 12): { id: string; data: Buffer }[] {
  const chunks: { id: string; data: Buffer }[] = [];
  for (let i = from; i + 8 <= file.length; ) {
    const length = file.readUInt32LE(i + 4);
    chunks.push({ id: file.toString('latin1', i, i + 4), data: file.subarray(i + 8, i + 8 + length) });
    i += 8 + length + (length & 1);
  }
  return chunks;
}

function riffChunk(id: string, data: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, data, Buffer.alloc(data.length & 1)]);
}

/**
 * A lossy WebP whose alpha (ALPH chunk) is a lossless image of many colours, of which the decoder
 * keeps the green: libwebp's own encoder writes alpha a decoder reads a byte per pixel, this one
 * makes it decode whole 32-bit pixels, as for a lossless image.
 */
export async function webpWithCostlyAlpha(side: number): Promise<Buffer> {
  const lossy = await sharp({ create: { width: side, height: side, channels: 3, background: '#336699' } }).webp({ effort: 0 }).toBuffer();
  const lossless = await manyColourWebp(side, side, { lossless: true, alpha: false });
  const vp8 = riffChunks(lossy).find((c) => c.id === 'VP8 ')!;
  const vp8l = riffChunks(lossless).find((c) => c.id === 'VP8L')!;
  // ALPH: one header byte (lossless, no filter), then the VP8L stream without its 5-byte header.
  const alph = Buffer.concat([Buffer.from([0x01]), vp8l.data.subarray(5)]);
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x10; // has alpha
  vp8x.writeUIntLE(side - 1, 4, 3);
  vp8x.writeUIntLE(side - 1, 7, 3);
  const body = Buffer.concat([riffChunk('VP8X', vp8x), riffChunk('ALPH', alph), riffChunk('VP8 ', vp8.data)]);
  const header = Buffer.from('RIFF....WEBP', 'latin1');
  header.writeUInt32LE(body.length + 4, 4);
  return Buffer.concat([header, body]);
}
