/**
 * Every route of the client's table is a route of the simulator: called with placeholder ids it may
 * answer 404 for the unknown id or 422 for missing input, but never "route not found" nor 405. The
 * simulator keeps its own route list (simulator/routes.ts); this test is what keeps the two in step.
 */
import { routes } from "../../provider/api/routes";
import { simRoutes } from "../routes";
import { startTestSim, type TestSim } from "./harness";

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.close());

const PLACEHOLDER = "00000000-0000-4000-8000-000000000000";

describe("route coverage", () => {
  it.each(Object.entries(routes))("%s is served", async (id, route) => {
    const path = route.path.replace(/\{\w+\}/g, route.path.includes("summary_date") ? "2024-11-01" : PLACEHOLDER);
    const res = await t.call(route.method, path);
    expect(res.status).not.toBe(405);
    expect(String(res.body?.message)).not.toMatch(/could not be found/);
    // The log names the operation the simulator matched: it must be the same operation, not a look-alike.
    const log = t.sim.requests();
    expect(log[log.length - 1]!.operation).toBe(id);
  });

  it("answers an unknown route with Laravel's 404 and a wrong method with 405", async () => {
    const unknown = await t.call("GET", "/instance/x/unknown-thing");
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("The route v1/instance/x/unknown-thing could not be found.");
    const wrongMethod = await t.call("PUT", "/instance/create");
    expect(wrongMethod.status).toBe(405);
    const badEscape = await t.call("GET", "/instance/%E0%A4%A/detail");
    expect(badEscape.status).toBe(404);
    expect(badEscape.body).toEqual({ message: "Instance not found." });
  });

  it("names its routes with the client's operation ids (the request log and fault targeting use them)", () => {
    expect(simRoutes.map((r) => r.id).sort()).toEqual(Object.keys(routes).sort());
  });
});
