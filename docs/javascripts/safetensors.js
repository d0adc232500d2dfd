// safetensors.js: a page helper: the browser's reader and writer of a model's
// weights file, the one format of toycalc/model/safetensors_file.py: an
// 8-byte little-endian header length, a JSON header (each array's dtype,
// F16 or F32, its shape and the byte offsets of its numbers), then the raw
// little-endian numbers. nano-gpt's pages (letters.js, stored_weights.js),
// its training's download (train.js) and the writer (writer.js) read or
// write it; the build publishes the book's (toycalc/site/publish_weights.py).

import { half } from "./gpt.js";

const MAX_HEADER = 100000;                 // safetensors_file.MAX_HEADER
const SIZE = { F16: 2, F32: 4 };

const text = (v) => String(JSON.stringify(v)).slice(0, 40);

const shapeText = (shape) => (Array.isArray(shape) ? shape.map((n) => String(n).slice(0, 12)).join(" × ") : text(shape));

/** The arrays of a safetensors file (an ArrayBuffer): a Map of name ->
 *  {shape, values (Float32Array)}, in the file's order, and its
 *  __metadata__. With `shapes` (a Map of name -> shape: the model's),
 *  the file holds those arrays and no other, each of its shape, `whose`
 *  naming the model in a message. Throws an Error whose message is one
 *  sentence, naming the array, for a file the book's loader would refuse:
 *  a header too long or not JSON, an array of another type, a shape not of
 *  whole numbers, bytes not exactly where the header says, one after the
 *  other; all checked before a number is read. */
function read(buffer, shapes = null, whose = "the model") {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < 8) {
    throw new Error("the weights file is not a safetensors file (it is shorter than its 8-byte header length)");
  }
  const view = new DataView(buffer), n = Number(view.getBigUint64(0, true));
  if (n > MAX_HEADER || 8 + n > buffer.byteLength) {
    throw new Error(`the weights file's header would take ${n} bytes, of a file of ${buffer.byteLength}`);
  }
  let header;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(buffer, 8, n)));
  } catch (e) {
    throw new Error("the weights file's header is not JSON");
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) {
    throw new Error("the weights file's header is not a JSON object");
  }
  const entries = Object.entries(header).filter(([name]) => name !== "__metadata__");
  if (shapes) {
    const unknown = entries.find(([name]) => !shapes.has(name));
    if (unknown) throw new Error(`${unknown[0].slice(0, 40)} is not an array of ${whose}`);
    const missing = [...shapes.keys()].find((name) => !Object.hasOwn(header, name));
    if (missing) throw new Error(`${missing} is missing`);
  }
  entries.sort((a, b) => ((a[1] && a[1].data_offsets) || [-1])[0] - ((b[1] && b[1].data_offsets) || [-1])[0]);
  const arrays = new Map(), start = 8 + n;
  let at = 0;
  for (const [name, entry] of entries) {
    const { dtype, shape, data_offsets: offsets } = entry && typeof entry === "object" ? entry : {};
    if (!Object.hasOwn(SIZE, String(dtype))) throw new Error(`${name} holds ${text(dtype)} numbers, expected F16 or F32`);
    if (!Array.isArray(shape) || !shape.every((k) => Number.isInteger(k) && k >= 0)) {
      throw new Error(`${name} has the shape ${text(shape)}, not a list of whole numbers`);
    }
    if (shapes && shape.join() !== shapes.get(name).join()) {
      throw new Error(`${name} has the shape ${shapeText(shape)}, where ${whose} has ${shapeText(shapes.get(name))}`);
    }
    const count = shape.reduce((a, b) => a * b, 1), bytes = count * SIZE[dtype];
    if (!Array.isArray(offsets) || offsets[0] !== at || offsets[1] !== at + bytes) {
      throw new Error(`${name}'s bytes are at ${text(offsets)}, where its shape and the arrays before it put them at [${at}, ${at + bytes}]`);
    }
    if (start + at + bytes > buffer.byteLength) {
      throw new Error(`the weights file is cut short: ${name} takes ${bytes} bytes, of which it holds ${Math.max(0, buffer.byteLength - start - at)}`);
    }
    const values = new Float32Array(count), data = new DataView(buffer, start + at, bytes);
    for (let i = 0; i < count; i++) {
      values[i] = dtype === "F16" ? half(data.getUint16(2 * i, true)) : data.getFloat32(4 * i, true);
    }
    arrays.set(name, { shape, values });
    at += bytes;
  }
  if (start + at !== buffer.byteLength) throw new Error(`the weights file has ${buffer.byteLength - start - at} bytes after its last array`);
  return { arrays, metadata: header.__metadata__ || {} };
}

/** A safetensors file (Uint8Array) of float16 arrays: each [name, shape,
 *  Uint16Array of float16 bits], in that order. */
function write(arrays) {
  const header = {};
  let at = 0;
  for (const [name, shape, bits] of arrays) {
    header[name] = { dtype: "F16", shape, data_offsets: [at, at + 2 * bits.length] };
    at += 2 * bits.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header)), pad = (8 - (json.length % 8)) % 8;
  const head = new Uint8Array(json.length + pad).fill(0x20);   // the numbers aligned, as the Python package does
  head.set(json);
  const out = new Uint8Array(8 + head.length + at), view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let k = 8 + head.length;
  for (const [, , bits] of arrays) for (const b of bits) { view.setUint16(k, b, true); k += 2; }
  return out;
}

export { read, write };
