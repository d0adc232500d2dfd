// writer_worker.js: a Web Worker (a module): the writer's helper on "Type,
// it writes" (docs/writer/write.md). writer_pass.js's startHelper starts
// it and its split asks it, once the window slides, for the later half of
// each window's rows (laterRows), while the page's thread computes the
// first half and sends their keys and values block by block. It holds its
// own copy of the model (the bytes the page fetched) and its own
// kernels.wasm; its rows' numbers are the ones a whole pass gives them.
import { ready, modelFromBytes, kvCache, laterRows } from "./writer_pass.js";

let kv = null;
let arrived = [], waiting = null;     // this pass's blocks' keys: those come, the one awaited

/** Block k's keys from the page's thread: at once if they came, else when they do. */
function keys(k) {
  if (arrived[k]) return Promise.resolve(arrived[k]);
  return new Promise((resolve) => { waiting = { k, resolve }; });
}

addEventListener("message", async ({ data }) => {
  try {
    if (data.type === "model") {
      await ready();
      kv = kvCache(modelFromBytes(data.setup, data.bytes));
      postMessage({ type: "ready" });
    } else if (data.type === "keys") {
      arrived[data.k] = data.keys;
      if (waiting && waiting.k === data.k) {
        waiting.resolve(data.keys);
        waiting = null;
      }
    } else if (data.type === "pass") {
      arrived = [];
      const { p, weights } = await laterRows(kv, data.window, data.half, data.temperature, keys);
      postMessage({ type: "p", p, weights }, [weights.buffer]);
    }
  } catch (e) {
    postMessage({ type: "failed", message: String(e && e.message) });
  }
});
