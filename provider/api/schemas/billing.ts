/**
 * Wire schemas of billing (api-spec.md §2.7, §2.8, §2.15, §2.16, §4.5; summary and top-up status from
 * real-api-facts.md).
 */
import { z } from "zod";
import { decimal, flag, idString, integer, lenientDate, lenientTimestamp, paged, rupiah, unknownData } from "./common";

/** A payment method (§2.7). */
export const paymentMethod = z.object({
  name: z.string(),
  code: z.string(),
  image: z.string().nullish().transform((v) => v ?? null),
  fee: decimal,
  vat: decimal,
});

/** Payment methods by category (`bank`, `card`, `ritel`, `ewallet`, `qris`; others are kept too). */
export const paymentMethods = z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), z.record(z.string(), z.array(paymentMethod)));

/**
 * A top-up invoice (§2.8). Only `invoice_id` is required: the invoice exists once this answer arrives, and
 * which of va_number / qr_string / payment_url are filled depends on the method (not shown).
 */
export const topupInvoice = z.object({
  merchant_code: z.string().nullish().transform((v) => v ?? null),
  reference_number: z.string().nullish().transform((v) => v ?? null),
  payment_url: z.string().nullish().transform((v) => v || null),
  amount: decimal.nullish().transform((v) => v ?? null),
  details: z
    .object({ amount: decimal, payment_fee: decimal, vat: decimal })
    .nullish()
    .transform((v) => v ?? null),
  va_number: z.string().nullish().transform((v) => v || null),
  qr_string: z.string().nullish().transform((v) => v || null),
  invoice_id: idString,
});

/**
 * A credit history entry (§2.15). Money is text (`"Rp10.000,00"`): output as numbers of rupiah.
 * `type` is kept as sent (`Add` for an addition; the deduction value is not shown).
 */
export const creditHistoryEntry = z.object({
  id: integer,
  type: z.string(),
  description: z.string().nullish().transform((v) => v ?? ""),
  amount: rupiah,
  balance_after: rupiah,
  // nothing computes with it: a date form we cannot read is kept as text rather than failing the history
  created_at: lenientTimestamp,
});

/** Paged credit history. */
export const creditHistory = paged(creditHistoryEntry);

/** One cost line of a billing report. */
export const billingReportDetail = z.object({
  name: z.string(),
  base_price: decimal,
  total_uptime_hour: decimal,
  total_cost: decimal,
});

/** One service report of a billing report. */
export const billingReportItem = z.object({
  id: integer,
  service_name: z.string(),
  service_type: z.string(),
  tier_name: z.string().nullish().transform((v) => v ?? null),
  tier_icon: z.string().nullish().transform((v) => v ?? null),
  total_cost: decimal,
  details: z.array(billingReportDetail).nullish().transform((v) => v ?? []),
});

/** A service group of a billing report. */
export const billingServiceGroup = z.object({
  service: z.string(),
  total: decimal,
  reports: z.array(billingReportItem).nullish().transform((v) => v ?? []),
});

/**
 * A billing report of one period (§2.16). The wire key `"billing periode"` (with a space) is kept and also
 * exposed as `billing_period`; `billing_date` is normalized to `YYYY-MM-DD` (kept as sent when unreadable).
 */
export const billingReport = z
  .object({
    id: idString,
    "billing periode": z.string(),
    // kept as text when unreadable (nothing computes with it), rather than failing the report
    billing_date: lenientDate,
    status: z.string(),
    fully_settle: flag,
    total: decimal,
    can_download: flag,
    services: z.array(billingServiceGroup).nullish().transform((v) => v ?? []),
  })
  .transform((r) => ({ ...r, billing_period: r["billing periode"] }));

/** The billing summary (`GET /billing/summary`, docs only, no sample): accepted as sent. */
export const billingSummary = unknownData;

/** The status of a top-up invoice (client code only, no sample): `status` if present, other fields kept. */
export const topupStatus = z.looseObject({ status: z.string().nullish() });

/** Normalized payment method. */
export type PaymentMethod = z.output<typeof paymentMethod>;
/** Normalized payment methods by category. */
export type PaymentMethods = z.output<typeof paymentMethods>;
/** Normalized top-up invoice. */
export type TopupInvoice = z.output<typeof topupInvoice>;
/** Normalized credit history entry (amounts in rupiah). */
export type CreditHistoryEntry = z.output<typeof creditHistoryEntry>;
/** Normalized credit history page. */
export type CreditHistory = z.output<typeof creditHistory>;
/** Normalized billing report. */
export type BillingReport = z.output<typeof billingReport>;
/** Normalized top-up status. */
export type TopupStatus = z.output<typeof topupStatus>;
