// A program that is data (tests/e2e/spec-stack.ts): resources built from the JSON stack config key `spec`.
// spec.resources: [{ type, name, args, opts: { deletedWith, dependsOn, replaceOnChanges, ignoreChanges, deleteBeforeReplace, import, retainOnDelete } }]
// In args, a string "$id:<name>" becomes that resource's id ("$first:<a>,<b>": a's id computed from both); "$password"
// the secret password.
const pulumi = require("@pulumi/pulumi");
const vmhost = require("pulumi-vmhost");
const cfg = new pulumi.Config();
const spec = JSON.parse(cfg.require("spec"));
const password = cfg.requireSecret("vmPassword");
const made = {};
const resolve = (v) => {
  if (typeof v === "string" && v.startsWith("$id:")) return made[v.slice(4)].id;
  // "$first:a,b": the first one's id, computed from both (unknown while either is replaced)
  if (typeof v === "string" && v.startsWith("$first:")) return pulumi.all(v.slice(7).split(",").map((n) => made[n].id)).apply((ids) => ids[0]);
  if (v === "$password") return password;
  if (Array.isArray(v)) return v.map(resolve);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  return v;
};
for (const r of spec.resources) {
  const o = r.opts || {};
  const opts = {};
  if (o.deletedWith) opts.deletedWith = made[o.deletedWith];
  if (o.dependsOn) opts.dependsOn = o.dependsOn.map((n) => made[n]);
  if (o.replaceOnChanges) opts.replaceOnChanges = o.replaceOnChanges;
  if (o.ignoreChanges) opts.ignoreChanges = o.ignoreChanges;
  if (o.deleteBeforeReplace !== undefined) opts.deleteBeforeReplace = o.deleteBeforeReplace;
  if (o.import !== undefined) opts.import = o.import;
  if (o.retainOnDelete !== undefined) opts.retainOnDelete = o.retainOnDelete;
  made[r.name] = new vmhost[r.type](r.name, resolve(r.args), opts);
}
module.exports = Object.fromEntries(Object.entries(made).map(([n, r]) => [n + "Id", r.id]));
