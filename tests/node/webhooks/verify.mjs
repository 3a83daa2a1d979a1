// Verifies captured livechatd deliveries with the Standard Webhooks reference
// library (npm `standardwebhooks`), unmodified. Input: a JSON file of
// {"cases":[{"secret","headers":{name:value},"body"}]}; output: one line per
// case, "<index> verified" or "<index> refused: <the library's message>".
// The caller (tests/e2e/webhooks_e2e_test.cc) knows which must verify.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const { cases } = JSON.parse(readFileSync(process.argv[2], "utf8"));
cases.forEach((c, i) => {
  try {
    new Webhook(c.secret).verify(c.body, c.headers);
    console.log(`${i} verified`);
  } catch (e) {
    console.log(`${i} refused: ${e.message}`);
  }
});
