/**
 * API tolerance: a timestamp the client cannot read, in a field nothing computes with (credit history,
 * billing report date), is kept as the API's text instead of failing the whole call; readable ones are still
 * normalized, and fields the provider depends on (instance times) stay strict.
 */
import { creditHistoryEntry, billingReport } from "../schemas/billing";
import { instanceDetail } from "../schemas/instances";

const entry = { id: 1, type: "Add", description: "Top up", amount: "Rp10.000,00", balance_after: "Rp20.000,00" };

describe("lenient timestamps in billing", () => {
  it("keeps an unreadable credit history time as text", () => {
    expect(creditHistoryEntry.parse({ ...entry, created_at: "Senin, 26 Agustus 2024 pukul 10.00" }).created_at).toBe("Senin, 26 Agustus 2024 pukul 10.00");
  });
  it("still normalizes a readable one, and an absent one is null", () => {
    expect(creditHistoryEntry.parse({ ...entry, created_at: "2023-01-27T02:42:31.000000Z" }).created_at).toBe("2023-01-27T02:42:31.000Z");
    expect(creditHistoryEntry.parse({ ...entry, created_at: "-" }).created_at).toBeNull();
  });
  it("keeps an unreadable billing date as text", () => {
    const report = { id: "r", "billing periode": "Agustus 2024", status: "Settled", fully_settle: 1, total: 5, can_download: 1 };
    expect(billingReport.parse({ ...report, billing_date: "Q3/2024" }).billing_date).toBe("Q3/2024");
    expect(billingReport.parse({ ...report, billing_date: "2024-09-01" }).billing_date).toBe("2024-09-01");
  });
  it("an instance time the provider depends on stays strict", () => {
    expect(instanceDetail.safeParse({ created_at: "someday" }).success).toBe(false);
  });
});
