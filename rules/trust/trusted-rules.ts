import { realKey, trustRecords } from './store.js';

/** What a person trusted: the rules file's content and every module inside the workspace it imports, by hash. */
export interface RulesFingerprint {
  /** sha256 of the rules file. */
  hash: string;
  /** Absolute path → sha256 of each workspace module the file imports (its own `./helper.mjs`, packages in the repo's `node_modules`). */
  modules: Record<string, string>;
}

/** One trusted rules file, as `rein trust --list` prints it. */
interface TrustedRulesFile extends RulesFingerprint {
  file: string;
  trustedAt: string;
}

/** Trusted rules files by real path, one JSON file each in the user's state dir. */
const trusted = trustRecords<TrustedRulesFile>('trustedRules');

/** The folder in the user's state dir that holds the records (one JSON file per rules file); a person may read, edit or delete them. */
export function trustedRulesPath(): string {
  return trusted.dir;
}

/**
 * Whether a person trusted this rules file exactly as it is: the same content and the same workspace modules with
 * the same content (a module added, removed or changed makes it untrusted again).
 *
 * @example isTrustedRulesFile('/w/repo/rein.config.mjs', fingerprintRules(...)) // false until `rein trust /w/repo`
 */
export function isTrustedRulesFile(file: string, now: RulesFingerprint): boolean {
  const record = trusted.get(realKey(file));
  return record !== undefined && sameFingerprint(record, now);
}

/** Whether two fingerprints name the same file content and the same modules with the same content. */
export function sameFingerprint(a: RulesFingerprint, b: RulesFingerprint): boolean {
  if (a.hash !== b.hash) return false;
  const names = Object.keys(a.modules ?? {});
  return names.length === Object.keys(b.modules ?? {}).length && names.every((name) => a.modules[name] === b.modules[name]);
}

/** `rein trust`: records the rules file as it is now. */
export function trustRulesFile(file: string, fingerprint: RulesFingerprint): void {
  const key = realKey(file);
  trusted.put(key, key, { file: key, trustedAt: new Date().toISOString(), hash: fingerprint.hash, modules: fingerprint.modules });
}

/** `rein trust --revoke`: forgets the records of this file, or of every file under this folder. Returns the files forgotten. */
export function revokeRulesFiles(fileOrFolder: string): string[] {
  const gone = trusted
    .list()
    .map(({ key }) => key)
    .filter((file) => file === fileOrFolder || file.startsWith(`${fileOrFolder.replace(/\/$/, '')}/`));
  for (const file of gone) trusted.remove(file);
  return gone;
}

/** `rein trust --list`: every trusted rules file. */
export function listTrustedRulesFiles(): TrustedRulesFile[] {
  return trusted.list().map(({ value }) => value);
}
