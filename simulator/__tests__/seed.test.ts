/**
 * The seeded catalogue is what simulator/README.md documents (tests and examples use those ids), and it
 * is consistent: every address, network and storage is in a known location, credit balances add up.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createSeedState, DEFAULT_SEED } from "../seed";
import { Simulator } from "../server";
import { rupiah } from "../wire";

const readme = fs.readFileSync(path.join(__dirname, "..", "README.md"), "utf8");
const state = createSeedState(DEFAULT_SEED);

describe("seeded catalogue", () => {
  it("documents every seeded uuid of the default seed, with its name or address", () => {
    const rows = [
      ...state.publicIps.map((p) => [p.address, p.uuid]),
      ...state.vswitches.map((v) => [v.name, v.uuid]),
      ...state.blockStorages.map((b) => [b.name, b.uuid]),
    ];
    for (const [name, uuid] of rows) {
      const line = readme.split("\n").find((l) => l.includes(uuid!));
      expect(line ?? `no README line for ${name} ${uuid}`).toContain(name!);
    }
  });

  it("documents the default API key and the seeded balance", () => {
    expect(readme).toContain(new Simulator({}).apiKey);
    expect(readme).toContain(rupiah(state.balance));
  });

  it("is consistent: locations exist, credit entries add up to the balance, never negative", () => {
    const locationIds = new Set(state.locations.map((l) => l.id));
    for (const x of [...state.publicIps, ...state.vswitches, ...state.blockStorages]) expect(locationIds.has(x.locationId)).toBe(true);
    let balance = 0;
    for (const entry of [...state.credit].sort((a, b) => a.createdAt - b.createdAt)) {
      balance = Math.round((balance + (entry.type === "Add" ? entry.amount : -entry.amount)) * 100) / 100;
      expect(entry.balanceAfter).toBe(balance);
      expect(balance).toBeGreaterThanOrEqual(0);
    }
    expect(balance).toBe(state.balance);
  });
});
