/**
 * Credit, payments and billing reports (`client.billing`).
 */
import type { CallFunction } from "../operations";
import { bodyFromInputs } from "../request";
import { collectAll } from "../paginate";
import type { BillingReport, CreditHistory, CreditHistoryEntry, PaymentMethods, TopupInvoice, TopupStatus } from "../schemas/billing";
import { LIST_ALL_PAGE_SIZE, type RequestOptions } from "./util";

/** Query of the credit history. */
export interface CreditHistoryQuery {
  page?: number;
  limit?: number;
  /** Start date, `YYYY-MM-DD`. */
  start?: string;
  /** End date, `YYYY-MM-DD`. */
  end?: string;
  /** `A` additions or `D` deductions. */
  type?: "A" | "D";
}

/** The billing operations. */
export interface BillingApi {
  /** Payment methods by category with their fees for an optional top-up `amount`. */
  paymentMethods(params?: { amount?: number }, options?: RequestOptions): Promise<PaymentMethods>;
  /**
   * Creates a top-up invoice (never re-sent automatically). `amount` is sent as the `amount` field: the
   * spec does not show how the amount is passed, so this is our assumption.
   */
  topup(params: { paymentMethod: string; amount?: number }, options?: RequestOptions): Promise<TopupInvoice>;
  /** The status of a top-up invoice (client code only). */
  topupStatus(invoiceId: string, options?: RequestOptions): Promise<TopupStatus>;
  /** One page of credit history (amounts in rupiah as numbers). */
  creditHistory(query?: CreditHistoryQuery, options?: RequestOptions): Promise<CreditHistory>;
  /** The whole credit history across pages. */
  creditHistoryAll(query?: Omit<CreditHistoryQuery, "page" | "limit">, options?: RequestOptions): Promise<CreditHistoryEntry[]>;
  /** The billing report of one period, by billing date (`YYYY-MM-DD`). */
  report(summaryDate: string, options?: RequestOptions): Promise<BillingReport>;
  /** The billing summary (docs only; shape not published, returned as sent). */
  summary(options?: RequestOptions): Promise<unknown>;
}

/** Builds the billing operations on a generic call. */
export function createBillingApi(call: CallFunction): BillingApi {
  const api: BillingApi = {
    paymentMethods: (p, options) => call("listPaymentMethods", { query: { amount: p?.amount }, signal: options?.signal }),
    topup: (p, options) =>
      call("createTopup", { ...bodyFromInputs({ payment_method: ["paymentMethod", p.paymentMethod], amount: ["amount", p.amount] }), signal: options?.signal }),
    topupStatus: (invoiceId, options) => call("getTopupStatus", { path: { invoice_id: invoiceId }, signal: options?.signal }),
    creditHistory: (q, options) =>
      call("listCreditHistory", {
        query: { page: q?.page, limit: q?.limit, start: q?.start, end: q?.end, type: q?.type },
        signal: options?.signal,
      }),
    creditHistoryAll: (q, options) =>
      collectAll((page) => api.creditHistory({ ...q, page, limit: LIST_ALL_PAGE_SIZE }, options)),
    report: (summaryDate, options) =>
      call("getBillingReport", { path: { summary_date: summaryDate }, signal: options?.signal }),
    summary: (options) => call("getBillingSummary", { signal: options?.signal }),
  };
  return api;
}
