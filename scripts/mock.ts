/**
 * `npm run mock [-- --port 4010] [-- -d]`: Prism's mock of openapi.yaml, plus real WebP pictures.
 *
 * Prism answers every operation from the contract (validation, examples, `Prefer: code=` and
 * `Prefer: example=`, dynamic mode). It cannot answer with a binary body: it writes example
 * strings as UTF-8, so every byte >= 0x80 of an image would be mangled, and without an example it
 * sends the text `string`. So this script runs Prism on an internal port and sits in front of it:
 * every request goes to Prism unchanged, and only a 200 `image/webp` answer for a picture address
 * gets its body replaced by a real WebP of the requested size (the default picture the service
 * draws for that user id). Status, headers and every other answer are Prism's.
 *
 * Options: --port (4010), --host (127.0.0.1); anything else is passed to Prism (`-d`, `--errors`).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { DefaultPictures } from '../src/pictures/defaults.js';
import { isSize } from '../src/pictures/images.js';
import { freePort } from './free-port.js';

const root = path.resolve(import.meta.dirname, '..');
const PICTURE = /^\/pfp\/([a-z]+)\/([1-9][0-9]{0,15})(?:-[0-9]{1,16})?\.webp$/;

function parseArgs(argv: string[]): { port: number; host: string; prismArgs: string[] } {
  let port = 4010;
  let host = '127.0.0.1';
  const prismArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--port' || arg === '-p') port = Number(argv[++i]);
    else if (arg === '--host' || arg === '-h') host = argv[++i]!;
    else prismArgs.push(arg);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be 0-65535');
  return { port, host, prismArgs };
}

const { port, host, prismArgs } = parseArgs(process.argv.slice(2));
const prismPort = await freePort();
// --cors false: Prism would otherwise add its own CORS headers to every answer, the token
// endpoint's included; without them the mock sends the CORS headers the contract declares.
const prism = spawn(
  path.join(root, 'node_modules/.bin/prism'),
  ['mock', path.join(root, 'openapi.yaml'), '--port', String(prismPort), '--host', '127.0.0.1', '--cors', 'false', ...prismArgs],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
);
prism.once('exit', (code) => {
  process.stderr.write(`prism exited with ${code}\n`);
  process.exit(code ?? 1);
});
await new Promise<void>((resolve) => {
  let seen = '';
  prism.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    seen += chunk.toString();
    if (seen.includes('Prism is listening')) resolve();
  });
});

const pictures = new DefaultPictures();

const server = http.createServer((req, res) => {
  const upstream = http.request(
    { host: '127.0.0.1', port: prismPort, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${prismPort}` } },
    (answer) => {
      const match = PICTURE.exec(new URL(req.url ?? '/', 'http://mock').pathname);
      const isWebp = answer.statusCode === 200 && (answer.headers['content-type'] ?? '').startsWith('image/webp');
      if (!match || !isWebp || !isSize(match[1]!)) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      answer.resume();
      answer.once('end', () => {
        pictures
          .get(Number(match[2]), match[1] as Parameters<DefaultPictures['get']>[1])
          .then((image) => {
            res.writeHead(200, { ...answer.headers, 'content-length': String(image.length) });
            res.end(req.method === 'HEAD' ? undefined : image);
          })
          .catch((err: unknown) => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ message: `mock could not draw the picture: ${String(err)}` }));
          });
      });
    },
  );
  upstream.once('error', (err) => {
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `Prism did not answer: ${err.message}` }));
  });
  req.pipe(upstream);
});

server.listen(port, host, () => {
  const { port: actual } = server.address() as net.AddressInfo;
  process.stdout.write(`Mock is listening on http://${host}:${actual} (Prism, with real WebP pictures)\n`);
});

function stop(): void {
  server.close();
  prism.removeAllListeners('exit');
  prism.once('exit', () => process.exit(0));
  prism.kill('SIGTERM');
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
