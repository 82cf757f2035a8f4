/** The files the conformance reporter (and the validator) write into their output directory (default reports/). */
export const REPORT_FILES = {
  json: 'conformance.json',
  html: 'conformance.html',
  junit: 'junit.xml',
  /** The run's own traffic as HAR 1.2, token redacted (`npm run validate -- reports/exchanges.har`). */
  har: 'exchanges.har',
} as const;
