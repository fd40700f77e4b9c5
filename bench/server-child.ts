/**
 * Entry point of a server under test, run in its own process (bench/child.ts forks it) so the
 * load generator's CPU and memory are never the server's. argv[2] is a JSON `ChildConfig`.
 * It answers the parent's requests over IPC: CPU used so far, RSS now, and the peak RSS
 * between `rss-begin` and `rss-end` (sampled every 20 ms, and the kernel's VmHWM).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/host/app';
import type { Profile } from '../src/host/profile';
import { handWrittenServer } from './hand-written-server';
import type { Kind } from './servers';

export type ChildConfig = { role: 'host'; profile: Profile } | { role: 'hand'; kind: Kind; table: string };

export interface ChildRequest {
  id: number;
  type: 'cpu' | 'rss' | 'rss-begin' | 'rss-end' | 'stop';
}

export interface CpuReply {
  user: number;
  system: number;
}

export interface RssReply {
  /** RSS now, bytes. */
  rss: number;
  /** Highest RSS sampled since `rss-begin`, bytes. */
  sampledPeak?: number;
  /** The kernel's peak RSS since `rss-begin` (VmHWM after a reset), bytes; undefined where /proc cannot say. */
  hwm?: number;
}

interface Server {
  port: number;
  stop(): Promise<void>;
}

async function startServer(config: ChildConfig): Promise<Server> {
  if (config.role === 'host') {
    const app = createApp(config.profile);
    await app.start({ port: 0, host: '127.0.0.1' });
    return { port: app.address()!.port, stop: () => app.stop() };
  }
  const server = handWrittenServer(config.kind, config.table);
  await server.listen({ port: 0, host: '127.0.0.1' });
  return { port: (server.server.address() as AddressInfo).port, stop: () => server.close() };
}

/** Resets the kernel's peak-RSS mark of this process (Linux ≥ 4.0); false where unavailable. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function kernelPeak(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]) as ChildConfig;
  const server = await startServer(config);
  const send = (message: unknown): void => void process.send!(message);
  let sampler: NodeJS.Timeout | undefined;
  let sampledPeak = 0;
  let peakReset = false;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      if (sampler) clearInterval(sampler);
      await server.stop();
    })());

  process.on('message', (request: ChildRequest) => {
    const reply = (body: object): void => send({ id: request.id, ...body });
    switch (request.type) {
      case 'cpu': {
        const { user, system } = process.cpuUsage();
        return reply({ user, system } satisfies CpuReply);
      }
      case 'rss':
        return reply({ rss: process.memoryUsage.rss() } satisfies RssReply);
      case 'rss-begin': {
        if (sampler) clearInterval(sampler);
        peakReset = resetPeak();
        sampledPeak = process.memoryUsage.rss();
        sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss())), 20);
        return reply({ rss: sampledPeak } satisfies RssReply);
      }
      case 'rss-end': {
        if (sampler) clearInterval(sampler);
        sampler = undefined;
        const rss = process.memoryUsage.rss();
        sampledPeak = Math.max(sampledPeak, rss);
        return reply({ rss, sampledPeak, hwm: peakReset ? kernelPeak() : undefined } satisfies RssReply);
      }
      case 'stop':
        return void stop().then(
          () => {
            reply({ stopped: true });
            process.disconnect();
          },
          (error: unknown) => reply({ error: String(error) }),
        );
    }
  });
  // The parent gone (or crashed), nothing is left to serve.
  process.once('disconnect', () => void stop().finally(() => process.exit(0)));
  send({ ready: true, port: server.port });
}

main().catch((error: unknown) => {
  console.error('server child:', error);
  process.exit(1);
});
