// The offline widget renderer of `perfweave export` (src/export/embed.js): ipywidgets' HTML
// manager and core controls bundled into one minified script plus its CSS, committed in the
// Python package like the widget bundles (`npm run build`; `npm run check` finds it stale).
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";

const OUT = "../src/perfweave/apps/export/static";

// ipywidgets 7 states are never written by this package's kernels: leave their copies out.
const noWidgets7 = {
  name: "no-widgets7",
  setup(b) {
    b.onResolve({ filter: /^@jupyter-widgets\/(base7|controls7)(\/|$)/ }, (args) => ({
      path: args.path,
      namespace: "widgets7",
    }));
    b.onLoad({ filter: /.*/, namespace: "widgets7" }, (args) => ({
      contents: args.path.endsWith(".css")
        ? ""
        : `throw new Error("ipywidgets 7 widget state is not supported: ${args.path}");`,
      loader: args.path.endsWith(".css") ? "css" : "js",
    }));
  },
};

export async function buildExport(check) {
  const result = await build({
    entryPoints: ["src/export/embed.js"],
    bundle: true,
    format: "iife",
    target: "es2020",
    minify: true,
    legalComments: "none",
    write: false,
    tsconfigRaw: "{}", // jsconfig.json is for `npm run typecheck` only, not the bundles
    outdir: OUT,
    plugins: [noWidgets7],
    loader: { ".woff": "dataurl", ".woff2": "dataurl", ".ttf": "dataurl", ".eot": "dataurl", ".svg": "dataurl" },
    define: { "process.env.NODE_ENV": '"production"', global: "window" },
  });
  const stale = [];
  for (const file of result.outputFiles) {
    const path = `${OUT}/${file.path.split("/").pop()}`;
    if (check) {
      let current = "";
      try { current = readFileSync(path, "utf8"); } catch { /* missing counts as stale */ }
      if (current !== file.text) stale.push(path);
    } else {
      writeFileSync(path, file.text);
    }
  }
  return stale;
}
