import { ReplacementsInProgress } from "./replacements";

const OLD = "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab";
const OTHER = "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d";

describe("ReplacementsInProgress (the one twin a create may stand beside)", () => {
  it("knows the old object of a replacement, whatever the case of its uuid", () => {
    const r = new ReplacementsInProgress();
    r.note("Instance:web", OLD.toUpperCase());
    expect(r.isBeingReplaced("Instance:web", OLD)).toBe(true);
    expect(r.isBeingReplaced("Instance:web", OLD.toUpperCase())).toBe(true);
  });
  it("lets no other object, and no other identity, stand beside the new one", () => {
    const r = new ReplacementsInProgress();
    r.note("Instance:web", OLD);
    expect(r.isBeingReplaced("Instance:web", OTHER)).toBe(false);
    expect(r.isBeingReplaced("Instance:db", OLD)).toBe(false);
  });
  it("keeps every old object noted for one identity (two replacements in one deployment)", () => {
    const r = new ReplacementsInProgress();
    r.note("Instance:web", OLD);
    r.note("Instance:web", OTHER);
    expect([r.isBeingReplaced("Instance:web", OLD), r.isBeingReplaced("Instance:web", OTHER)]).toEqual([true, true]);
  });
  it("ignores an empty old id (a diff without one) and forgets everything on clear", () => {
    const r = new ReplacementsInProgress();
    r.note("Instance:web", "");
    expect(r.isBeingReplaced("Instance:web", "")).toBe(false);
    r.note("Instance:web", OLD);
    r.clear();
    expect(r.isBeingReplaced("Instance:web", OLD)).toBe(false);
  });
});
