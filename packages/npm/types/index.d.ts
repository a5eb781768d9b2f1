// The API of delegateos-vectors (hand-written; the vector file types in ./vector.d.ts are
// generated from spec/schemas/vector.schema.json).

import type { Case, Expectation, Level, VectorFile } from './vector.js';

export type * from './vector.js';

/** A case with the facts of its file. */
export interface CorpusCase extends Case {
  area: string;
  group: string;
  /** Path of its file relative to the corpus root, e.g. `glob/match.json`. */
  file: string;
  /** True for a case of a stateful group (run in file order, then replayed). */
  stateful: boolean;
  /** True for an advisory (neighbour-profile) case. */
  advisory: boolean;
}

/** What an implementation answered: the adapter reply's shape without `seq`. */
export type Actual =
  | { outcome: 'ok'; output: unknown }
  | { outcome: 'error'; code: string; detail?: string }
  | { outcome: 'skipped'; reason?: string }
  /** The implementation threw on this input (an exception it should never raise): status `errored`, graded as a crash on the input. */
  | { outcome: 'threw'; message?: string }
  | { outcome: 'errored'; message?: string; kind?: 'timeout' };

/** An option (spec/adapter-protocol.md §2.1): a behaviour the corpus tests beyond the text's required ones. */
export type OptionName = 'strict-mode' | 'per-tool-spend';

export type FailureKind = 'accepted_invalid' | 'rejected_valid' | 'wrong_code' | 'output_mismatch' | 'no_answer';

/** The verdict on one case (the Rust judge's `Verdict`). */
export type Verdict =
  | { verdict: 'passed' }
  | { verdict: 'acceptable'; matched: number }
  | { verdict: 'other_code'; family: string; expectedCode: string; actualCode: string }
  | { verdict: 'failed'; kind: FailureKind; expected: Expectation; actual: Actual };

/** A status as `delegateos-conform run` reports it (before an expected-failures baseline). */
export type Status = 'passed' | 'acceptable' | 'failed' | 'other_code' | 'skipped' | 'errored';

export interface Filter {
  area?: string | string[];
  op?: string | string[];
  level?: Level | Level[];
  /** Include the advisory cases (as `run --profile strict`). Default false. */
  advisory?: boolean;
}

export interface CodeFamily {
  name: string;
  codes: string[];
  ops: string[];
  stages: string[];
  onlyFlag: string | null;
}

export interface Manifest {
  corpusVersion: string;
  digestAlgorithm: 'blake2b-256';
  digest: string;
  cases: number;
  casesByArea: Record<string, Partial<Record<Level, number>>>;
  casesByLevel: Partial<Record<Level, number>>;
  files: { path: string; cases: number }[];
}

/** An implementation: one function per op name (`'glob.match'`, …) returning an Actual. */
export type Implementation = { [op: string]: (input: Record<string, unknown>) => Actual };

export interface CaseResult {
  case: CorpusCase;
  actual: Actual;
  /** Null for skipped, threw and errored answers. */
  verdict: Verdict | null;
  status: Status;
  /** True when the first run in a stateful group held and the replay did not. */
  replay: boolean;
}

/** Options of `runCorpus` / `answer`. */
export interface RunOptions {
  /**
   * The options the implementation has (the names of `hello.options`; `OPTIONS` lists them all).
   * A case that needs another is `skipped` with "needs option X", never a finding. Default none;
   * an unknown name throws.
   */
  options?: readonly OptionName[];
  /**
   * The budget of each call in milliseconds (default 10 000, or the DELEGATEOS_TIMEOUT_MS
   * environment variable; 0 = none). A call still running then is terminated and the case is
   * `errored` with `actual.kind === 'timeout'` and a message naming the case.
   */
  timeoutMs?: number;
  /** No progress lines on stderr (also DELEGATEOS_QUIET=1). */
  quiet?: boolean;
  /** Where progress lines (one every 5 s on long runs) go instead of stderr. */
  progress?: (line: string) => void;
  /** How often a progress line is written, in ms (default 5000). */
  progressEveryMs?: number;
}

export const manifest: Manifest;
/** The default per-case budget, 10 000 ms. */
export const DEFAULT_TIMEOUT_MS: number;
export const corpusVersion: string;
/** BLAKE2b-256 (hex) of the corpus: `delegateos_vectors::corpus::embedded_digest()`. */
export const digest: string;
export const FLOAT_TOLERANCE: number;
/** Every option, in the order `hello.options` lists them. */
export const OPTIONS: readonly OptionName[];

export function cases(filter?: Filter): CorpusCase[];
export function caseById(id: string): CorpusCase | undefined;
export function vectorFiles(): { path: string; file: VectorFile }[];
export function codeFamilies(): CodeFamily[];
/** Judges `actual` for case `c` exactly as `delegateos-conform run` does. */
export function judge(c: Case, actual: Actual): Verdict;
/** Judges against the expectation only, without code families. */
export function judgeExpectation(expect: Expectation, actual: Actual): Verdict;
/** Judges against the reference reading only: for an acceptable expectation, its first outcome. */
export function judgeReference(expect: Expectation, actual: Actual): Verdict;
export function isSuccess(v: Verdict): boolean;
/**
 * Whether the verdict fails a run, as `run`'s exit code counts it (the rule tabled in
 * spec/data/exit-rule.json). `critical`: the failure's effect is critical (it then fails
 * whatever the case's level, unless `levelsOnly`); given a `CaseResult`, a timeout (a hang) or
 * a throw (a crash) counts as critical when `critical` is not given and the case's stake grades
 * it `crash-or-hang`.
 */
export function fails(
  c: Pick<CorpusCase, 'level'> & { advisory?: boolean; stake?: { crashOrHang?: string } },
  v: Verdict | Status | CaseResult,
  options?: {
    failOnHardening?: boolean;
    strict?: boolean;
    levelsOnly?: boolean;
    failOnAdvisory?: boolean;
    critical?: boolean;
  },
): boolean;
export function jsonEqual(a: unknown, b: unknown): boolean;
/** JSON.parse that keeps integers beyond 2^53 (within 64 bits) as BigInt. */
export function parseJson(text: string): unknown;
export function ok(output: unknown): Actual;
export function error(code: string, detail?: string): Actual;
export function answer(impl: Implementation, c: Case, options?: Pick<RunOptions, 'timeoutMs' | 'options'>): Actual;
export function statusOf(actual: Actual, verdict: Verdict | Record<string, never>): Status;
export function runCorpus(
  makeImpl: Implementation | (() => Implementation),
  filter?: Filter | CorpusCase[],
  options?: RunOptions,
): CaseResult[];
export function verifyDigest(): boolean;
