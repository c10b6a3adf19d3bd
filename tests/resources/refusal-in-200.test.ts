/**
 * A host that writes a refusal as a success (HTTP 200, `data` null, the reason in `message`; the simulator's
 * `respondNext` with a 2xx status and `data`): the create's answer cannot be read, so the provider looks for the VM
 * before anything else (it may exist), and its error quotes the host's own words, not only the field that did not
 * parse (facts audit: "Saldo Anda tidak mencukupi." was nowhere in the message). Judged by the simulator's state.
 */
import "./instance-env";
import { providers } from "../../provider";
import { harnessSuite, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";
import { ResourceInitError } from "../../provider/resources/common/errors";
import { isUnconfirmedId } from "../../provider/resources/common/unconfirmed";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());

// A 200 without the VM's id cannot be told from a host that queues the create and lists the VM later (create-answered-
// without-id.test.ts): the create is never sent again, and when no VM appears it is recorded as unconfirmed (the state
// keeps what may exist), which the next refresh drops once nothing is found (real-api-facts audit; it used to be sent
// up to three times and said "nothing was made").
it("a create refused in a 200: no VM, sent once, and the error says what the host said", async () => {
  await h().setFaults({ respondNext: { operation: "createInstance", status: 200, message: "Saldo Anda tidak mencukupi.", data: null, count: 5 } });
  const inputs = (await instance.check({}, { ...validCreate, hostname: "refused-in-200" })).inputs;
  const mark = h().mark();
  const error = (await instance.create(inputs).then(() => undefined, (e: unknown) => e)) as ResourceInitError;
  expect(error.message).toContain('HTTP 200 unexpected response format: data: Invalid input: expected object, received null. The API said: "Saldo Anda tidak mencukupi.".');
  expect(error.message).toContain("It was not sent again");
  expect(h().operationsSince(mark).filter((o) => o === "createInstance")).toHaveLength(1);
  expect((await h().state()).instances.filter((i) => i.hostname === "refused-in-200")).toEqual([]);
  // the record of what may exist: a refresh finds nothing and drops it
  expect(isUnconfirmedId(error.id)).toBe(true);
  expect(await instance.read(error.id, error.properties)).toEqual({});
});
