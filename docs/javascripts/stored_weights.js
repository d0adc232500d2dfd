// stored_weights.js: a page helper: what is wrong with the weights a reader keeps for
// nano-gpt's chapter ("Follow these weights" on Train it yourself stores
// them in sessionStorage, where a reader may edit them as easily): their
// arrays against the book's model, their record against what the weights
// do, measured here as the build measures them (nano_example.py's
// check_record). letters.js asks before any part of a page uses them and
// shows the problem, in one sentence, instead of the weights.

import * as gpt from "./gpt.js";
import { MAX_WEIGHT, beyondBounds } from "./descent.js";
import * as safetensors from "./safetensors.js";

const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v);

/** The reader's weights file (`weights`, safetensors in base64) read
 *  and measured against the book's (`book`: letters.js's {setup, arrays}):
 *  a file safetensors.js reads (its header checked before any number is
 *  read, so that a huge declared shape costs nothing), the book's arrays
 *  and no other, each of the book's shape, every weight finite and within
 *  ±MAX_WEIGHT (the weights file's rule). {arrays} or {problem}: one
 *  sentence naming the array and the entry. */
function arraysProblem(weights, book) {
  if (typeof weights !== "string") return { problem: `their weights file is ${kind(weights)}, not a file` };
  let bytes;
  try {
    bytes = Uint8Array.from(atob(weights), (c) => c.charCodeAt(0));
  } catch (e) {
    return { problem: "their weights file is not base64" };
  }
  let arrays;
  try {
    const shapes = new Map([...book.arrays].map(([name, a]) => [name, a.shape]));
    ({ arrays } = safetensors.read(bytes.buffer, shapes, "the book's model"));
  } catch (e) {
    return { problem: e.message };
  }
  const values = {};
  for (const [name, { shape, values: v }] of arrays) {
    const cols = shape.length === 2 ? shape[1] : v.length;
    values[name] = shape.length === 2 ? Array.from({ length: shape[0] }, (_, r) => v.subarray(r * cols, (r + 1) * cols)) : v;
  }
  // the weights file's rule, as toy training keeps it (descent.js)
  const beyond = beyondBounds(values);
  if (beyond) {
    const x = beyond.value;
    return { problem: `${beyond.name}[${beyond.index.join(", ")}] is ` +
             `${Number.isNaN(x) ? "NaN, not a number" : Number.isFinite(x) ? String(x) : "infinite"}, ` +
             `where every weight must be finite and within ±${MAX_WEIGHT.toLocaleString("en-US")}` };
  }
  return { arrays };
}

/** The reader's record against the book's: each of the book's fields
 *  there (made_with aside: a record made in the browser says other things
 *  in it) and of the same kind (a number finite, a list's items of the
 *  kind of the book's first); what the page shows of it never reads
 *  "undefined". */
function recordProblem(mine, book, where) {
  if (kind(mine) !== kind(book)) return `${where} is ${kind(mine)}, where the book's is ${kind(book)}`;
  if (typeof book === "number" && !Number.isFinite(mine)) return `${where} is not a finite number`;
  if (Array.isArray(book)) {
    for (let i = 0; i < mine.length && book.length; i++) {
      const p = recordProblem(mine[i], book[0], `${where}[${i}]`);
      if (p) return p;
    }
  } else if (kind(book) === "object") {
    for (const key of Object.keys(book)) {
      if (key === "made_with") continue;
      if (mine[key] === undefined) return `${where} has no ${key}`;
      const p = recordProblem(mine[key], book[key], `${where}'s ${key}`);
      if (p) return p;
    }
  }
  return null;
}

// nano_example.py's LOSS_TOLERANCE: a record's losses are rounded to 1e-8
const LOSS_TOLERANCE = 1e-6;

/** The reader's weights on every input, as the build counts them
 *  (nano_example.py): {sorted, inputs, loss}. Quickly in float32
 *  (batched.js on kernels.wasm, ~0.1 s), and again in float64 (train.js,
 *  as the worker confirms a run's end; ~2 s) only where that disagrees with
 *  the record, so that a count at the margin is the build's. */
async function measure(data, record) {
  const model = gpt.load(data), length = (data.n_ctx + 1) / 2;   // six letters, then five of the answer
  const [batched, train] = await Promise.all([import("./batched.js"), import("./train.js")]);
  await batched.ready();
  let got = batched.evaluate(model, length);
  const differs = (g) => g.sorted !== record.accuracy_on_729 || Math.abs(g.loss - record.loss_on_729) > LOSS_TOLERANCE;
  if (differs(got)) got = train.evaluate(model, length);
  return { sorted: got.sorted, loss: got.loss, inputs: model.vocabSize ** length };
}

/** What the reader's record says that their weights (`got`, measured)
 *  do not do, or that its own numbers contradict: the build's check_record
 *  (nano_example.py), and its steps against its loss curve; null when
 *  it holds. One sentence. */
function claimsProblem(record, got, wholes) {
  // the build's ranges (nanogpt_record.py, published with the book's record): no run of 0 steps
  for (const [key, [low, high]] of Object.entries(wholes)) {
    const v = record[key];
    if (!(Number.isInteger(v) && v >= low && v <= high)) {
      return `their record's ${key} is ${String(JSON.stringify(v)).slice(0, 20)}, where the build takes a whole number ` +
             `from ${low.toLocaleString("en-US")} to ${high.toLocaleString("en-US")}`;
    }
  }
  if (record.accuracy_on_729 !== got.sorted) {
    return `their record says they sort ${record.accuracy_on_729} of the ${got.inputs} inputs; they sort ${got.sorted}`;
  }
  if (Math.abs(record.loss_on_729 - got.loss) > LOSS_TOLERANCE) {
    return `their record gives their loss on the ${got.inputs} inputs as ${record.loss_on_729}; it is ${got.loss.toFixed(8)}`;
  }
  const curve = record.loss_curve;
  if (record.steps !== curve.length) {
    return `their record says ${record.steps} steps, where its loss curve has ${curve.length}`;
  }
  const last = Number((/^mean training loss of the last (\d+) steps?$/.exec(record.final_loss_means) || [])[1]);
  if (!(last >= 1)) return `their record's final_loss_means is not “mean training loss of the last N steps”`;
  const mean = curve.slice(-last).reduce((a, b) => a + b, 0) / Math.min(last, curve.length);
  if (curve.length && Math.abs(mean - record.final_loss) > LOSS_TOLERANCE) {
    return `their record's final_loss is ${record.final_loss}, where the mean of the last ${last} losses of its curve is ${mean.toFixed(8)}`;
  }
  return null;
}

/** What is wrong with the stored weights `mine` ({weights, record}, as
 *  the download's two files), against the book's (`book`, letters.js's
 *  {setup, arrays}): {problem} in one sentence, or {data (gpt.load's
 *  layout, with the record), sorted, inputs, loss}, measured, when nothing is. */
async function check(mine, book) {
  if (kind(mine) !== "object") return { problem: `they are ${kind(mine)}, not weights` };
  const read = arraysProblem(mine.weights, book);
  if (read.problem) return read;
  const problem = recordProblem(mine.record, book.setup.record, "their record");
  if (problem) return { problem };
  const data = { ...gpt.fromArrays(book.setup, read.arrays), record: mine.record };
  const got = await measure(data, mine.record), wrong = claimsProblem(mine.record, got, book.setup.wholes);
  return wrong ? { problem: wrong } : { data, ...got };
}

export { check };
