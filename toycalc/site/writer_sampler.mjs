// writer_sampler.mjs: the chapter's samples, written at build by the page's
// own code (toycalc/site/writer_sampler.py runs it in Node): writer_pass.js's
// forward pass on kernels.wasm and its draws (one thread), on the weights
// as the page reads them. In: a job on stdin, the model (its setup, and its arrays as
// float32 bytes by their names in the weights file) and the runs; out:
// each run's ids, as JSON on stdout.
//   node writer_sampler.mjs DOCS_JAVASCRIPTS_DIR < job.json
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const js = (name) => import(pathToFileURL(path.join(process.argv[2], `${name}.js`)).href);
const [gpt, writer] = [await js("gpt"), await js("writer_pass")];
const job = JSON.parse(fs.readFileSync(0, "utf8"));
// each array as the page holds it once read from the file: { shape, values }, by name
const arrays = new Map(Object.entries(job.model.arrays).map(([name, { shape, f32 }]) =>
  [name, { shape, values: new Float32Array(Uint8Array.from(Buffer.from(f32, "base64")).buffer) }]));
const model = gpt.load(gpt.fromArrays(job.model.setup, arrays));
const written = [];
for (const { ids, n, temperature, k, seed } of job.runs) {
  written.push((await writer.write(model, ids, n, temperature, k, seed)).ids);
}
process.stdout.write(JSON.stringify(written));
