import { AmbiguousRequestError, QueuedPastDeadlineError, ResponseFormatError, ServerError, ValidationError } from "../../api";
import { captureProgressLines } from "../../api/__tests__/helpers";
import { Deadline } from "../../wait/poll";
import { ProviderError } from "./errors";
import { readPersistently, twinsLandedAfterResend, UnconfirmedWriteError, writeExactlyOnce, type ExactlyOnceWrite } from "./reconcile";
import { claimedByStack } from "./replacements";

// each case is a deployment of its own: ids held by the stack in one case mean nothing in the next
beforeEach(() => claimedByStack.clear());

const details = { operation: "createInstance", method: "POST" as const, path: "/instance/create" };
const ambiguous = () => new AmbiguousRequestError({ ...details, cause: new ServerError({ ...details, status: 500 }) });
const serverError = () => new ServerError({ ...details, operation: "listInstances", method: "GET", path: "/instance", status: 500 });

/** A clock that advances only when the code under test sleeps: waits are exact and instant. */
function fakeTime() {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms), deadline: (ms: number) => new Deadline(ms, () => now) };
}

function write(overrides: Partial<ExactlyOnceWrite> & Pick<ExactlyOnceWrite, "candidates" | "send">, time = fakeTime()): ExactlyOnceWrite {
  return { what: "instance web-1 in location 1", deadline: time.deadline(60_000), howToFind: "getInstances()", sleep: time.sleep, ...overrides };
}

describe("readPersistently", () => {
  it("retries transient failures until one succeeds", async () => {
    const time = fakeTime();
    let calls = 0;
    const value = await readPersistently("x", time.deadline(60_000), async () => (++calls < 6 ? Promise.reject(serverError()) : "ok"), time.sleep);
    expect(value).toBe("ok");
    expect(calls).toBe(6);
  });
  it("gives up at the deadline, saying what it could not read", async () => {
    const time = fakeTime();
    await expect(readPersistently("the listing", time.deadline(10_000), async () => Promise.reject(serverError()), time.sleep)).rejects.toThrow(
      /could not read the listing before the deadline/,
    );
    expect(time.now()).toBeGreaterThanOrEqual(10_000);
  });
  it("does not retry an error that is not transient", async () => {
    const time = fakeTime();
    let calls = 0;
    const refused = new ValidationError({ ...details, status: 422 });
    await expect(readPersistently("x", time.deadline(60_000), async () => (calls++, Promise.reject(refused)), time.sleep)).rejects.toBe(refused);
    expect(calls).toBe(1);
  });
});

describe("writeExactlyOnce", () => {
  it.each([
    ["", ["old", "new"]],
    // page 1 ends with the new row; another client's create pushes it to the top of page 2, read next (multistack audit)
    [", also when a paged list shifting under another client's writes shows its row twice", ["old", "new", "new"]],
  ])("takes the one object that appeared after an ambiguous failure, without sending again%s", async (_case, after) => {
    let sends = 0;
    let listed = ["old"];
    const id = await writeExactlyOnce(write({
      candidates: async () => listed,
      send: async () => {
        sends++;
        listed = after;
        throw ambiguous();
      },
    }));
    expect(id).toBe("new");
    expect(sends).toBe(1);
  });

  it("re-sends only after two looks found nothing, and at most maxSends times", async () => {
    let sends = 0;
    await expect(writeExactlyOnce(write({ maxSends: 3, candidates: async () => [], send: async () => (sends++, Promise.reject(ambiguous())) }))).rejects.toThrow(
      /failed 3 time\(s\) without creating it/,
    );
    expect(sends).toBe(3);
  });

  it("a resend that never left the provider's queue says the first, ambiguous request may still land", async () => {
    let sends = 0;
    const failure = writeExactlyOnce(write({
      maxSends: 2,
      candidates: async () => [],
      send: async () => (++sends === 1 ? Promise.reject(ambiguous()) : Promise.reject(new QueuedPastDeadlineError(5_000, 3, 2, 10, "POST /instance/create"))),
    }));
    await expect(failure).rejects.toThrow(/failed ambiguously and was not found since; sending it again did not happen: .*never sent.*Should the first request still take effect late/s);
    expect(sends).toBe(2);
  });
  it("a write whose deadline passed while the existing objects were read is not sent", async () => {
    const time = fakeTime();
    let sends = 0;
    const failure = writeExactlyOnce(write({
      deadline: time.deadline(10_000),
      candidates: async () => (await time.sleep(11_000), []),
      send: async () => (sends++, "made"),
    }, time));
    await expect(failure).rejects.toThrow(/was never sent \(nothing was made\): the deadline passed while the existing ones were read/);
    expect(sends).toBe(0);
  });

  it("an object that appeared but is not what the write asked for is not taken, and the write is not sent again", async () => {
    let listed: string[] = [];
    let sends = 0;
    await expect(
      writeExactlyOnce(write({
        maxSends: 3,
        candidates: async () => listed,
        madeByThisWrite: async (id) => id !== "theirs",
        send: async () => (sends++, (listed = ["theirs"]), Promise.reject(ambiguous())),
      })),
    ).rejects.toThrow(/theirs appeared meanwhile but differs from what was asked, so it was neither taken nor the request sent again/);
    expect(sends).toBe(1);
  });
  it("an object another resource of this stack holds is no candidate: the write is sent again", async () => {
    claimedByStack.add("held");
    let sends = 0;
    const id = await writeExactlyOnce(write({
      maxSends: 2,
      candidates: async () => (sends < 2 ? ["held"] : ["held", "new"]).filter((x) => sends > 0 || x !== "held"),
      send: async () => (++sends === 1 ? Promise.reject(ambiguous()) : "new"),
    }));
    expect(id).toBe("new");
    expect(sends).toBe(2);
  });

  it("a resent write found by the look after its own lost answer is still checked for a late twin", async () => {
    // send 1 held by the host, send 2 lands but its answer is lost too: the look takes the one object it sees, and the
    // held first request can still land after it (twinsLandedAfterResend must know this id)
    let listed: string[] = [];
    let sends = 0;
    const id = await writeExactlyOnce(write({
      maxSends: 2,
      candidates: async () => listed,
      send: async () => {
        if (++sends === 2) listed = ["second"];
        throw ambiguous();
      },
    }));
    expect(id).toBe("second");
    listed = ["second", "first-late"];
    expect(await twinsLandedAfterResend(id)).toEqual(["first-late"]);
  });
  it("names every new object when several appeared, and takes none", async () => {
    let listed: string[] = [];
    await expect(
      writeExactlyOnce(write({ candidates: async () => listed, send: async () => ((listed = ["a", "b"]), Promise.reject(ambiguous())) })),
    ).rejects.toThrow(/2 new ones appeared \(a, b\); set adoptId to the one to keep/);
  });

  it("when the listings fail until the deadline after an ambiguous send, names what may exist and how to find it, and carries what existed before", async () => {
    let failing = false;
    const error = await writeExactlyOnce(write({
      howToFind: 'getInstances({ search: "web-1" })',
      candidates: async () => (failing ? Promise.reject(serverError()) : ["old"]),
      send: async () => ((failing = true), Promise.reject(ambiguous())),
    })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnconfirmedWriteError);
    expect((error as Error).message).toMatch(
      /instance web-1 in location 1 failed ambiguously \(sent at .*\) and whether it took effect could not be checked.*may exist: look for it with getInstances\(\{ search: "web-1" \}\)/,
    );
    // what a resource records to find it later (common/unconfirmed.ts): "old" is not the new one
    expect(error).toMatchObject({ what: "instance web-1 in location 1", existing: ["old"], howToFind: 'getInstances({ search: "web-1" })' });
  });

  it("refuses before sending when refuseBeside says so", async () => {
    let sends = 0;
    await expect(
      writeExactlyOnce(write({
        candidates: async () => ["stranger"],
        refuseBeside: (existing) => {
          if (existing.length) throw new ProviderError(`exists: ${existing.join()}`);
        },
        send: async () => (sends++, "x"),
      })),
    ).rejects.toThrow("exists: stranger");
    expect(sends).toBe(0);
  });

  it("finds the object when the API accepted the write without answering its id", async () => {
    let listed: string[] = [];
    expect(await writeExactlyOnce(write({ candidates: async () => listed, send: async () => ((listed = ["n"]), undefined) }))).toBe("n");
  });
});

describe("writeExactlyOnce: what the user sees", () => {
  const progress = captureProgressLines();

  it("says every third failed read that it keeps reading until the deadline, and keeps the last failure as the cause", async () => {
    const time = fakeTime();
    let calls = 0;
    await readPersistently("the listing", time.deadline(60_000), async () => (++calls < 7 ? Promise.reject(serverError()) : "ok"), time.sleep);
    expect(progress.lines).toHaveLength(2);
    expect(progress.lines[0]).toMatch(/^reading the listing failed \(.+\); retrying until the deadline$/);
    const last = serverError();
    const error = await readPersistently("the listing", time.deadline(5_000), async () => Promise.reject(last), time.sleep).catch((e: unknown) => e);
    expect((error as Error).cause).toBe(last);
  });
  it("reports the ambiguous failure and the object taken, looking twice a second apart before sending again", async () => {
    const time = fakeTime();
    let listings = 0;
    let sends = 0;
    const id = await writeExactlyOnce(write({
      candidates: async () => (listings++, sends < 2 ? [] : ["new"]),
      send: async () => {
        sends++;
        if (sends === 1) throw ambiguous();
        throw ambiguous(); // the second send took effect, then failed ambiguously too
      },
      maxSends: 2,
    }, time));
    expect(id).toBe("new");
    // one listing before, two looks after the first send (a second apart), one look after the second
    expect(listings).toBe(4);
    expect(time.now()).toBe(1_000);
    expect(progress.lines).toEqual([
      expect.stringMatching(/^the request for instance web-1 in location 1 failed ambiguously \(.+\); looking for it before anything is retried$/),
      "instance web-1 in location 1 did not appear: the request did not take effect; sending it again",
      expect.stringMatching(/^the request for instance web-1 in location 1 failed ambiguously/),
      "instance web-1 in location 1 was created (new): taking it instead of creating another",
    ]);
  });
  it("waits secondLookAfterMs between the two looks, never past the deadline", async () => {
    const time = fakeTime();
    await writeExactlyOnce(write({ secondLookAfterMs: 250, candidates: async () => [], send: async () => Promise.reject(ambiguous()) }, time)).catch(() => undefined);
    expect(time.now()).toBe(250);
    const short = fakeTime();
    await writeExactlyOnce(write({ deadline: short.deadline(100), candidates: async () => [], send: async () => Promise.reject(ambiguous()) }, short)).catch(() => undefined);
    expect(short.now()).toBe(100);
  });
  it("names the failure and keeps it as the cause when the sends run out, or several appeared", async () => {
    const first = ambiguous();
    const error = await writeExactlyOnce(write({ candidates: async () => [], send: async () => Promise.reject(first) })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^the request for instance web-1 in location 1 failed 1 time\(s\) without creating it: /);
    expect((error as Error).cause).toBe(first);
    let listed: string[] = [];
    const twice = await writeExactlyOnce(write({ candidates: async () => listed, send: async () => ((listed = ["a", "b"]), Promise.reject(first)) })).catch((e: unknown) => e);
    expect((twice as Error).message).toBe(
      "the request for instance web-1 in location 1 failed ambiguously and 2 new ones appeared (a, b); set adoptId to the one to keep and delete the others",
    );
    expect((twice as Error).cause).toBe(first);
  });
  it("when the write was accepted without an id and nothing new is listed after the looks, records it as unconfirmed and says how to find it", async () => {
    let sends = 0;
    let lists = 0;
    const error = await writeExactlyOnce(write({ candidates: async () => (lists++, []), send: async () => (sends++, undefined) })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnconfirmedWriteError);
    expect((error as Error).message).toMatch(
      /^the API answered HTTP 2xx to the request for instance web-1 in location 1 \(sent at [^)]+\) without the new object's id\. None is listed in the 7 s since: .* It was not sent again \(that could make a second one\)\. Look for it with getInstances\(\)\.$/,
    );
    expect(sends).toBe(1);
    expect(lists).toBe(5); // before the send, then four looks
  });
  it("a write answered 2xx whose body does not parse is looked for, never sent again", async () => {
    let sends = 0;
    let listed: string[] = [];
    const details = { operation: "createInstance", method: "POST", path: "/instance/create", status: 200, apiMessage: "Sedang diproses." } as const;
    const formatError = new AmbiguousRequestError({ ...details, cause: new ResponseFormatError({ ...details, issues: ["data: expected object, received null"] }) });
    const id = await writeExactlyOnce(write({
      candidates: async () => listed,
      send: async () => {
        sends++;
        throw formatError;
      },
      sleep: async () => {
        listed = ["late"]; // listed only after the first pause (a queued create)
      },
    }));
    expect(id).toBe("late");
    expect(sends).toBe(1);
  });
  it("keeps the failed listing as the cause when the outcome stays unknown", async () => {
    let failing = false;
    const error = await writeExactlyOnce(write({
      candidates: async () => (failing ? Promise.reject(serverError()) : []),
      send: async () => ((failing = true), Promise.reject(ambiguous())),
    })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnconfirmedWriteError);
    expect(((error as Error).cause as Error).message).toMatch(/^could not read the existing instance web-1 in location 1 before the deadline/);
  });
});
