/**
 * `npm run bench:pictures`: what one picture upload costs, for each hostile kind at its cap and
 * just over it (docs/performance.md#picture-decoding-budget). Each case is made with sharp, or by
 * hand where sharp cannot make the costliest form (test/hostile/pictures.ts), and converted by the
 * service's own encodePicture in a fresh child process, which reports the CPU it used
 * (process.cpuUsage, user + system, every libvips thread included) and its peak RSS (VmHWM). A
 * child that loads the same modules and converts only the tiny warm-up picture every child
 * converts first is the baseline the peaks are measured against.
 *
 * Options: --runs N (3): children per case (the medians are reported); --only TEXT: only the cases
 * whose name contains TEXT; --file PATH: measure one file instead of the table.
 * Prints a Markdown table; exits 1 when an accepted case is over the budget.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { COST_BUDGET, MAX_BYTES, MAX_SCANS, PIXEL_CAPS, type PixelCap } from '../src/pictures/decode-cost.js';
import { ConversionGate, encodePicture } from '../src/pictures/images.js';
import { animatedGif, animatedWebp, jpeg, largestUnder, manyColourWebp, manyScanJpeg, noise, png, webpWithCostlyAlpha } from '../test/hostile/pictures.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    file: { type: 'string' },
    child: { type: 'string' },
    baseline: { type: 'boolean', default: false },
  },
});

interface ChildReport {
  accepted: boolean;
  message?: string;
  cpuSeconds: number;
  wallMs: number;
  maxRssKb: number;
}

/**
 * This process's peak RSS. Linux carries getrusage's maxRSS over exec, so a child's
 * process.resourceUsage().maxRSS starts at its parent's RSS at the fork (this parent holds the
 * 50-megapixel images it makes); VmHWM belongs to the address space exec made, so it is the
 * child's own.
 */
function peakRssKb(): number {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
  if (!hwm) throw new Error('no VmHWM in /proc/self/status: this script measures on Linux');
  return Number(hwm[1]);
}

/** The child: warm sharp up, then convert the file once (or nothing, for the baseline). */
async function child(file: string | undefined): Promise<void> {
  await encodePicture(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer());
  const report: ChildReport = { accepted: true, cpuSeconds: 0, wallMs: 0, maxRssKb: 0 };
  if (file) {
    const input = fs.readFileSync(file);
    const cpu = process.cpuUsage();
    const start = performance.now();
    try {
      await encodePicture(input, new ConversionGate(1, 0));
    } catch (err) {
      Object.assign(report, { accepted: false, message: err instanceof Error ? err.message : String(err) });
    }
    const used = process.cpuUsage(cpu);
    report.cpuSeconds = (used.user + used.system) / 1e6;
    report.wallMs = performance.now() - start;
  }
  report.maxRssKb = peakRssKb();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function spawnChild(file?: string): ChildReport {
  const flags = file ? ['--child', file] : ['--baseline'];
  const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, ...flags], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out) as ChildReport;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Case {
  name: string;
  make(): Promise<Buffer> | Buffer;
}

/** The side of the largest square within `megapixels`, and of the smallest square over it. */
const atCap = (megapixels: number): number => Math.floor(Math.sqrt(megapixels * 1e6));
const overCap = (megapixels: number): number => atCap(megapixels) + 1;
const mp = (side: number) => `${side}x${side}`;

/** For each cap, the costliest picture it lets through, and the same just over the cap. */
function cases(): Case[] {
  const both = (cap: PixelCap, name: string, make: (side: number) => Promise<Buffer> | Buffer): Case[] => [
    { name: `${name}, ${mp(atCap(PIXEL_CAPS[cap]))}`, make: () => make(atCap(PIXEL_CAPS[cap])) },
    { name: `${name}, ${mp(overCap(PIXEL_CAPS[cap]))}`, make: () => make(overCap(PIXEL_CAPS[cap])) },
  ];
  const square = (side: number) => ({ width: side, height: side });
  const eightMb = 8 * 1024 * 1024 - 64 * 1024;
  const flat = (side: number, alpha = false) =>
    sharp({ create: { width: side, height: side, channels: alpha ? 4 : 3, background: { r: 51, g: 102, b: 153, alpha: alpha ? 0.5 : 1 } } });
  return [
    ...both('jpeg', 'JPEG, flat', (side) => jpeg({ ...square(side), progressive: false })),
    { name: `JPEG, colour profile, ${mp(atCap(PIXEL_CAPS.jpeg))}`, make: () => flat(atCap(PIXEL_CAPS.jpeg)).withIccProfile('p3').jpeg().toBuffer() },
    { name: `JPEG, noise in 8 MB, ${mp(atCap(PIXEL_CAPS.jpeg))}`, make: () => jpeg({ ...square(atCap(PIXEL_CAPS.jpeg)), progressive: false, maxBytes: eightMb }) },
    ...both('progressive JPEG', 'progressive JPEG 4:4:4', (side) => jpeg({ ...square(side), progressive: true })),
    { name: `progressive JPEG 4:4:4, noise in 8 MB, ${mp(atCap(PIXEL_CAPS['progressive JPEG']))}`, make: () => jpeg({ ...square(atCap(PIXEL_CAPS['progressive JPEG'])), progressive: true, maxBytes: eightMb }) },
    ...both('progressive CMYK JPEG', 'progressive CMYK JPEG', (side) => jpeg({ ...square(side), progressive: true, cmyk: true })),
    { name: `progressive JPEG, ${MAX_SCANS} scans, ${mp(atCap(PIXEL_CAPS['progressive JPEG']))}`, make: () => manyScanJpeg(atCap(PIXEL_CAPS['progressive JPEG']), atCap(PIXEL_CAPS['progressive JPEG']), MAX_SCANS) },
    { name: `progressive JPEG, ${MAX_SCANS + 1} scans, ${mp(atCap(PIXEL_CAPS['progressive JPEG']))}`, make: () => manyScanJpeg(atCap(PIXEL_CAPS['progressive JPEG']), atCap(PIXEL_CAPS['progressive JPEG']), MAX_SCANS + 1) },
    ...both('png', 'PNG 8-bit RGBA', (side) => png({ ...square(side), depth: 8, alpha: true, interlaced: false })),
    ...both('PNG with a colour profile', 'PNG 8-bit RGBA, colour profile', (side) => png({ ...square(side), depth: 8, alpha: true, interlaced: false, profile: true })),
    ...both('16-bit PNG', 'PNG 16-bit RGBA, colour profile', (side) => png({ ...square(side), depth: 16, alpha: true, interlaced: false, profile: true })),
    ...both('interlaced PNG', 'interlaced PNG 8-bit RGBA, colour profile', (side) => png({ ...square(side), depth: 8, alpha: true, interlaced: true, profile: true })),
    ...both('interlaced 16-bit PNG', 'interlaced PNG 16-bit RGBA, colour profile', (side) => png({ ...square(side), depth: 16, alpha: true, interlaced: true, profile: true })),
    { name: 'interlaced PNG 16-bit RGB, 7000x7000 (issue 36)', make: () => png({ ...square(7000), depth: 16, alpha: false, interlaced: true }) },
    ...both('gif', 'GIF, 2 frames', (side) => animatedGif(side, 2)),
    { name: `GIF, 500 frames, ${mp(atCap(PIXEL_CAPS.gif))}`, make: () => animatedGif(atCap(PIXEL_CAPS.gif), 500) },
    ...both('webp', 'WebP lossy', (side) => flat(side).webp({ effort: 0 }).toBuffer()),
    { name: `WebP lossy, noise in 8 MB, ${mp(atCap(PIXEL_CAPS.webp))}`, make: () => largestUnder(eightMb, (quality) => noise(atCap(PIXEL_CAPS.webp), atCap(PIXEL_CAPS.webp), 4).webp({ quality, effort: 0 }).toBuffer()) },
    ...both('WebP with alpha', 'WebP lossy with alpha (as libwebp writes it)', (side) => manyColourWebp(side, side, { lossless: false, alpha: true })),
    ...both('WebP with alpha', 'WebP lossy with alpha decoded as 32-bit pixels', (side) => webpWithCostlyAlpha(side)),
    ...both('lossless WebP', 'WebP lossless, many colours', (side) => manyColourWebp(side, side, { lossless: true, alpha: true })),
    { name: `WebP animated, first frame of many colours, 100 frames, ${mp(atCap(PIXEL_CAPS['WebP with alpha']))}`, make: () => animatedWebp(atCap(PIXEL_CAPS['WebP with alpha']), 100) },
    { name: `WebP animated lossless, first frame of many colours, 200 frames, ${mp(atCap(PIXEL_CAPS['lossless WebP']))}`, make: () => animatedWebp(atCap(PIXEL_CAPS['lossless WebP']), 200, true) },
    { name: `WebP animated lossless, 2 frames, ${mp(overCap(PIXEL_CAPS['lossless WebP']))}`, make: () => animatedWebp(overCap(PIXEL_CAPS['lossless WebP']), 2, true) },
    ...both('avif', 'AVIF 8-bit with alpha, colour profile', (side) => flat(side, true).withIccProfile('p3').avif({ effort: 0 }).toBuffer()),
    ...both('avif', 'AVIF 12-bit with alpha, colour profile', (side) => flat(side, true).withIccProfile('p3').avif({ effort: 0, bitdepth: 12 }).toBuffer()),
    { name: `AVIF 8-bit, noise with alpha in ${MAX_BYTES.avif / MB} MB, ${mp(atCap(PIXEL_CAPS.avif))}`, make: () => noisyAvif(atCap(PIXEL_CAPS.avif), 8, MAX_BYTES.avif) },
    { name: `AVIF 12-bit, noise with alpha in ${MAX_BYTES.avif / MB} MB, ${mp(atCap(PIXEL_CAPS.avif))}`, make: () => noisyAvif(atCap(PIXEL_CAPS.avif), 12, MAX_BYTES.avif) },
    { name: `AVIF 8-bit, noise with alpha, just over ${MAX_BYTES.avif / MB} MB, ${mp(atCap(PIXEL_CAPS.avif))}`, make: () => noisyAvif(atCap(PIXEL_CAPS.avif), 8, MAX_BYTES.avif, true) },
  ];
}

const MB = 1024 * 1024;

/** Noise with a noisy alpha, as AVIF: the largest that fits in `maxBytes`, or (`over`) the smallest above it. */
async function noisyAvif(side: number, bitdepth: 8 | 12, maxBytes: number, over = false): Promise<Buffer> {
  const encode = (quality: number) => noise(side, side, 1, 4).avif({ quality, effort: 0, bitdepth }).toBuffer();
  if (!over) return largestUnder(maxBytes, encode);
  for (let quality = 10; quality <= 100; quality += 5) {
    const out = await encode(quality);
    if (out.length > maxBytes) return out;
  }
  throw new Error(`no quality makes ${side}x${side} noise larger than ${maxBytes} bytes`);
}

function measure(file: string, runs: number, baselineKb: number) {
  const reports = Array.from({ length: runs }, () => spawnChild(file));
  return {
    accepted: reports[0]!.accepted,
    message: reports[0]!.message,
    cpuSeconds: median(reports.map((r) => r.cpuSeconds)),
    wallMs: median(reports.map((r) => r.wallMs)),
    rssMb: median(reports.map((r) => (r.maxRssKb - baselineKb) / 1024)),
  };
}

async function main(): Promise<void> {
  if (args.child !== undefined || args.baseline) return child(args.child);
  const runs = Number(args.runs);
  const baselineKb = median(Array.from({ length: runs }, () => spawnChild().maxRssKb));
  process.stderr.write(`baseline (sharp loaded and warm): ${(baselineKb / 1024).toFixed(1)} MB peak RSS\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'picture-cost-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const selected: Case[] = args.file
    ? [{ name: path.basename(args.file), make: () => fs.readFileSync(args.file!) }]
    : cases().filter((c) => !args.only || c.name.includes(args.only));
  const budget = `${COST_BUDGET.cpuSeconds} s CPU, ${COST_BUDGET.memoryMb} MB`;
  const lines = ['| case | file size | outcome | CPU s | peak RSS MB | wall ms |', '|---|---:|---|---:|---:|---:|'];
  let over = 0;
  for (const c of selected) {
    const file = path.join(dir, 'input');
    const input = await c.make();
    fs.writeFileSync(file, input);
    const m = measure(file, runs, baselineKb);
    const within = m.cpuSeconds <= COST_BUDGET.cpuSeconds && m.rssMb <= COST_BUDGET.memoryMb;
    if (m.accepted && !within) over += 1;
    const outcome = m.accepted ? (within ? 'accepted' : `**accepted, over ${budget}**`) : `refused: ${m.message}`;
    const size = input.length >= 1 << 20 ? `${(input.length / (1 << 20)).toFixed(1)} MB` : `${Math.ceil(input.length / 1024)} KB`;
    const line = `| ${c.name} | ${size} | ${outcome} | ${m.cpuSeconds.toFixed(2)} | ${Math.max(0, m.rssMb).toFixed(0)} | ${m.wallMs.toFixed(0)} |`;
    lines.push(line);
    process.stderr.write(`${line}\n`);
  }
  process.stdout.write(`\n${lines.join('\n')}\n\nBudget per upload: ${budget}. ${over === 0 ? 'Every accepted case is within it.' : `${over} accepted case(s) over it.`}\n`);
  if (over > 0) process.exitCode = 1;
}

await main();
