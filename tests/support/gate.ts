/**
 * A gate for fakes in tests: `passed()` resolves at once while the gate is open; after `hold()` it waits until
 * the returned release is called (a request held "in flight" while the test asks again).
 */
export function createGate(): { passed(): Promise<void>; hold(): () => void } {
  let gate: Promise<void> | undefined;
  return {
    passed: async () => {
      if (gate) await gate;
    },
    hold(): () => void {
      let release: () => void = () => undefined;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}
