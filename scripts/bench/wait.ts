/** Polling helpers shared by the benchmark's process starters. */

/** Resolves once `check` answers true; throws after `seconds`. */
export async function until(check: () => Promise<boolean>, seconds: number, what: string): Promise<void> {
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: timed out after ${seconds} s`);
}

/** Resolves once `url` answers with a status below 500 (the server is up). */
export function waitForUrl(url: string, seconds: number): Promise<void> {
  return until(
    async () => {
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        return res.status < 500;
      } catch {
        return false; // not up yet
      }
    },
    seconds,
    `${url} did not come up`,
  );
}
