// Bundle each widget entry (src/<widget>/index.js + src/<widget>/<widget>.css) into one ESM
// file in the Python package, which anywidget loads from a blob: URL (so a bundle imports nothing).
// `node build.mjs --check` builds to memory and exits 1 if a committed bundle is stale;
// `node build.mjs flame` (or `npm run build -- flame heatmap`) builds only the widgets named.
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { buildExport } from "./build-export.mjs";

const ENTRIES = ["explorer", "heatmap", "picker", "spec_box", "banner", "matrix", "flame"];
// every widget draws the same error banner: its style is shared by all bundles
const SHARED_CSS = readFileSync("src/lib/banner.css", "utf8");
const OUT = "../src/perfweave/widgets/static";
const check = process.argv.includes("--check");
const named = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const unknown = named.filter((n) => !ENTRIES.includes(n) && n !== "export");
if (unknown.length) {
  console.error(`no widget entry ${unknown.join(", ")} (entries: ${ENTRIES.join(", ")}, export)`);
  process.exit(2);
}
let stale = [];

for (const name of ENTRIES.filter((n) => !named.length || named.includes(n))) {
  const result = await build({
    entryPoints: [`src/${name}/index.js`],
    bundle: true,
    format: "esm",
    target: "es2020",
    minify: false,
    legalComments: "none",
    write: false,
    tsconfigRaw: "{}", // jsconfig.json is for `npm run typecheck` only, not the bundles
  });
  const js = result.outputFiles[0].text;
  const css = SHARED_CSS + readFileSync(`src/${name}/${name}.css`, "utf8");
  const targets = [[`${OUT}/${name}.js`, js], [`${OUT}/${name}.css`, css]];
  for (const [path, text] of targets) {
    if (check) {
      let current = "";
      try { current = readFileSync(path, "utf8"); } catch { /* missing counts as stale */ }
      if (current !== text) stale.push(path);
    } else {
      writeFileSync(path, text);
    }
  }
}
if (!named.length || named.includes("export")) {
  stale.push(...(await buildExport(check))); // the offline renderer of `perfweave export`
}
if (check && stale.length) {
  console.error(`stale bundles (run npm run build in js/): ${stale.join(", ")}`);
  process.exit(1);
}
