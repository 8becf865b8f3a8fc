// to-regex-range ships no types; this is the part the server uses.
declare module 'to-regex-range' {
  interface ToRegexRangeOptions {
    capture?: boolean;
    shorthand?: boolean;
    relaxZeros?: boolean;
  }
  function toRegexRange(min: number, max: number, options?: ToRegexRangeOptions): string;
  export default toRegexRange;
}
