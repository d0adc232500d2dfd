// writer_worker.js: a Web Worker (a module): the writer's helper on "Type,
// it writes" (docs/writer/write.md). writer_pass.js's startHelper starts
// it; while the page writes, it computes the first half of the rows of
// each full window ahead, as soon as their characters are written, and
// sends their keys and values (helperSide); the page's thread computes
// each window's later half from them. It holds its own copy of the model
// (the bytes the page fetched) and its own kernels.wasm; its rows'
// numbers are the ones a whole pass gives them.
import { ready, modelFromBytes, kvCache, helperSide } from "./writer_pass.js";

let side = null;

addEventListener("message", async ({ data }) => {
  try {
    if (data.type === "model") {
      await ready();
      side = helperSide(kvCache(modelFromBytes(data.setup, data.bytes)), (message, transfer) => postMessage(message, transfer));
      postMessage({ type: "ready" });
    } else if (side) {
      side(data);
    }
  } catch (e) {
    postMessage({ type: "failed", message: String(e && e.message) });
  }
});
