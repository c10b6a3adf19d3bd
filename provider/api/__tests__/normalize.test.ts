import {
  NormalizeError,
  normalizeLocation,
  parseCpu,
  parseDateOnly,
  parseRupiah,
  parseSizeGb,
  parseTimestamp,
  placeholderToNull,
} from "../normalize";

describe("parseSizeGb", () => {
  it.each([
    ["2 GB", 2],
    ["30GB", 30],
    ["2048 MB", 2],
    ["512 MB", 0.5],
    ["1.17 GB", 1.17],
    ["0 b", 0],
    ["1 TB", 1024],
    ["40", 40],
    ["2,5 GB", 2.5],
    [2, 2],
    [0.5, 0.5],
  ] as const)("%p -> %p GB", (input, gb) => {
    expect(parseSizeGb(input)).toBe(gb);
  });

  it.each(["lots", "GB", "2 parsecs", "-1 GB", ""])("rejects %p", (input) => {
    expect(() => parseSizeGb(input)).toThrow(NormalizeError);
  });
});

describe("parseCpu", () => {
  it.each([
    [2, 2],
    ["2", 2],
    ["2 CPU", 2],
    ["4 vCPU", 4],
    ["1 Core", 1],
  ] as const)("%p -> %p", (input, cpus) => {
    expect(parseCpu(input)).toBe(cpus);
  });

  it.each(["two", "2.5", 1.5, "2 GB"])("rejects %p", (input) => {
    expect(() => parseCpu(input)).toThrow(NormalizeError);
  });
});

describe("parseTimestamp (text forms are Asia/Jakarta, UTC+7)", () => {
  it.each([
    ["2023-01-27T02:42:31.000000Z", "2023-01-27T02:42:31.000Z"],
    ["2023-01-27T02:42:31Z", "2023-01-27T02:42:31.000Z"],
    ["2023-01-27T09:42:31+07:00", "2023-01-27T02:42:31.000Z"],
    ["25 January 2024, 14:43", "2024-01-25T07:43:00.000Z"],
    ["25 January 2024 14:37", "2024-01-25T07:37:00.000Z"],
    ["1 January 2024 03:00", "2023-12-31T20:00:00.000Z"], // crosses midnight and the year in UTC
    ["25 Januari 2024 14:37", "2024-01-25T07:37:00.000Z"],
    ["26-08-2024 10:00:00", "2024-08-26T03:00:00.000Z"],
    ["2023-10-25 16:38", "2023-10-25T09:38:00.000Z"],
    ["2023-10-25 16:38:05", "2023-10-25T09:38:05.000Z"],
    ["26/08/2024", "2024-08-26"],
    ["2024-08-26", "2024-08-26"],
  ])("%p -> %p", (input, iso) => {
    expect(parseTimestamp(input)).toBe(iso);
  });

  it.each(["yesterday", "32 January 2024 10:00", "25 Foo 2024 10:00", "26-13-2024 10:00:00", "2023-10-25 25:00"])("rejects %p", (input) => {
    expect(() => parseTimestamp(input)).toThrow(NormalizeError);
  });
});

describe("parseDateOnly", () => {
  it.each([
    ["26/08/2024", "2024-08-26"],
    ["2024-08-26", "2024-08-26"],
    ["26-08-2024", "2024-08-26"],
    ["1/2/2024", "2024-02-01"],
  ])("%p -> %p", (input, date) => {
    expect(parseDateOnly(input)).toBe(date);
  });

  it.each(["31/02/2024", "August 2024", "2024/08/26"])("rejects %p", (input) => {
    expect(() => parseDateOnly(input)).toThrow(NormalizeError);
  });
});

describe("parseRupiah", () => {
  it.each([
    ["Rp10.000,00", 10000],
    ["Rp1.250.000,50", 1250000.5],
    ["Rp 5.000", 5000],
    ["Rp500", 500],
    ["-Rp5.000,50", -5000.5],
    ["Rp-5.000", -5000],
    [12500, 12500],
  ] as const)("%p -> %p", (input, amount) => {
    expect(parseRupiah(input)).toBe(amount);
  });

  it.each(["ten thousand", "Rp10,000.00x", "$10"])("rejects %p", (input) => {
    expect(() => parseRupiah(input)).toThrow(NormalizeError);
  });
});

describe("placeholderToNull", () => {
  it("turns the `-` placeholder, null and undefined into null and keeps real values", () => {
    expect(placeholderToNull("-")).toBeNull();
    expect(placeholderToNull(" - ")).toBeNull();
    expect(placeholderToNull(null)).toBeNull();
    expect(placeholderToNull(undefined)).toBeNull();
    expect(placeholderToNull("web.example.com")).toBe("web.example.com");
    expect(placeholderToNull("-web")).toBe("-web");
  });
});

describe("normalizeLocation", () => {
  it("gives the same shape for a list's name and a detail's {id, name}", () => {
    expect(normalizeLocation("Jakarta")).toEqual({ id: null, name: "Jakarta" });
    expect(normalizeLocation({ id: 1, name: "Jakarta" })).toEqual({ id: 1, name: "Jakarta" });
    expect(normalizeLocation({ id: "2", name: "Surabaya" })).toEqual({ id: 2, name: "Surabaya" });
    expect(() => normalizeLocation({ id: "x", name: "Nowhere" })).toThrow(NormalizeError);
  });
});
