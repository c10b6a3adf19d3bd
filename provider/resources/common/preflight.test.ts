/**
 * The catalogue shapes hosts send (no sample exists: real-api-facts.md "client code"): templates listed flat
 * with their minimums, or operating systems with their templates nested; tiers with or without the
 * dedicated-CPU flag. And the Instance rules against a catalogue, without any API.
 */
import { instanceCatalogueFailures, locationsOf, templatesOf, tiersOf, type Catalogue } from "./preflight";

describe("templatesOf", () => {
  it("reads flat templates (the simulator's shape)", () => {
    expect(templatesOf([{ id: 4, template_id: 4, name: "Windows Server", version: "2022", min_cpu: 2, min_memory: 4, min_storage: 40 }])).toEqual([
      { id: 4, name: "Windows Server", version: "2022", minCpu: 2, minMemory: 4, minStorage: 40 },
    ]);
  });
  it("reads operating systems with nested templates: the OS id is not a template id", () => {
    const systems = [{ id: 1, name: "Ubuntu", versions: [{ id: 11, name: "22.04", min_disk: "20" }, { template_id: 12, version: "24.04", min_ram: 2 }] }];
    expect(templatesOf(systems)).toEqual([
      { id: 11, name: "Ubuntu", version: "22.04", minCpu: undefined, minMemory: undefined, minStorage: 20 },
      { id: 12, name: "Ubuntu", version: "24.04", minCpu: undefined, minMemory: 2, minStorage: undefined },
    ]);
  });
});

describe("catalogue values in the spellings hosts send", () => {
  it("reads camelCase keys, numbers as text with blanks, and leaves out what is no whole number", () => {
    expect(templatesOf([{ id: 70, templateId: " 7 ", name: "Debian", minCpu: 1, minMemory: "2", minStorage: 1.5 }])).toEqual([
      { id: 7, name: "Debian", version: undefined, minCpu: 1, minMemory: 2, minStorage: 1.5 },
    ]);
    expect(templatesOf([{ id: "7a", name: "x" }, { id: "1.5", name: "z" }, { id: Number.POSITIVE_INFINITY, name: "y" }])).toEqual([]);
  });
  it("names a template without a name by its id, and a nested one whose name is its OS's without a version", () => {
    expect(templatesOf([{ id: 9, name: "  " }])).toEqual([{ id: 9, name: "template 9", version: undefined, minCpu: undefined, minMemory: undefined, minStorage: undefined }]);
    expect(templatesOf([{ id: 1, name: "Alpine", templates: [{ id: 21, name: "Alpine" }, { id: 22 }] }]).map((t) => [t.id, t.name, t.version])).toEqual([
      [21, "Alpine", undefined],
      [22, "Alpine", undefined],
    ]);
  });
  it("reads the dedicated-CPU flag as 1/0 in number or text; anything else says nothing", () => {
    expect(tiersOf([
      { id: 1, name: "a", dedicated_cpu_available: 1 }, { id: 2, name: "b", isDedicatedCpuAvailable: "0" },
      { id: 3, name: "c", is_dedicated_cpu_available: "1" }, { id: 4, name: "d", is_dedicated_cpu_available: "yes" },
    ]).map((t) => t.dedicatedCpuAvailable)).toEqual([true, false, true, undefined]);
  });
  it("names a location without a name by its id", () => {
    expect(locationsOf([{ id: 3, name: null }, { id: 1, name: "Jakarta" }])).toEqual([{ id: 3, name: "location 3" }, { id: 1, name: "Jakarta" }]);
  });
});

describe("tiersOf", () => {
  it("reads the dedicated-CPU flag in its spellings, undefined when the host does not say", () => {
    expect(tiersOf([{ id: 1, name: "Basic", is_dedicated_cpu_available: 0 }, { id: 3, name: "Premium", is_dedicated_cpu_available: true }, { id: 5, name: null }]))
      .toEqual([
        { id: 1, name: "Basic", dedicatedCpuAvailable: false },
        { id: 3, name: "Premium", dedicatedCpuAvailable: true },
        { id: 5, name: "tier 5", dedicatedCpuAvailable: undefined },
      ]);
  });
});

describe("instanceCatalogueFailures", () => {
  const cat: Catalogue = {
    locations: [{ id: 1, name: "Jakarta" }],
    tiers: [{ id: 2, name: "Standard", dedicatedCpuAvailable: undefined }],
    templates: [{ id: 1, name: "Ubuntu", version: "22.04", minCpu: 1, minMemory: 1, minStorage: 20 }],
    vswitches: [{ uuid: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", name: "net", location: undefined }],
  };
  const ok = { locationId: 1, tierId: 2, templateId: 1, cpu: 1, memory: 1, storage: 20 };
  it("says nothing it cannot know: a tier without the flag allows dedicatedCpu, a network without a location is not compared", () => {
    expect(instanceCatalogueFailures({ ...ok, dedicatedCpu: true, vswitchId: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, cat)).toEqual([]);
  });
  it("skips a list the host did not serve", () => {
    expect(instanceCatalogueFailures({ ...ok, locationId: 99, tierId: 99, templateId: 99 }, {})).toEqual([]);
  });
  it("refuses dedicatedCpu on a tier without, saying so when no tier of the host offers them", () => {
    const noDedicated: Catalogue = { ...cat, tiers: [{ id: 2, name: "Standard", dedicatedCpuAvailable: false }] };
    expect(instanceCatalogueFailures({ ...ok, dedicatedCpu: true }, noDedicated)).toEqual([{
      property: "dedicatedCpu",
      reason: "the Standard tier (2) has no dedicated CPUs; set dedicatedCpu: false, or choose a tier that offers them (getTiers shows dedicatedCpuAvailable)",
    }]);
  });
  it("names a template without a version by its name alone", () => {
    const unversioned: Catalogue = { ...cat, templates: [{ id: 4, name: "Alpine", version: undefined, minCpu: 1, minMemory: 2, minStorage: 10 }] };
    expect(instanceCatalogueFailures({ ...ok, templateId: 4, memory: 1 }, unversioned)).toEqual([{
      property: "memory",
      reason: "Alpine (template 4) needs at least 2 GB; raise memory to 2 or more (getOsTemplates lists the minimums)",
    }]);
    expect(instanceCatalogueFailures({ ...ok, templateId: 9 }, unversioned)[0]?.reason).toBe(
      "templateId 9 is not an OS template of this host; valid: 4 (Alpine) (list them with getOsTemplates)",
    );
  });
  it("refuses an unknown location and tier, listing the valid ones (at most twelve)", () => {
    const many: Catalogue = { ...cat, locations: Array.from({ length: 13 }, (_, i) => ({ id: i + 1, name: `L${i + 1}` })) };
    const failures = instanceCatalogueFailures({ ...ok, locationId: 99, tierId: 9 }, many);
    expect(failures).toEqual([
      {
        property: "locationId",
        reason: `locationId 99 is not a location of this host; valid: ${Array.from({ length: 12 }, (_, i) => `${i + 1} (L${i + 1})`).join(", ")}, ... ` +
          '(list them with getLocations, or use getLocation({ name: "..." }))',
      },
      { property: "tierId", reason: "tierId 9 is not a tier of this host; valid: 2 (Standard) (list them with getTiers)" },
    ]);
    const twelve: Catalogue = { ...cat, locations: many.locations!.slice(0, 12) };
    expect(instanceCatalogueFailures({ ...ok, locationId: 99 }, twelve)[0]?.reason).toMatch(/12 \(L12\) \(list them/);
  });
  it("lists the tiers that offer dedicated CPUs", () => {
    const tiers: Catalogue = { ...cat, tiers: [{ id: 2, name: "Standard", dedicatedCpuAvailable: false }, { id: 3, name: "Premium", dedicatedCpuAvailable: true }] };
    expect(instanceCatalogueFailures({ ...ok, dedicatedCpu: true }, tiers)[0]?.reason).toBe(
      "the Standard tier (2) has no dedicated CPUs; set dedicatedCpu: false, or choose a tier that offers them: 3 (Premium) (getTiers shows dedicatedCpuAvailable)",
    );
    expect(instanceCatalogueFailures({ ...ok, dedicatedCpu: false }, tiers)).toEqual([]);
  });
  it("checks templates only for a fresh create with a known template and a non-empty list", () => {
    expect(instanceCatalogueFailures({ ...ok, templateId: 9 }, { ...cat, templates: [] })).toEqual([]);
    expect(instanceCatalogueFailures({ ...ok, adoptId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", templateId: 9 }, cat)).toEqual([]);
    expect(instanceCatalogueFailures({ ...ok, templateId: undefined, storage: 5 }, cat)).toEqual([]);
    expect(instanceCatalogueFailures({ ...ok, templateId: 9 }, cat)[0]?.reason).toBe(
      "templateId 9 is not an OS template of this host; valid: 1 (Ubuntu 22.04) (list them with getOsTemplates)",
    );
  });
  it("reports every minimum the sizes miss at once, with its unit", () => {
    const big: Catalogue = { ...cat, templates: [{ id: 1, name: "Ubuntu", version: "22.04", minCpu: 2, minMemory: 4, minStorage: 40 }] };
    expect(instanceCatalogueFailures({ ...ok, cpu: 1, memory: 2, storage: 20 }, big)).toEqual([
      { property: "cpu", reason: "Ubuntu 22.04 (template 1) needs at least 2 CPUs; raise cpu to 2 or more (getOsTemplates lists the minimums)" },
      { property: "memory", reason: "Ubuntu 22.04 (template 1) needs at least 4 GB; raise memory to 4 or more (getOsTemplates lists the minimums)" },
      { property: "storage", reason: "Ubuntu 22.04 (template 1) needs at least 40 GB; raise storage to 40 or more (getOsTemplates lists the minimums)" },
    ]);
    expect(instanceCatalogueFailures({ ...ok, cpu: 2, memory: 4, storage: 40 }, big)).toEqual([]);
  });
  it("refuses a private network that is not in the account, or of another location (any letter case of uuid and name)", () => {
    const nets: Catalogue = { ...cat, vswitches: [{ uuid: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", name: "net", location: "Surabaya" }] };
    expect(instanceCatalogueFailures({ ...ok, vswitchId: "9a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, nets)).toEqual([
      { property: "vswitchId", reason: "there is no private network 9a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d in this account (list them with getVswitches)" },
    ]);
    expect(instanceCatalogueFailures({ ...ok, vswitchId: "0A1B2C3D-4E5F-4A6B-8C7D-9E8F7A6B5C4D" }, nets)).toEqual([{
      property: "vswitchId",
      reason: "vswitchId: the private network net is in Surabaya, not in the VM's location Jakarta; use a network of Jakarta (getVswitchOptions({ locationId: 1 }) lists them)",
    }]);
    const sameCity: Catalogue = { ...cat, vswitches: [{ uuid: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d", name: "net", location: "JAKARTA" }] };
    expect(instanceCatalogueFailures({ ...ok, vswitchId: "0a1b2c3d-4e5f-4a6b-8c7d-9e8f7a6b5c4d" }, sameCity)).toEqual([]);
    expect(instanceCatalogueFailures({ ...ok, vswitchId: "" }, nets)).toEqual([]);
  });
  it("does not check template minimums of a clone (its disk comes from the source)", () => {
    expect(instanceCatalogueFailures({ ...ok, cloneFrom: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", templateId: undefined, storage: 5 }, cat)).toEqual([]);
  });
});
