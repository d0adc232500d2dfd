// writer_sampler.mjs: the chapter's samples, written at build by the page's
// own code (toycalc/site/writer_sampler.py runs it in Node): writer.js's
// forward pass on kernels.wasm and its draws, on the weights as the page
// reads them. In: a job on stdin, the model as gpt.js's `load` reads it
// and the runs; out: each run's ids, as JSON on stdout.
//   node writer_sampler.mjs DOCS_JAVASCRIPTS_DIR < job.json
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const js = (name) => import(pathToFileURL(path.join(process.argv[2], `${name}.js`)).href);
const [gpt, writer] = [await js("gpt"), await js("writer")];
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const model = gpt.load(job.model);
const written = [];
for (const { ids, n, temperature, k, seed } of job.runs) {
  written.push((await writer.write(model, ids, n, temperature, k, seed)).ids);
}
process.stdout.write(JSON.stringify(written));
