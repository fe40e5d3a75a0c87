/**
 * Trust: what rein lets a workspace bring, and what it lets a person decide, judged in this one module and recorded in
 * one store (store.ts, the user's state dir). One vocabulary throughout:
 *
 * - **trusted**: a person decided, for exactly this content, that rein may use it as it is: a rules file and the
 *   modules it imports (`rein trust`), a repository's hooks (`rein rules trust-hooks`), a remembered approval.
 * - **untrusted**: from a workspace and not trusted: a rules file is read as data and may only narrow the rules
 *   (loosening-rules.ts); a rules module, hooks, or a rules file a run wrote (rules-watch.ts) are not used at all.
 * - **written by rein**: a file rein itself put in a workspace or run directory (run.json, progress.json), used again
 *   only while it is exactly what rein wrote (written-by-rein.ts).
 *
 * @example if (!isTrustedRulesFile(file, await fingerprintRules(file, workspace))) refuse();
 */
export { checkHooksTrusted, listTrustedHooks, revokeHooks, trustHooks } from './hooks-trust.js';
export { FREE_SECTIONS, LOOSENING_RULES, looseningsOf } from './loosening-rules.js';
export { isTrustedMcpConfig, listTrustedMcpConfigs, mcpConfigHash, revokeMcpConfigs, trustMcpConfig } from './mcp-config-trust.js';
export { forgetRemembered, listRemembered, rememberedForRepository, rememberForRepository } from './remembered-approvals.js';
export { fingerprintRules, isCodeRulesFile } from './rules-fingerprint.js';
export { beginRulesWatch, clearUntrustedMarks, endRulesWatch, isUntrusted, rulesFilesIn } from './rules-watch.js';
export { checkStoreOutside, TRUST_KINDS } from './store.js';
export {
  isTrustedRulesFile,
  listTrustedRulesFiles,
  type RulesFingerprint,
  revokeRulesFiles,
  sameFingerprint,
  trustedRulesPath,
  trustRulesFile,
} from './trusted-rules.js';
export { isRecordedRunMeta, isWrittenProgress, recordRunMeta, recordWrittenProgress } from './written-by-rein.js';
