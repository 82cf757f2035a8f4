/** The files the conformance reporter writes into its output directory (default reports/). */
export const REPORT_FILES = {
  json: 'conformance.json',
  html: 'conformance.html',
  junit: 'junit.xml',
} as const;
