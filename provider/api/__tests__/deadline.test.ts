import { currentRequestDeadline, outsideRequestDeadline, withRequestDeadline } from "../deadline";

describe("request deadlines carried to API calls", () => {
  it("a nested scope can only narrow the deadline, never extend it; outside any scope there is none", async () => {
    expect(currentRequestDeadline()).toBeUndefined();
    await withRequestDeadline(1_000, async () => {
      expect(currentRequestDeadline()).toBe(1_000);
      await withRequestDeadline(5_000, async () => expect(currentRequestDeadline()).toBe(1_000));
      await withRequestDeadline(500, async () => expect(currentRequestDeadline()).toBe(500));
      // shared work (the status poller's list requests) is bound by no resource's deadline
      outsideRequestDeadline(() => expect(currentRequestDeadline()).toBeUndefined());
    });
    expect(currentRequestDeadline()).toBeUndefined();
  });
});
