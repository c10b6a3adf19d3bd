/**
 * Hosts that write a zone after their text timestamps (real-api-facts.md: "Timezone not stated"; the simulator's
 * `wire.textTimeZone`): `… 14:43 WIB`, `…+07:00`, `… GMT+7`, or UTC wall-clock time with ` UTC`. Every read must
 * parse, a refresh right after a create must report no change, and `createdAt` must be the simulator's instant in
 * UTC. (real-api-facts audit, item 2: each of them failed every instance read with "not a timestamp in any known
 * format".)
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const snapshot = providers.Snapshot as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());

interface SimTimes {
  instances: { uuid: string; hostname: string; createdAt: number }[];
  snapshots: { uuid: string; createdAt: number }[];
}

/** The simulator writes minutes (the list) or seconds (the detail): the instant truncated to the minute. */
const minuteOf = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString();

it.each(["WIB", "+07:00", "GMT+7", "UTC"])("zone %s: an Instance and a Snapshot are created, refreshed without change, times in UTC", async (zone) => {
  await h().setFaults({ wire: { textTimeZone: zone } });
  const hostname = `tz-${zone.replace(/\W/g, "")}`.toLowerCase();
  const checked = await instance.check({}, { ...validCreate, hostname });
  const created = await instance.create(checked.inputs);
  const vm = (await h().admin<SimTimes>("GET", "/state")).instances.find((i) => i.uuid === created.id)!;
  const outs = created.outs as { createdAt: string };
  expect(outs.createdAt.slice(0, 16)).toBe(minuteOf(vm.createdAt).slice(0, 16));
  const read = await instance.read(created.id, created.outs);
  expect(read.props).toEqual(created.outs);
  expect((await instance.diff(created.id, read.props, checked.inputs)).changes).toBe(false);

  const snapInputs = (await snapshot.check({}, { instanceId: created.id, name: "tz" })).inputs;
  const snap = await snapshot.create(snapInputs);
  const simSnap = (await h().admin<SimTimes>("GET", "/state")).snapshots.find((s) => s.uuid === snap.id)!;
  expect((snap.outs as { createdAt: string }).createdAt).toBe(minuteOf(simSnap.createdAt));
  const snapRead = await snapshot.read(snap.id, snap.outs);
  expect(snapRead.props).toEqual(snap.outs);
  expect((await snapshot.diff(snap.id, snapRead.props, snapInputs)).changes).toBe(false);
});
