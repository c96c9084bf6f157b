/** A poll's context for a job run in a test: never aborted, and counting the invalid records it is told of. */
export function pollContext() {
  let invalid = 0;
  return {
    signal: new AbortController().signal,
    invalidRecords: (count: number) => {
      invalid += count;
    },
    progressed: () => {},
    get invalid() {
      return invalid;
    },
  };
}
