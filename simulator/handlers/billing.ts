/** Billing routes: payment methods, top-ups, credit history, billing summary and reports. */
import { fieldError, notFound } from "../errors";
import type { Handler } from "../handler";
import { ok, paginate, queryInput } from "../handler";
import { paymentFee } from "../seed";
import type { BillingReport, Invoice } from "../state";
import { Validator } from "../validation";
import { dashDateTime, jakartaDateStart, round2, rupiah, slashDate } from "../wire";
import { pageParams } from "./instances";

/** Smallest and largest top-up amounts accepted (Rupiah). */
export const TOPUP_LIMITS = { min: 10_000, max: 100_000_000 } as const;

const listPaymentMethods: Handler = (ctx, req) => {
  const v = new Validator(queryInput(req.query));
  const amount = v.integer("amount", { min: 0 }) ?? 0;
  v.check();
  const data: Record<string, unknown[]> = { bank: [], card: [], ritel: [], ewallet: [], qris: [] };
  for (const m of ctx.state.paymentMethods) {
    const { fee, vat } = paymentFee(m, amount);
    data[m.category]!.push({ name: m.name, code: m.code, image: m.image, fee, vat });
  }
  return ok("Success", data);
};

const createTopup: Handler = (ctx, req) => {
  const state = ctx.state;
  const v = new Validator(req.body);
  const code = v.string("payment_method", { required: true });
  const amount = v.integer("amount", { required: true, min: TOPUP_LIMITS.min, max: TOPUP_LIMITS.max });
  v.check();
  const method = state.paymentMethods.find((m) => m.code === code);
  if (!method) throw fieldError("payment_method", "The selected payment method is invalid.");
  const { fee, vat } = paymentFee(method, amount!);
  const uuid = ctx.ids.uuid();
  const number = state.counters.invoiceNumber++;
  const reference = `INV${String(number).padStart(8, "0")}`;
  // Which payment fields are filled depends on the channel: bank -> virtual account number, QRIS -> QR
  // string; every invoice has a payment page URL.
  const invoice: Invoice = {
    uuid, referenceNumber: reference, paymentMethod: method.code, amount: amount!, fee, vat,
    vaNumber: method.category === "bank" ? `8808${String(state.customerId).padStart(6, "0")}${String(number).padStart(6, "0")}` : "",
    qrString: method.category === "qris" ? `00020101021226670016ID.VMHOST.SIM0118${reference}5204481453033605802ID6304` : "",
    paymentUrl: `https://pay.vmhost.local/invoice/${uuid}`,
    status: "Pending", createdAt: ctx.now, paysAt: ctx.now + Math.round(ctx.opSeconds * 1000),
  };
  state.invoices.push(invoice);
  return ok("Invoice created", {
    merchant_code: "VMHOSTSIM",
    reference_number: invoice.referenceNumber,
    payment_url: invoice.paymentUrl,
    amount: invoice.amount,
    details: { amount: invoice.amount, payment_fee: fee, vat },
    va_number: invoice.vaNumber,
    qr_string: invoice.qrString,
    invoice_id: invoice.uuid,
  });
};

const getTopupStatus: Handler = (ctx, req) => {
  const inv = ctx.state.invoices.find((i) => i.uuid === req.params["invoice_id"]!.toLowerCase());
  if (!inv) throw notFound("Invoice");
  return ok("Success", {
    invoice_id: inv.uuid,
    reference_number: inv.referenceNumber,
    payment_method: inv.paymentMethod,
    amount: inv.amount,
    status: inv.status,
    paid_at: inv.status === "Paid" ? dashDateTime(inv.paysAt) : null,
    created_at: dashDateTime(inv.createdAt),
  });
};

const listCreditHistory: Handler = (ctx, req) => {
  const v = new Validator(queryInput(req.query));
  const { page, limit } = pageParams(v, ctx);
  const start = v.date("start");
  const end = v.date("end");
  const type = v.oneOf("type", ["A", "D"] as const);
  v.check();
  const from = start ? jakartaDateStart(start)! : -Infinity;
  const to = end ? jakartaDateStart(end)! + 86400000 : Infinity; // end date inclusive
  const items = ctx.state.credit
    .filter((c) => c.createdAt >= from && c.createdAt < to)
    .filter((c) => !type || (type === "A" ? c.type === "Add" : c.type === "Deduct"))
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
    .map((c) => ({
      id: c.id, type: c.type, description: c.description, amount: rupiah(c.amount), balance_after: rupiah(c.balanceAfter),
      created_at: slashDate(c.createdAt),
    }));
  return ok("Success", paginate(items, page, limit));
};

const reportTotal = (r: BillingReport): number =>
  round2(r.lines.reduce((s, l) => s + l.details.reduce((t, d) => t + d.totalCost, 0), 0));

const getBillingSummary: Handler = (ctx) =>
  ok("Success", [...ctx.state.billingReports].sort((a, b) => b.billingDate.localeCompare(a.billingDate)).map((r) => ({
    id: r.id, "billing periode": r.period, billing_date: r.billingDate, status: r.status, fully_settle: r.fullySettle,
    total: reportTotal(r), can_download: r.canDownload,
  })));

const getBillingReport: Handler = (ctx, req) => {
  const date = req.params["summary_date"]!;
  const v = new Validator({ summary_date: date });
  v.date("summary_date", { required: true });
  v.check();
  const r = ctx.state.billingReports.find((x) => x.billingDate === date);
  if (!r) throw notFound("Billing report");
  const groups = new Map<string, typeof r.lines>();
  for (const line of r.lines) groups.set(line.service, [...(groups.get(line.service) ?? []), line]);
  return ok("Success", {
    id: r.uuid,
    "billing periode": r.period,
    billing_date: r.billingDate,
    status: r.status,
    fully_settle: r.fullySettle,
    total: reportTotal(r),
    can_download: r.canDownload,
    services: [...groups].map(([service, lines]) => ({
      service,
      total: round2(lines.reduce((s, l) => s + l.details.reduce((t, d) => t + d.totalCost, 0), 0)),
      reports: lines.map((l) => ({
        id: l.id, service_name: l.serviceName, service_type: l.serviceType, tier_name: l.tierName, tier_icon: l.tierIcon,
        total_cost: round2(l.details.reduce((t, d) => t + d.totalCost, 0)),
        details: l.details.map((d) => ({ name: d.name, base_price: d.basePrice, total_uptime_hour: d.totalUptimeHour, total_cost: d.totalCost })),
      })),
    })),
  });
};

/** Handlers of the billing routes, by operation id. */
export const billingHandlers = {
  listPaymentMethods, createTopup, getTopupStatus, listCreditHistory, getBillingSummary, getBillingReport,
} satisfies Record<string, Handler>;
