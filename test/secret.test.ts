import { inspect } from "node:util";
import { Keypair } from "@stellar/stellar-base";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { excerpt } from "../src/client/errors.js";
import { comparisonKey, retainSecretsOf, scrubbedStart, scrubSecrets, Secret } from "../src/config/secret.js";
import { TargetUrl } from "../src/config/target-url.js";
import { problems, writeConfig } from "./support/config-files.js";

describe("Secret", () => {
  it("prints <secret> as a string, in JSON, through util.inspect and in a pino line; reveal() gives the value", () => {
    const secret = new Secret("s3cr3t-value");
    const lines: string[] = [];
    pino({}, { write: (line: string) => lines.push(line) }).info(
      { secret, nested: { headers: { "X-Api-Key": secret } } },
      `got ${secret}`,
    );
    const shown = [
      String(secret),
      `${secret}`,
      JSON.stringify({ secret }),
      inspect({ deep: { secret } }, { depth: 5 }),
      ...lines,
    ].join("\n");
    expect(shown).not.toContain("s3cr3t-value");
    expect(shown.match(/<secret>/g)).toHaveLength(7);
    expect(secret.reveal()).toBe("s3cr3t-value");
  });

  it("compares by a fingerprint that tells nothing: equal values match, a rotated one does not", () => {
    const key = (token: string) =>
      comparisonKey({
        target: { url: new TargetUrl(`https://h.example/${token}/`), headers: { A: new Secret(token) } },
      });
    const before = key("aaaaaaaaaaaaaaaaaaaa");
    expect(key("aaaaaaaaaaaaaaaaaaaa")).toBe(before);
    expect(key("bbbbbbbbbbbbbbbbbbbb")).not.toBe(before);
    expect(before).not.toContain("aaaaaaaaaaaaaaaaaaaa");
  });

  it("masks what a server echoes: the URL's token, query value and password, a header's token", () => {
    new TargetUrl("https://user:pa55word-x@h.example/0123456789abcdefghij/?apikey=query-key-123");
    new Secret("Bearer header-token-456");
    const echoed =
      "Cannot GET /0123456789abcdefghij/ledgers?apikey=query-key-123 (pa55word-x, header-token-456) on h.example";
    expect(scrubSecrets(echoed)).toBe("Cannot GET /<secret>/ledgers?apikey=<secret> (<secret>, <secret>) on h.example");
  });
});

describe("a server's echo of a secret", () => {
  it("masks the Authorization header Node's http makes of a URL's userinfo", () => {
    new TargetUrl("https://us%65r:echo-pass-1@h.example/");
    const header = `Basic ${Buffer.from("user:echo-pass-1").toString("base64")}`;
    expect(scrubSecrets(`auth=${header}`)).toBe("auth=Basic <secret>");
  });

  it("is masked before a body is cut, so no part of it shows, wherever the cut falls", () => {
    new Secret("cut-across-9876543210");
    for (let at = 140; at < 170; at += 1) {
      const body = `${"p".repeat(at)} apikey=cut-across-9876543210 and more`;
      expect(excerpt(body)).not.toMatch(/cut-|9876/);
    }
    for (const length of [0, 5, 30]) {
      const start = scrubbedStart(`${"q".repeat(10)}cut-across-9876543210${"r".repeat(50)}`, length);
      expect(start).not.toMatch(/cut-|9876/);
      expect(start.startsWith("q".repeat(Math.min(length, 10)))).toBe(true);
    }
    expect(scrubbedStart("short cut-across-9876543210", 4)).toBe("short <secret>");
  });
});

describe("a target URL's display form", () => {
  it.each([
    ["https://horizon.stellar.org", "https://horizon.stellar.org/"],
    ["https://user:password@h.example:8443/api/v1?apikey=k#fragment", "https://h.example:8443/api/v1"],
    ["https://x.stellar-mainnet.example.pro/0123456789abcdef0/", "https://x.stellar-mainnet.example.pro/…"],
    ["https://h.example/v1/8f14e45f-ceea-467f-a0d6-1d5c2b1e9a3f/rpc", "https://h.example/…"],
    ["https://h.example/soroban-testnet/rpc", "https://h.example/soroban-testnet/rpc"],
    ["http://127.0.0.1:8000/abcdefghij012345", "http://127.0.0.1:8000/abcdefghij012345"],
  ])("%s shows as %s", (url, display) => {
    const target = new TargetUrl(url);
    expect(target.display).toBe(display);
    expect(`${target}`).toBe(display);
    expect(target.href.reveal()).toBe(url);
  });

  it("shows a token path when the target marks it public, never the query or userinfo", () => {
    expect(new TargetUrl("https://u:p@h.example/0123456789abcdef0/?k=v", true).display).toBe(
      "https://h.example/0123456789abcdef0/",
    );
    expect(new TargetUrl("https://u:p@h.example:444/x").host).toBe("h.example:444");
  });
});

describe("a secret seed where an account id belongs", () => {
  const seed = Keypair.random().secret();
  const message = "that is a secret seed, not an account id: give its public key (G...)";

  it("is refused on the command line and in the environment without echoing it", async () => {
    expect(await problems(["--horizon.url=http://h:1", `--account=hot=${seed}`])).toEqual([`--account: ${message}`]);
    expect(await problems(["--horizon.url=http://h:1", `--account=${seed}`])).toEqual([`--account: ${message}`]);
    expect(await problems([], { HORIZON_URL: "http://h:1", ACCOUNTS: `hot=${seed}` })).toEqual([
      `ACCOUNTS: ${message}`,
    ]);
    const asAsset = await problems([
      "--rpc.url=http://h:1",
      `--account=${Keypair.random().publicKey()}`,
      `--account.asset=USDC:${seed}`,
    ]);
    expect(asAsset).toEqual([expect.stringMatching(new RegExp(`: the issuer: ${message.replace(/[().]/g, "\\$&")}$`))]);
    expect(asAsset.join("")).not.toContain(seed);
    // Mistyped (a bad checksum), it is still not shown.
    const mistyped = `${seed.slice(0, -1)}${seed.endsWith("A") ? "B" : "A"}`;
    expect(await problems(["--horizon.url=http://h:1", `--account=${mistyped}`])).toEqual([`--account: ${message}`]);
  });

  it("is refused in the config file at its key path, as an id or as an issuer", async () => {
    const issuer = Keypair.random().publicKey();
    const asId = writeConfig(`targets:
  - url: http://h:1
    accounts:
      - { name: ok, id: ${issuer} }
      - { id: ${seed} }
`);
    expect(await problems([`--config.file=${asId}`])).toEqual([`${asId}:5: targets[0].accounts[1].id: ${message}`]);
    const asIssuer = writeConfig(`targets:
  - url: http://h:1
    accounts:
      - { name: ok, id: ${issuer} }
      - { name: hot, id: ${issuer}, low_balance: { "USDC:${seed}": 1 } }
`);
    expect(await problems([`--config.file=${asIssuer}`])).toEqual([
      `${asIssuer}: targets[0].accounts[1].low_balance: the issuer: ${message}`,
    ]);
  });

  it("is never shown in a problem with a header value or a web config hash", async () => {
    const path = writeConfig(`targets:\n  - url: http://h:1\n    headers: { X-Api-Key: 98765432109876 }\n`);
    expect(await problems([`--config.file=${path}`])).toEqual([
      `${path}:3: targets[0].headers.X-Api-Key: expected text (quote it)`,
    ]);
    const web = writeConfig(`basic_auth_users: { prometheus: 98765432109876 }\n`);
    expect(await problems(["--horizon.url=http://h:1", `--web.config.file=${web}`])).toEqual([
      `${web}:1: basic_auth_users.prometheus: expected a bcrypt hash ($2y$10$...)`,
    ]);
  });
});

describe("the secrets scrubbed across reloads", () => {
  it("are those of the configuration in use: a token rotated out a hundred times ago is no longer held", () => {
    const configurations = Array.from({ length: 100 }, (_, index) => ({
      targets: [{ headers: { Authorization: new Secret(`Bearer rotated-token-${index}`) } }],
      web: { basicAuthUsers: { admin: new Secret(`$2b$10$hash-of-password-${index}`) } },
    }));
    for (const configuration of configurations) retainSecretsOf(configuration);
    expect(scrubSecrets("rotated-token-99 $2b$10$hash-of-password-99")).toBe("<secret> <secret>");
    expect(scrubSecrets("rotated-token-0 and rotated-token-98")).toBe("rotated-token-0 and rotated-token-98");
  });

  it("masks a target URL by its parts only: one that holds no secret is shown as it is", () => {
    const shown = new TargetUrl("http://127.0.0.1:18999/");
    const keyed = new TargetUrl("https://rpc.example/?apikey=key-in-query-2");
    retainSecretsOf({ targets: [{ url: shown }, { url: keyed }] });
    expect(scrubSecrets(`${shown.href.reveal()} ${keyed.href.reveal()}`)).toBe(
      "http://127.0.0.1:18999/ https://rpc.example/?apikey=<secret>",
    );
  });

  it("keeps the parts of a target URL, which a server may echo on their own", () => {
    const url = new TargetUrl("https://user:pass-word-1@rpc.example/0123456789abcdef0123/?apikey=key-in-query");
    retainSecretsOf({ rpcTargets: [{ url }] });
    expect(scrubSecrets("pass-word-1 0123456789abcdef0123 key-in-query")).toBe("<secret> <secret> <secret>");
  });
});
