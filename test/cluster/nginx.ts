/**
 * Debian's nginx as the load balancer of the cluster test, run as a child of the test with its own
 * prefix under a temporary folder. Its `http` block is the configuration docs/operations.md
 * (#load-balancer-nginx) shows an operator; `reload()` rewrites the upstream list (an instance marked `down`
 * gets no new requests) and waits until the workers of the old configuration have exited, so
 * nothing is still being sent to a drained instance when it is stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const NGINX_PATH = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `http` block: what an operator puts in front of the instances (docs/operations.md#load-balancer-nginx). */
function httpBlock(listenPort: number, upstreams: { port: number; down: boolean }[]): string {
  const servers = upstreams.map((u) => `    server 127.0.0.1:${u.port} max_fails=1 fail_timeout=5s${u.down ? ' down' : ''};`).join('\n');
  return `
  upstream idp {
${servers}
  }
  # The longest request line and header the service accepts (PUBLIC_URL?return_to=... up to 112 KiB,
  # 128 KiB of headers), and the largest body: a picture of 8 MB plus its multipart framing.
  large_client_header_buffers 4 128k;
  client_max_body_size 9m;
  server {
    listen 127.0.0.1:${listenPort};
    location / {
      proxy_pass http://idp;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # A request that could not be delivered (connection refused, reset before an answer) goes to
      # the next instance; nginx never resends a POST once it reached an instance.
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
      add_header X-Upstream $upstream_addr always;
    }
  }`;
}

export class Nginx {
  private child: ChildProcess | undefined;
  private readonly conf: string;
  private readonly upstreams: { port: number; down: boolean }[];
  stderr = '';

  constructor(
    private readonly dir: string,
    readonly port: number,
    instancePorts: number[],
  ) {
    this.conf = path.join(dir, 'nginx.conf');
    this.upstreams = instancePorts.map((p) => ({ port: p, down: false }));
    for (const sub of ['logs', 'client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
    // Run as root, nginx's workers become `nobody`: they write uploads' bodies to these folders.
    fs.chmodSync(dir, 0o755);
    for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.chmodSync(path.join(dir, sub), 0o777);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private write(): void {
    const d = this.dir;
    fs.writeFileSync(
      this.conf,
      `daemon off;
master_process on;
worker_processes 1;
pid ${d}/nginx.pid;
error_log ${d}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${d}/client_body;
  proxy_temp_path ${d}/proxy;
  fastcgi_temp_path ${d}/fastcgi;
  uwsgi_temp_path ${d}/uwsgi;
  scgi_temp_path ${d}/scgi;
${httpBlock(this.port, this.upstreams)}
}
`,
    );
  }

  async start(): Promise<void> {
    this.write();
    const child = spawn(NGINX_PATH, ['-p', this.dir, '-c', this.conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${this.stderr}`);
      const up = await fetch(`${this.url}/healthz`).then(
        async (res) => (await res.arrayBuffer(), true),
        () => false,
      );
      if (up) return;
      if (Date.now() > deadline) throw new Error(`nginx did not answer on ${this.url}: ${this.stderr}`);
      await sleep(50);
    }
  }

  /** The worker processes of the master (children in /proc). */
  private workers(): number[] {
    const master = this.child!.pid!;
    const pids: number[] = [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === master) pids.push(Number(entry));
      } catch {
        // The process ended while the list was read.
      }
    }
    return pids;
  }

  /**
   * Marks the instance on `port` down (or up again) and reloads: resolves once only the new
   * configuration's worker is left, i.e. every request the old workers had taken has been answered.
   */
  async setDown(port: number, down: boolean): Promise<void> {
    this.upstreams.find((u) => u.port === port)!.down = down;
    this.write();
    const before = this.workers();
    this.child!.kill('SIGHUP');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = this.workers();
      if (now.length === 1 && !before.includes(now[0]!)) return;
      if (Date.now() > deadline) throw new Error(`nginx did not finish reloading: workers ${now.join(',')} (before: ${before.join(',')})\n${this.stderr}`);
      await sleep(20);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGQUIT');
    await exited;
  }
}
