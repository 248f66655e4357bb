/**
 * Child process: time encodePicture on one input file and report the peak RSS growth.
 * Usage: picture-convert.ts <file> <runs>. Prints one JSON line.
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { encodePicture } from '../../src/pictures/images.js';

function statusKb(field: string): number {
  const line = fs.readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(line?.replace(/\D+/g, '') ?? 0);
}

const [file, runsArg] = process.argv.slice(2);
const input = fs.readFileSync(file!);
// Warm sharp up on a tiny image so the first real run is not charged with library start-up.
await encodePicture(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer());
const rssBeforeKb = statusKb('VmRSS');
const times: number[] = [];
for (let i = 0; i < Number(runsArg ?? 3); i++) {
  const start = process.hrtime.bigint();
  await encodePicture(input);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const peakKb = statusKb('VmHWM');
times.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({ medianMs: times[Math.floor(times.length / 2)], minMs: times[0], peakRssGrowthMb: Math.max(0, peakKb - rssBeforeKb) / 1024 })}\n`,
);
