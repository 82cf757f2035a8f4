/**
 * The vocabulary of checks. A check is a plain async function registered under a stable id
 * that names the property it verifies, with the requirement ids it can fail. It never throws
 * for a conformance problem: it records findings, each with its evidence.
 */
import type { RequirementId } from '../spec/requirements.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import type { Rule } from '../generators/labelled.ts';
import type { HttpClient, Exchange } from '../transport/client.ts';

export interface TargetConfig {
  baseURL: string;
  token: string;
  counterpartyRef: string;
  writableRef: string | undefined;
  /** The account the deployment accepts (inner identifier fields are not shown in the document). */
  accountFixture: AccountFixture | undefined;
  /** The most accounts the suite may add to the writable counterparty in one run (default 40). */
  accountBudget?: number;
  seed: number;
  runs: number;
}

/** One piece of evidence that a requirement is broken. */
export interface Finding {
  requirement: RequirementId;
  /** One line: what went wrong. */
  message: string;
  expected: string;
  received: string;
  /** The (shrunk) generated input that shows it, where the input was generated. */
  input?: unknown;
  /** The rule the input was built to keep or break. */
  rule?: Rule;
  /** Seed and path that replay the property run that found it. */
  seed?: number;
  path?: string;
  /** The request that shows it, token redacted, and a curl command reproducing it. */
  request?: { method: string; url: string; headers: Record<string, string>; body?: string };
  curl?: string;
}

export interface CheckOutcome {
  check: string;
  title: string;
  requirements: RequirementId[];
  status: 'ran' | 'skipped';
  skipReason?: string;
  findings: Finding[];
  /** Requirements this check found not applicable (e.g. no Sunset header was sent). */
  notApplicable: { requirement: RequirementId; reason: string }[];
  requests: number;
  notes: string[];
  durationMs: number;
  /**
   * Set when the check could not complete: one line saying why (the target unreachable or
   * rate-limited, the run's request or time budget spent, or an error). Findings recorded before
   * are kept; the requirements it covers are judged only by what it saw before it stopped.
   */
  incomplete?: string;
}

/** Where findings built from an exchange go: a check's context, or a property probe's collector. */
export interface ViolationSink {
  failOn(exchange: Exchange, finding: Omit<Finding, 'request' | 'curl'>): void;
}

export interface CheckContext {
  target: TargetConfig;
  http: HttpClient;
  /** Records a finding. */
  fail(finding: Finding): void;
  /** Records a finding built from an exchange (request evidence and curl filled in). */
  failOn(exchange: Exchange, finding: Omit<Finding, 'request' | 'curl'>): void;
  /** Marks a requirement as not applicable to this target, with the reason. */
  notApplicable(requirement: RequirementId, reason: string): void;
  note(text: string): void;
}

export interface Check {
  /** Stable id naming the property, e.g. 'known-counterparty-conforms'. */
  id: string;
  /** One line: the behaviour checked. */
  title: string;
  /** The requirements this check verifies (the only ids it may report). */
  requirements: RequirementId[];
  /** Which spec file of the suite runs it. */
  group: 'counterparty-get' | 'references' | 'authentication' | 'routing' | 'counterparty-patch';
  /** 'write' checks send PATCH/POST/DELETE and only run with WRITABLE_COUNTERPARTY_REF. */
  access: 'read' | 'write';
  run(ctx: CheckContext): Promise<void>;
}
