import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTool } from '../../../tools/run.js';
import { describeSandbox, resolveSandbox } from '../../../tools/sandbox/launch/bubblewrap.js';
import type { CommandPolicy } from '../../../tools/types.js';
import { processesWithArgument, uniqueMarker } from '../../helpers/processes.js';
import { makeContext, makeTempDir } from '../../helpers/workspace.js';

const hasBwrap = resolveSandbox({ sandbox: 'auto', network: false }).kind === 'bwrap';

const run = (root: string, command: string, policy: Partial<CommandPolicy> = {}) =>
  runTool.execute({ command }, makeContext(root, { policy: { sandbox: 'bwrap', ...policy } }));

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A TCP server on 127.0.0.1 that accepts and closes connections; resolves to its port. */
async function listenLocally(): Promise<number> {
  const server = net.createServer((socket) => socket.end());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const connect = (port: number) => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;

describe('resolveSandbox', () => {
  it('honours sandbox: none and says that commands can read the whole disk, and how to require the sandbox', () => {
    const mode = resolveSandbox({ sandbox: 'none', network: false });
    expect(mode).toEqual({ kind: 'none', reason: 'the rules set sandbox: none' });
    expect(describeSandbox(mode)).toBe(
      'commands run unsandboxed and can read the whole disk (the rules set sandbox: none); set permissions.sandbox: "bwrap" to require the sandbox',
    );
  });
});

describe('bubblewrap sandbox', () => {
  it('is usable on this machine (Debian bubblewrap; .ci/run installs it)', () => {
    expect(hasBwrap, 'bubblewrap (bwrap) is missing or cannot create namespaces here').toBe(true);
  });

  it('keeps the harness state in .rein read-only for commands', async () => {
    const root = makeTempDir();
    fs.mkdirSync(path.join(root, '.rein', 'runs'), { recursive: true });
    fs.writeFileSync(path.join(root, '.rein', 'progress.json'), '{"todo":[]}');
    const result = await run(root, 'echo forged > .rein/progress.json; rm -rf .rein/runs; echo ok > mine.txt; echo done');
    expect(result.content).toContain('done');
    expect(fs.readFileSync(path.join(root, '.rein', 'progress.json'), 'utf8')).toBe('{"todo":[]}');
    expect(fs.existsSync(path.join(root, '.rein', 'runs'))).toBe(true);
    expect(fs.readFileSync(path.join(root, 'mine.txt'), 'utf8')).toBe('ok\n');
  });

  it('keeps root inside the sandbox without capabilities: no remounting / read-write, no overwriting the rules file', async () => {
    const root = makeTempDir();
    fs.writeFileSync(path.join(root, 'rein.config.json'), '{}');
    const name = `/etc/rein-remount-${process.pid}`;
    const result = await run(
      root,
      `grep CapEff /proc/self/status; mount -o remount,bind,rw / && echo ${'REMOUNTED'} > ${name}; echo '{"permissions":{"sandbox":"none"}}' > rein.config.json; echo done`,
    );
    expect(result.content).toContain('CapEff:\t0000000000000000');
    expect(result.content).toContain('done');
    expect(fs.existsSync(name)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'rein.config.json'), 'utf8')).toBe('{}');
  });

  it('keeps a rules file given with --config read-only too, wherever it is in the workspace', async () => {
    const root = makeTempDir();
    fs.mkdirSync(path.join(root, 'cfg'));
    fs.writeFileSync(path.join(root, 'cfg', 'rules.mjs'), 'export default {};\n');
    const result = await runTool.execute(
      { command: 'echo "// planted" >> cfg/rules.mjs; echo done' },
      makeContext(root, { policy: { sandbox: 'bwrap' }, protectedFiles: [path.join(root, 'cfg', 'rules.mjs')] }),
    );
    expect(result.content).toContain('Read-only file system');
    expect(fs.readFileSync(path.join(root, 'cfg', 'rules.mjs'), 'utf8')).toBe('export default {};\n');
  });

  it('makes the system read-only but the workspace writable', async () => {
    const root = makeTempDir();
    const name = `/etc/rein-test-${process.pid}`;
    const outside = await run(root, `touch ${name}`);
    expect(outside.content).toMatch(/^exit=1\ntouch: cannot touch .*Read-only file system/);
    expect(fs.existsSync(name)).toBe(false);
    const inside = await run(root, 'echo made > made.txt && cat made.txt');
    expect(inside.content).toBe('exit=0\nmade\n');
    expect(fs.readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('gives commands a private /tmp that hides other temp dirs', async () => {
    const root = makeTempDir();
    const neighbour = makeTempDir();
    fs.writeFileSync(path.join(neighbour, 'secret.txt'), 'secret');
    const result = await run(root, `cat ${neighbour}/secret.txt; echo inside > /tmp/rein-inside-${process.pid}; echo done`);
    expect(result.content).toMatch(/No such file or directory\ndone\n$/);
    expect(fs.existsSync(`/tmp/rein-inside-${process.pid}`)).toBe(false);
  });

  it('has no network unless the policy allows it', async () => {
    const root = makeTempDir();
    const port = await listenLocally();
    const offline = await run(root, connect(port));
    expect(offline.content).toMatch(/^exit=1\n.*Connection refused/);
    const online = await run(root, connect(port), { network: true });
    expect(online.content).toBe('exit=0\nconnected\n');
  });

  it('kills everything inside the sandbox on timeout', async () => {
    const root = makeTempDir();
    const marker = uniqueMarker();
    const result = await run(root, `sleep ${marker} & sleep ${marker}`, { timeoutSeconds: 1 });
    expect(result.content).toBe('exit=timeout after 1s (process group killed)\n');
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('still filters the environment', async () => {
    process.env.OPENAI_API_KEY = 'sk-sandboxed-must-not-leak';
    try {
      const result = await run(makeTempDir(), 'env');
      expect(result.content).not.toContain('must-not-leak');
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('describes itself for the CLI', () => {
    expect(describeSandbox(resolveSandbox({ sandbox: 'auto', network: false }))).toBe(
      'commands run in a bubblewrap sandbox (read-only system, writable workspace, private /tmp, network off)',
    );
  });
});

describe('sandbox: none', () => {
  it('really runs unsandboxed: shared /tmp, writes outside the workspace, network', async () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    const port = await listenLocally();
    const result = await run(root, `echo out > ${outside}/written.txt && ${connect(port)}`, { sandbox: 'none' });
    expect(result.content).toBe('exit=0\nconnected\n');
    expect(fs.readFileSync(path.join(outside, 'written.txt'), 'utf8')).toBe('out\n');
  });
});
