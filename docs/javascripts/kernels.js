// kernels.js: a page helper, the one loader of kernels.wasm (kernels.wat's
// float32 products, GELU, and the writer's softmax and LayerNorm) for
// its two users, batched.js (training) and writer_pass.js (the writer). Each
// gets an instance of its own, so that neither moves the other's matrices.

const WASM = new URL("kernels.wasm", import.meta.url);
const NODE = typeof process === "object" && !!(process.versions && process.versions.node);
// in Node (the parity tests, the build's sampler) the file is read at once
const fs = NODE ? await import("node:fs") : null;

/** ready(): a function that makes an instance of kernels.wasm and hands its
 *  exports to init, once. The browser fetches the file from beside this
 *  one on the first call (a failed fetch may be tried again); Node reads
 *  it now, so that the instance is there before the first call. */
function loader(init) {
  const make = (bytes) => init(new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports);
  let fetched = null;
  if (NODE) fetched = Promise.resolve(make(fs.readFileSync(WASM)));
  return function ready() {
    if (!fetched) {
      fetched = fetch(WASM).then((r) => {
        if (!r.ok) throw new Error(`kernels.wasm: HTTP ${r.status}`);
        return r.arrayBuffer();
      }).then(make).catch((e) => {
        fetched = null;
        throw e;
      });
    }
    return fetched;
  };
}

export { loader };
