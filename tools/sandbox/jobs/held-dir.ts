import fs from 'node:fs';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;

/** A directory the harness opened once: names are looked up in it, never through the path it had when opened. */
interface HeldDir {
  readonly fd: number;
  /** A path naming `name` inside the held directory (openat semantics through `/proc/self/fd`). */
  at(name: string): string;
  /** Where the directory is now, as the kernel sees it. */
  where(): string;
  close(): void;
}

/**
 * Opens a directory without following a symlink at its last component and
 * keeps the descriptor, so a folder the sandbox can write cannot be swapped
 * for a link to somewhere else between two uses: Node has no `openat`, and
 * `/proc/self/fd/<fd>/<name>` resolves `name` in the directory the fd holds.
 *
 * @example const dir = openHeldDir(logs); fs.openSync(dir.at('1.log'), flags); dir.close();
 */
export function openHeldDir(dir: string): HeldDir {
  const fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  return {
    fd,
    at: (name: string) => {
      if (name.includes('/') || name === '.' || name === '..' || name === '') throw new Error(`not a plain file name: ${JSON.stringify(name)}`);
      return `/proc/self/fd/${fd}/${name}`;
    },
    where: () => fs.readlinkSync(`/proc/self/fd/${fd}`),
    close: () => fs.closeSync(fd),
  };
}
