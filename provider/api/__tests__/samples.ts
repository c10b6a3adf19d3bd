/**
 * Realistic wire samples of every operation, one per format variant real-api-facts.md lists, with the
 * normalized values a caller must get. Typed against `WireResponse<K>`, so a sample that drifts from the
 * schema's wire shape fails the type check too.
 */
import type { OperationId } from "../routes";
import type { WireResponse } from "../operations";

/** One sample: a name, the wire envelope, and a subset of the normalized `data` it must produce. */
export type Sample<K extends OperationId> = { variant: string; wire: WireResponse<K>; expected: unknown };

const UUID = "9f1c2b7e-3a4d-4c5e-8f90-1a2b3c4d5e6f";
const UUID2 = "0b6f0e1a-2c3d-4e5f-9a8b-7c6d5e4f3a2b";
const page1 = { total: 1, count: 1, per_page: 10, current_page: 1, total_pages: 1 };
const gatewayNone = { uuid: null, hostname: null, private_ip: null };

export const samples: { [K in OperationId]: Sample<K>[] } = {
  listInstances: [
    {
      variant: "docs sample: no os, storage '30GB' without space, ip null, extra ipv6_address, 'DD Month YYYY, HH:MM'",
      wire: {
        message: "Success",
        data: {
          data: [
            {
              uuid: UUID, hostname: "web-1", ip_address: null, cpu: 2, memory: "2 GB", storage: "30GB", status: "Running",
              location: "Jakarta", tier: "Standard", price_per_hour: 125, estimated_monthly_cost: 90000, cost: null,
              operation_flag: 0, created_at: "25 January 2024, 14:43",
              ...({ ipv6_address: "2001:db8::1" } as object),
            },
          ],
          active_operation: 0,
          page: page1,
        },
      },
      expected: {
        data: [{ uuid: UUID, ip_address: null, cpu: 2, memory: 2, storage: 30, os: null, cost: null, created_at: "2024-01-25T07:43:00.000Z" }],
        active_operation: 0,
        page: { total_pages: 1 },
      },
    },
    {
      variant: "row with os, memory in MB, numeric strings from Laravel decimals",
      wire: {
        message: "Success",
        data: {
          data: [
            {
              uuid: UUID2, hostname: "db-1", ip_address: "103.10.20.30", cpu: 4, memory: "4096 MB", storage: "80 GB", status: "Stopped",
              os: { name: "Ubuntu 22.04", image: "https://cdn.example/ubuntu.png" }, location: "Surabaya", tier: "Premium",
              price_per_hour: "250.5", estimated_monthly_cost: "180360", cost: 1200, operation_flag: "1", created_at: "2 February 2024, 09:05",
            },
          ],
          active_operation: 1,
          page: { ...page1, current_page: "1", total_pages: 1 },
        },
      },
      expected: {
        data: [{ memory: 4, storage: 80, os: { name: "Ubuntu 22.04" }, price_per_hour: 250.5, operation_flag: 1, created_at: "2024-02-02T02:05:00.000Z" }],
        active_operation: 1,
      },
    },
  ],
  createInstance: [
    {
      variant: "spec 2.4: integer GB sizes, ISO timestamps with .000000Z",
      wire: {
        message: "Vm berhasil dibuat",
        data: {
          uuid: UUID, hostname: "web-1", node_id: 3, cpu: 2, memory: 2, storage: 40, status: "creating", username: "admin",
          active_price_per_min: 2.08, inactive_price_per_min: 0.5, template_id: 7, billing_id: 99, customer_id: 12,
          updated_at: "2023-01-27T02:42:31.000000Z", created_at: "2023-01-27T02:42:31.000000Z", id: 501,
        },
      },
      expected: { uuid: UUID, memory: 2, storage: 40, status: "creating", created_at: "2023-01-27T02:42:31.000Z" },
    },
    {
      variant: "minimal: only the uuid (a create must not fail on the rest)",
      wire: { message: "Vm berhasil dibuat", data: { uuid: UUID } },
      expected: { uuid: UUID, created_at: null },
    },
  ],
  getInstance: [
    {
      variant: "cpu '2', sizes in GB, public address and private network set",
      wire: {
        message: "Success",
        data: {
          uuid: UUID, hostname: "web-1", username: "admin", cpu: "2", is_cpu_dedicated: false, memory: "2 GB", storage: "60 GB",
          status: "Running", os_name: "Ubuntu 22.04", public_ip: { ip_id: UUID2, ip_address: "103.10.20.30" }, rdns: "web.example.com",
          private_network: "10.0.0.5", location_id: 1, location: "Jakarta", tier_id: 2, tier: "Standard",
          os: { template_id: 7, version: 22.04, os_id: 3, name: "Ubuntu", image: "ubuntu.png", min_cpu: 1, min_memory: 1, min_storage: 20 },
          price_per_hour: 125, estimated_monthly_price: 90000, cost: 5000, operation_flag: 0,
          created_at: "26-08-2024 10:00:00", updated_at: "26-08-2024 10:30:15", last_started_at: "26-08-2024 10:01:00", last_backup_at: null,
        },
      },
      expected: {
        cpu: 2, memory: 2, storage: 60, public_ip: { ip_id: UUID2, ip_address: "103.10.20.30" }, rdns: "web.example.com",
        private_network: "10.0.0.5", os: { version: "22.04" }, created_at: "2024-08-26T03:00:00.000Z", updated_at: "2024-08-26T03:30:15.000Z",
        last_backup_at: null,
      },
    },
    {
      variant: "cpu '2 CPU', memory '2048 MB', '-' placeholders, dedicated as 1, last_backup_at set",
      wire: {
        message: "Success",
        data: {
          uuid: UUID, hostname: "web-1", username: "admin", cpu: "2 CPU", is_cpu_dedicated: 1, memory: "2048 MB", storage: "61440 MB",
          status: "Stopped", os_name: "Debian 12", public_ip: { ip_id: "-", ip_address: "-" }, rdns: "-", private_network: "-",
          location_id: 1, location: "Jakarta", tier_id: 2, tier: "Standard",
          os: { template_id: 8, version: "12", os_id: 4, name: "Debian", min_cpu: 1, min_memory: 1, min_storage: 10 },
          price_per_hour: 125, estimated_monthly_price: 90000, cost: null, operation_flag: 0,
          created_at: "01-09-2024 00:15:00", updated_at: "01-09-2024 00:15:00", last_started_at: "01-09-2024 00:16:00",
          last_backup_at: "02-09-2024 03:00:00",
        },
      },
      expected: {
        cpu: 2, is_cpu_dedicated: true, memory: 2, storage: 60, public_ip: null, rdns: null, private_network: null,
        created_at: "2024-08-31T17:15:00.000Z", last_backup_at: "2024-09-01T20:00:00.000Z",
      },
    },
    ...[["-", "'-'"], [[], "[] (Laravel's empty relation)"]].map(([publicIp, what]) => ({
      variant: `public_ip ${what as string}, is_cpu_dedicated null, thousands in MB, sized template minimums, Indonesian price text`,
      wire: {
        message: "Success",
        data: {
          uuid: UUID, hostname: "web-1", username: "admin", cpu: 2, is_cpu_dedicated: null, memory: "2.048 MB", storage: "61,440 MB",
          status: "Running", os_name: "Debian 12", public_ip: publicIp, rdns: "-", private_network: "-",
          location_id: 1, location: "Jakarta", tier_id: 2, tier: "Standard",
          os: { template_id: 8, version: "12", os_id: 4, name: "Debian", min_cpu: 1, min_memory: "1 GB", min_storage: "10240 MB" },
          price_per_hour: "1.200,50", estimated_monthly_price: "Rp864.360,00", cost: null, operation_flag: 0,
          created_at: "01-09-2024 00:15:00", updated_at: "01-09-2024 00:15:00", last_started_at: "01-09-2024 00:16:00",
          last_backup_at: null,
        },
      },
      expected: {
        is_cpu_dedicated: false, memory: 2, storage: 60, public_ip: null, os: { min_memory: 1, min_storage: 10 },
        price_per_hour: 1200.5, estimated_monthly_price: 864360,
      },
    })),
  ],
  getInstanceMetrics: [
    {
      variant: "RRD series with 'YYYY-MM-DD HH:MM' times and an in-progress last point",
      wire: {
        message: "Success",
        data: {
          cpu: [{ time: "2023-10-25 16:38", cpu: 3.5 }, { time: "2023-10-25 16:39", cpu: 0 }],
          memory: [{ time: "2023-10-25 16:38", raw_max_memory: 2.1, max_memory: "1.96 GB", raw_usage_memory: 1.25, usage_memory: "1.17 GB" }],
          network: [{ time: "2023-10-25 16:38", raw_netin: 0, netin: "0 b", raw_netout: 1024, netout: "1 KB" }],
          disk: [{ time: "2023-10-25 16:38", raw_diskwrite: 2048, diskwrite: "2 KB", raw_diskread: 0, diskread: "0 b" }],
        },
      },
      expected: { cpu: [{ time: "2023-10-25T09:38:00.000Z", cpu: 3.5 }, { cpu: 0 }], memory: [{ usage_memory: "1.17 GB" }] },
    },
  ],
  listSizeTemplates: [
    {
      variant: "size templates (total_ram 1 = 1 GB)",
      wire: {
        message: "Success",
        data: [{ id: 1, title: "Small", total_cpu: 1, total_ram: 1, total_disk: 20, created_at: "2023-01-27T02:42:31.000000Z", updated_at: "2023-01-27T02:42:31.000000Z" }],
      },
      expected: [{ id: 1, total_ram: 1, total_disk: 20, updated_at: "2023-01-27T02:42:31.000Z" }],
    },
  ],
  changeTier: [{ variant: "vm_uuid", wire: { message: "Changing tier...", data: { vm_uuid: UUID } }, expected: { vm_uuid: UUID } }],
  setPassword: [
    { variant: "empty object", wire: { message: "Password updated", data: {} }, expected: null },
    { variant: "null", wire: { message: "Password updated", data: null }, expected: null },
    { variant: "empty array (Laravel's empty collection)", wire: { message: "Password updated", data: [] }, expected: null },
  ],
  changePublicIp: [
    { variant: "assigned", wire: { message: "ok", data: { instance: UUID, public_ip: "103.10.20.31" } }, expected: { public_ip: "103.10.20.31" } },
    { variant: "removed ('-')", wire: { message: "ok", data: { instance: UUID, public_ip: "-" } }, expected: { public_ip: null } },
  ],
  updateFirewallRule: [{ variant: "numeric id", wire: { message: "ok", data: { id: 17 } }, expected: { id: "17" } }],
  attachBlockStorage: [{ variant: "storage_id", wire: { message: "ok", data: { storage_id: UUID2 } }, expected: { storage_id: UUID2 } }],
  listBlockStorageOptions: [
    {
      variant: "size text without a space",
      wire: { message: "ok", data: [{ id: UUID2, name: "data-1", size: "50GB" }, { id: UUID, name: "data-2", size: "512 MB" }] },
      expected: [{ size: 50 }, { size: 0.5 }],
    },
  ],
  listSnapshots: [
    {
      variant: "status Error, 'DD Month YYYY HH:MM', attached storage",
      wire: {
        message: "ok",
        data: [
          {
            id: UUID2, name: "before-upgrade", description: "pre", status: "Error", current_hourly_price: null, current_cost: null,
            estimated_monthly: 15000, is_current_state: null, attached_storage: [{ id: UUID, name: "data-1", size: 50 }],
            created_at: "25 January 2024 14:37",
          },
        ],
      },
      expected: [{ status: "Error", is_current_state: false, current_hourly_price: null, estimated_monthly: 15000, attached_storage: [{ size: 50 }], created_at: "2024-01-25T07:37:00.000Z" }],
    },
  ],
  getSnapshotPrice: [{ variant: "price", wire: { message: "ok", data: { price_per_month: 15000 } }, expected: { price_per_month: 15000 } }],
  getBackupPrice: [
    {
      variant: "price",
      wire: { message: "ok", data: { storage_size: 40, block_storage_size: 50, price_per_hour: 12.5, price_per_month: 9000 } },
      expected: { price_per_month: 9000 },
    },
  ],
  listVswitches: [
    {
      variant: "location as a name, no gateway (all null), location_flag extra",
      wire: {
        message: "ok",
        data: [
          {
            uuid: UUID2, name: "private-a", tag: 101, location: "Jakarta", location_flag: "https://cdn.example/id.png",
            network_ip: "10.0.0.0/24", gateway: gatewayNone, status: "Active", created_at: "25 January 2024 14:37",
          },
        ],
      },
      expected: [{ location: { id: null, name: "Jakarta" }, gateway: gatewayNone, created_at: "2024-01-25T07:37:00.000Z" }],
    },
  ],
  listVswitchOptions: [
    {
      variant: "with a gateway",
      wire: {
        message: "ok",
        data: [
          {
            uuid: UUID2, name: "private-a", tag: 101, location: "Jakarta", network_ip: "10.0.0.0/24",
            gateway: { uuid: UUID, hostname: "gw", private_ip: "10.0.0.1" }, status: "Active", created_at: "25 January 2024 14:37",
          },
        ],
      },
      expected: [{ gateway: { private_ip: "10.0.0.1" } }],
    },
  ],
  getVswitch: [
    {
      variant: "location as {id, name}, numeric vid",
      wire: {
        message: "ok",
        data: {
          uuid: UUID2, name: "private-a", tag: 101, vid: 2001, location: { id: 1, name: "Jakarta" }, total_active_instance: 2,
          status: "Active", gateway: gatewayNone, created_at: "25 January 2024 14:37", last_update_at: "26 January 2024 08:00",
        },
      },
      expected: { vid: "2001", location: { id: 1, name: "Jakarta" }, last_update_at: "2024-01-26T01:00:00.000Z" },
    },
  ],
  getVswitchGraph: [
    {
      variant: "nodes and edges",
      wire: {
        message: "ok",
        data: {
          nodes: [{ id: "vs-1", type: "group", position: { x: 0, y: 0 }, data: { label: "private-a" }, style: {}, parent: "", draggable: false }],
          edges: [{ id: "e1", source: "vs-1", target: "vm-1", label: "10.0.0.5" }],
        },
      },
      expected: { nodes: [{ id: "vs-1" }], edges: [{ target: "vm-1" }] },
    },
  ],
  listPaymentMethods: [
    {
      variant: "categories",
      wire: {
        message: "ok",
        data: {
          bank: [{ name: "BCA Virtual Account", code: "BC", image: "https://cdn.example/bca.png", fee: 4000, vat: 440 }],
          card: [], ritel: [], ewallet: [], qris: [{ name: "QRIS", code: "SP", image: "https://cdn.example/qris.png", fee: 0.7, vat: 0.077 }],
        },
      },
      expected: { bank: [{ code: "BC", fee: 4000 }], qris: [{ fee: 0.7 }] },
    },
  ],
  createTopup: [
    {
      variant: "virtual account invoice",
      wire: {
        message: "Invoice created",
        data: {
          merchant_code: "D1234", reference_number: "DS1234", payment_url: "https://pay.example/x", amount: 100000,
          details: { amount: 100000, payment_fee: 4000, vat: 440 }, va_number: "1234567890", qr_string: "", invoice_id: UUID2,
        },
      },
      expected: { invoice_id: UUID2, va_number: "1234567890", qr_string: null, details: { payment_fee: 4000 } },
    },
  ],
  listCreditHistory: [
    {
      variant: "Rupiah text amounts",
      wire: {
        message: "ok",
        data: {
          data: [{ id: 5, type: "Add", description: "Top up", amount: "Rp10.000,00", balance_after: "Rp1.250.000,50", created_at: "25 January 2024, 14:43" }],
          page: page1,
        },
      },
      expected: { data: [{ amount: 10000, balance_after: 1250000.5, created_at: "2024-01-25T07:43:00.000Z" }] },
    },
  ],
  getBillingReport: [
    {
      variant: "'billing periode' key with a space, ISO date",
      wire: {
        message: "ok",
        data: {
          id: UUID2, "billing periode": "August 2024", billing_date: "2024-08-26", status: "Settled", fully_settle: true, total: 90000,
          can_download: true,
          services: [
            {
              service: "Instance", total: 90000,
              reports: [
                {
                  id: 1, service_name: "web-1", service_type: "vm", tier_name: "Standard", tier_icon: "std.png", total_cost: 90000,
                  details: [{ name: "cpu", base_price: 100, total_uptime_hour: 720, total_cost: 72000 }],
                },
              ],
            },
          ],
        },
      },
      expected: { "billing periode": "August 2024", billing_period: "August 2024", billing_date: "2024-08-26", services: [{ reports: [{ details: [{ total_uptime_hour: 720 }] }] }] },
    },
    {
      variant: "day-first date '26/08/2024', Not Settled",
      wire: {
        message: "ok",
        data: {
          id: UUID2, "billing periode": "August 2024", billing_date: "26/08/2024", status: "Not Settled", fully_settle: false, total: 0,
          can_download: false, services: [],
        },
      },
      expected: { billing_date: "2024-08-26", status: "Not Settled" },
    },
  ],
  cloneInstance: [{ variant: "new uuid", wire: { message: "Instance is on cloning progress", data: { uuid: UUID2 } }, expected: { uuid: UUID2 } }],
  getConsole: [
    { variant: "url", wire: { message: "ok", data: { url: "wss://console.example/?token=t", password: "p" } }, expected: { url: "wss://console.example/?token=t", password: "p" } },
    { variant: "webview instead of url", wire: { message: "ok", data: { webview: "https://console.example/view", password: "p" } }, expected: { url: "https://console.example/view" } },
  ],
  reinstallInstance: [{ variant: "ref", wire: { message: "ok", data: { uuid: UUID, hostname: "web-1" } }, expected: { uuid: UUID, hostname: "web-1" } }],
  deleteInstance: [
    { variant: "array of refs", wire: { message: "ok", data: [{ uuid: UUID, hostname: "web-1" }] }, expected: [{ uuid: UUID }] },
    { variant: "single ref", wire: { message: "ok", data: { uuid: UUID, hostname: "web-1" } }, expected: [{ uuid: UUID }] },
  ],
  startInstance: [{ variant: "ref", wire: { message: "ok", data: { uuid: UUID, hostname: "web-1" } }, expected: { uuid: UUID } }],
  stopInstance: [{ variant: "ref", wire: { message: "ok", data: { uuid: UUID, hostname: "web-1" } }, expected: { uuid: UUID } }],
  restartInstance: [{ variant: "ref", wire: { message: "ok", data: { uuid: UUID, hostname: "web-1" } }, expected: { uuid: UUID } }],
  listInstancesWithoutPublicIp: [
    { variant: "options", wire: { message: "ok", data: [{ id: UUID, hostname: "web-1" }] }, expected: [{ id: UUID, hostname: "web-1" }] },
  ],
  updateRdns: [{ variant: "stored name", wire: { message: "ok", data: "web.example.com" }, expected: "web.example.com" }],
  updatePrivateNetwork: [{ variant: "vm_uuid", wire: { message: "ok", data: { vm_uuid: UUID } }, expected: { vm_uuid: UUID } }],
  addPublicIp: [{ variant: "address", wire: { message: "ok", data: { vm_uuid: UUID, ip_address: "103.10.20.32" } }, expected: { ip_address: "103.10.20.32" } }],
  resizeInstance: [{ variant: "ref", wire: { message: "Virtual machine is resized successfully", data: { uuid: UUID, hostname: "web-1" } }, expected: { uuid: UUID } }],
  updateHostname: [{ variant: "ref", wire: { message: "Hostname successfully updated", data: { uuid: UUID, hostname: "web-2" } }, expected: { hostname: "web-2" } }],
  getChangeTierCost: [
    { variant: "estimate", wire: { message: "ok", data: { current_monthly_cost: 90000, estimated_new_monthly_cost: 120000 } }, expected: { estimated_new_monthly_cost: 120000 } },
  ],
  createSnapshot: [{ variant: "snap_uuid", wire: { message: "Creating snapshot...", data: { snap_uuid: UUID2 } }, expected: { snap_uuid: UUID2 } }],
  rollbackSnapshot: [{ variant: "uuid", wire: { message: "Instance can be started after rollback", data: { uuid: UUID } }, expected: { uuid: UUID } }],
  deleteSnapshot: [{ variant: "both ids", wire: { message: "Removing snapshot...", data: { vm_uuid: UUID, snap_uuid: UUID2 } }, expected: { vm_uuid: UUID, snap_uuid: UUID2 } }],
  listBackups: [
    {
      variant: "paged history",
      wire: {
        message: "Instance backup schedules",
        data: {
          page: page1,
          data: [{ id: UUID2, schedule: "daily", current_cost: 100, est_this_month: 3000, size: 40, created_at: "25 January 2024 14:37", attached_storage: [] }],
        },
      },
      expected: { data: [{ schedule: "daily", size: 40, created_at: "2024-01-25T07:37:00.000Z" }] },
    },
  ],
  deleteBackup: [{ variant: "not shown: anything", wire: { message: "ok", data: null }, expected: null }],
  listFirewallRules: [
    {
      variant: "paged, action codes",
      wire: {
        message: "ok",
        data: {
          data: [{ id: 3, destination_port: 22, protocol: "TCP", action: "A", source_ip: "0.0.0.0/0", description: "ssh", use_ipset: 0 }],
          page: page1,
        },
      },
      expected: { data: [{ id: "3", destination_port: "22", protocol: "tcp", action: "A", use_ipset: false }], page: { total: 1 } },
    },
    {
      variant: "bare array, spelled-out action, '-' source and description",
      wire: { message: "ok", data: [{ id: "fw-9", destination_port: "8000-8100", protocol: "udp", action: "Drop", source_ip: "-", description: "-" }] },
      expected: { data: [{ id: "fw-9", action: "D", source_ip: null, description: null }], page: { total_pages: 1 } },
    },
  ],
  createFirewallRule: [
    { variant: "{id}", wire: { message: "ok", data: { id: 12 } }, expected: { id: "12" } },
    { variant: "nothing useful", wire: { message: "ok", data: null }, expected: { id: null } },
  ],
  deleteFirewallRule: [{ variant: "null", wire: { message: "ok", data: null }, expected: null }],
  getFirewallDefault: [{ variant: "Accept", wire: { message: "ok", data: { action: "Accept" } }, expected: { action: "A" } }],
  updateFirewallDefault: [{ variant: "{}", wire: { message: "ok", data: {} }, expected: {} }],
  listBlockStorages: [
    {
      variant: "array; attached instance as an object, location object",
      wire: {
        message: "ok",
        data: [
          { id: UUID2, name: "data-1", size: "50 GB", location: { id: 1, name: "Jakarta" }, instance: { uuid: UUID, hostname: "web-1" } },
          { id: "bs-2", name: "data-2", size: 100, location: "Jakarta", instance: null },
        ],
      },
      expected: {
        data: [
          { size: 50, attached_instance_uuid: UUID, attached_instance_hostname: "web-1", location: { id: 1 } },
          { size: 100, attached_instance_uuid: null, location: { id: null, name: "Jakarta" } },
        ],
      },
    },
    {
      variant: "paged; attached instance as instance_uuid",
      wire: { message: "ok", data: { data: [{ id: UUID2, name: "data-1", size: "50GB", instance_uuid: UUID }], page: page1 } },
      expected: { data: [{ attached_instance_uuid: UUID, location: null }] },
    },
  ],
  detachBlockStorage: [{ variant: "{}", wire: { message: "ok", data: {} }, expected: {} }],
  listLocations: [
    { variant: "array, extra fields kept", wire: { message: "ok", data: [{ id: 1, name: "Jakarta", country: "ID" }] }, expected: [{ id: 1, name: "Jakarta", country: "ID" }] },
  ],
  listTiers: [{ variant: "wrapped {data}", wire: { message: "ok", data: { data: [{ id: 2, name: "Standard" }] } }, expected: [{ id: 2, name: "Standard" }] }],
  listSystems: [{ variant: "array", wire: { message: "ok", data: [{ id: 3, name: "Ubuntu", versions: ["22.04"] }] }, expected: [{ id: 3, versions: ["22.04"] }] }],
  getBillingSummary: [{ variant: "as sent", wire: { message: "ok", data: { balance: 1000 } }, expected: { balance: 1000 } }],
  getTopupStatus: [{ variant: "status", wire: { message: "ok", data: { status: "PAID", invoice_id: UUID2 } }, expected: { status: "PAID", invoice_id: UUID2 } }],
};
