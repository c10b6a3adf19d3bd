import {
  NormalizeError,
  normalizeLocation,
  parseCpu,
  parseDateOnly,
  parseRupiah,
  parseSizeGb,
  parseTimestamp,
  placeholderToNull,
  operationFlagOf,
  statusMeaning,
  statusShowsOperation,
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
    // thousands separators (English and Indonesian locales); before: "1,024 MB" was 0.001 GB
    ["1,024 MB", 1],
    ["1.024 MB", 1],
    ["2.048MB", 2],
    ["1.048.576 KB", 1],
    ["1,048,576.0 KB", 1],
    ["1.048.576,0 KB", 1],
    ["0,500 GB", 0.5],
    ["1.5 GB", 1.5],
    [2, 2],
    [0.5, 0.5],
  ] as const)("%p -> %p GB", (input, gb) => {
    expect(parseSizeGb(input)).toBe(gb);
  });

  it.each(["lots", "GB", "2 parsecs", "-1 GB", "", "1,024 GB", "1.024", "1.02.4 MB", "1,024.000.5 MB"])("rejects %p", (input) => {
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

  // A zone after a text form is read in that zone (real-api-facts audit: each of these failed every instance read).
  it.each([
    ["25 January 2024, 14:43 WIB", "2024-01-25T07:43:00.000Z"],
    ["25 January 2024, 14:43 wib", "2024-01-25T07:43:00.000Z"],
    ["25 January 2024 14:37 (WIB)", "2024-01-25T07:37:00.000Z"],
    ["25 January 2024 15:37 WITA", "2024-01-25T07:37:00.000Z"],
    ["25 January 2024 16:37 WIT", "2024-01-25T07:37:00.000Z"],
    ["25 January 2024 07:37 UTC", "2024-01-25T07:37:00.000Z"],
    ["26-08-2024 10:00:00+07:00", "2024-08-26T03:00:00.000Z"],
    ["26-08-2024 10:00:00 +0700", "2024-08-26T03:00:00.000Z"],
    ["26/08/2024 10:00 GMT+7", "2024-08-26T03:00:00.000Z"],
    ["2023-10-25 16:38 GMT+07:00", "2023-10-25T09:38:00.000Z"],
    ["2023-10-25 16:38:05+07", "2023-10-25T09:38:05.000Z"],
    ["2023-10-25 09:38:05Z", "2023-10-25T09:38:05.000Z"],
    ["2023-10-25 09:38:05.000000Z", "2023-10-25T09:38:05.000Z"],
    ["2023-10-25 06:38 GMT-3", "2023-10-25T09:38:00.000Z"],
  ])("with a zone: %p -> %p", (input, iso) => {
    expect(parseTimestamp(input)).toBe(iso);
  });

  it.each(["25 January 2024 14:37 PST", "25 January 2024 14:37 WIB+7", "2023-10-25 16:38 +25:00", "26-08-2024 10:00:00 tomorrow"])("refuses a zone it does not know, never guessing: %p", (input) => {
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

describe("operationFlagOf (a host may leave operation_flag at 0: the status word tells)", () => {
  it.each(["creating", "Creating", "Shutting_Down", "rolling-back", "RollingBack", " resizing ", "In Progress"])("%j with flag 0 reads as running", (status) => {
    expect(operationFlagOf(0, status)).toBe(1);
    expect(statusShowsOperation(status)).toBe(true);
  });
  it.each(["Running", "Stopped", "Error", "Active", "running", "", "Pending", "Suspended"])("%j with flag 0 reads as idle", (status) => {
    expect(operationFlagOf(0, status)).toBe(0);
  });
  it.each([["Sedang dibuat", "operation"], ["Sedang dimatikan", "operation"], ["Sedang berjalan", "running"], ["SEDANG BERJALAN", "running"]])(
    "%j reads as %s (\"sedang berjalan\" is a VM running right now, not an operation under way)", (status, meaning) => {
      expect(statusMeaning(status)).toBe(meaning);
      expect(operationFlagOf(0, status)).toBe(meaning === "operation" ? 1 : 0);
    },
  );
  it("the host's own non-zero flag is kept, whatever the status", () => {
    expect(operationFlagOf(2, "Running")).toBe(2);
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

/**
 * Edge cases a host's answer can hold, each written against a surviving mutant of the schemas piece: a value the
 * normalizers do not recognise must fail with its field path (a NormalizeError) instead of becoming a silently
 * wrong size or time, which would show as drift at the next refresh.
 */
describe("normalizers refuse what they do not recognise, and read every part of what they do", () => {
  it.each([
    [-1, "not a size: -1"], [Number.POSITIVE_INFINITY, "not a size: Infinity"], ["2 GB extra", 'not a size: "2 GB extra"'],
    ["x2 GB", 'not a size: "x2 GB"'], ["2 parsecs", 'unknown size unit in "2 parsecs"'],
  ])("size %p", (value, message) => {
    expect(() => parseSizeGb(value)).toThrow(new NormalizeError(message));
  });

  it("sizes: zero, blanks around, a decimal comma", () => {
    expect(parseSizeGb(0)).toBe(0);
    expect(parseSizeGb("  2 GB  ")).toBe(2);
    expect(parseSizeGb("2,5 GB")).toBe(2.5);
  });

  it.each([[-1, "not a CPU count: -1"], [2.5, "not a CPU count: 2.5"], ["12 vCPUs", undefined], ["2 cores extra", 'not a CPU count: "2 cores extra"']])(
    "cpu %p",
    (value, message) => {
      if (message === undefined) expect(parseCpu(value)).toBe(12);
      else expect(() => parseCpu(value)).toThrow(new NormalizeError(message));
    },
  );

  it.each(["2024-02-30", "2023-13-01", "31/04/2024", "00/01/2024"])("no calendar date: %p", (value) => {
    expect(() => parseDateOnly(value)).toThrow(new NormalizeError(`not a calendar date: ${JSON.stringify(value)}`));
  });

  it.each(["2024-08-26x", "x26/08/2024", "26/08/2024 10", "2024-08-26 "])("dates are the whole text (blanks around aside): %p", (value) => {
    if (value.trim() === "2024-08-26") expect(parseDateOnly(value)).toBe("2024-08-26");
    else expect(() => parseDateOnly(value)).toThrow(NormalizeError);
  });

  it("a leap day is a date", () => {
    expect(parseDateOnly("2024-02-29")).toBe("2024-02-29");
    expect(parseDateOnly("29/02/2024")).toBe("2024-02-29");
  });

  it.each(["2023-10-25 24:00", "2023-10-25 16:60", "2023-10-25 16:38:60"])("no time of day: %p", (value) => {
    expect(() => parseTimestamp(value)).toThrow(new NormalizeError(`not a time of day: ${JSON.stringify(value)}`));
  });

  it("the last second of a day is a time of day (read as Jakarta time)", () => {
    expect(parseTimestamp("2023-10-25 23:59:59")).toBe("2023-10-25T16:59:59.000Z");
  });

  it.each([
    ["2023-01-27T02:42:31Z", "2023-01-27T02:42:31.000Z"],
    ["2023-01-27T02:42Z", "2023-01-27T02:42:00.000Z"],
    ["2023-01-27T02:42:31.5Z", "2023-01-27T02:42:31.500Z"],
    ["2023-01-27T02:42:31.123456Z", "2023-01-27T02:42:31.123Z"],
    ["2023-01-27T09:42:31+07:00", "2023-01-27T02:42:31.000Z"],
    ["2023-01-27T08:12:31+0530", "2023-01-27T02:42:31.000Z"],
    ["2023-01-26T23:12:31-03:30", "2023-01-27T02:42:31.000Z"],
    ["2023-01-27t02:42:31z", "2023-01-27T02:42:31.000Z"],
  ])("ISO %p is taken with its own zone", (value, iso) => {
    expect(parseTimestamp(value)).toBe(iso);
  });

  it.each(["x2023-01-27T02:42:31Z", "2023-01-27T02:42:31Zx", "2023-02-30T02:42:31Z"])("refuses %p", (value) => {
    expect(() => parseTimestamp(value)).toThrow(NormalizeError);
  });
});
