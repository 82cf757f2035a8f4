/** The part of autocannon's programmatic API bench/bench.ts uses (the package ships no types). */
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    total?: number;
  }
  export interface Result {
    requests: Histogram;
    duration: number;
    errors: number;
    non2xx: number;
    statusCodeStats?: Record<string, { count: number }>;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    requests?: { method?: string; path: string; headers?: Record<string, string> }[];
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
