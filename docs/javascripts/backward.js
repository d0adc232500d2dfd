// backward.js: the twin of toycalc/model/gpt.py's backward pass (backward,
// attention_backward, mlp_backward, layernorm's, the cross-entropy loss,
// the loss and gradients of a batch). Apart from gpt.js so
// that a page which only runs the model (End to End) does not load it:
// the toy's training (descent.js) and nano-gpt's (train_worker.js) do.
// Held to numpy by tests/book/test_backward_parity.py (to 1e-12).

import * as gpt from "./gpt.js";

// D (T x m) times W (n x m) transposed: T x n. W read as one flat array
// (gpt.flat), four of its rows at a time; each sum in the order of j.
function matmulT(D, W) {
  const n = W.length, m = W[0].length, w = gpt.flat(W), out = new Array(D.length);
  for (let t = 0; t < D.length; t++) {
    const g = D[t], o = new Float64Array(n);
    let i = 0;
    for (; i + 3 < n; i += 4) {
      const a = i * m, a1 = a + m, a2 = a1 + m, a3 = a2 + m;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let j = 0; j < m; j++) {
        const gj = g[j];
        s0 += gj * w[a + j]; s1 += gj * w[a1 + j]; s2 += gj * w[a2 + j]; s3 += gj * w[a3 + j];
      }
      o[i] = s0; o[i + 1] = s1; o[i + 2] = s2; o[i + 3] = s3;
    }
    for (; i < n; i++) {
      const a = i * m;
      let s = 0;
      for (let j = 0; j < m; j++) s += g[j] * w[a + j];
      o[i] = s;
    }
    out[t] = o;
  }
  return out;
}

// G (n x m) += X (T x n) transposed times D (T x m); g (m) += the sum of D's
// rows. Each G[i][j] adds its T terms in the order of t, four at a time in a
// register; D read as one flat array. G's rows are written in place.
function addProduct(G, X, D, g) {
  const T = X.length, n = G.length, m = G[0].length, d = gpt.flat(D);
  for (let i = 0; i < n; i++) {
    const row = G[i];
    let t = 0;
    for (; t + 3 < T; t += 4) {
      const x0 = X[t][i], x1 = X[t + 1][i], x2 = X[t + 2][i], x3 = X[t + 3][i], a = t * m, a1 = a + m, a2 = a1 + m, a3 = a2 + m;
      for (let j = 0; j < m; j++) {
        let s = row[j];
        s += x0 * d[a + j]; s += x1 * d[a1 + j]; s += x2 * d[a2 + j]; s += x3 * d[a3 + j];
        row[j] = s;
      }
    }
    if (t + 1 < T) {
      const x0 = X[t][i], x1 = X[t + 1][i], a = t * m, a1 = a + m;
      for (let j = 0; j < m; j++) { let s = row[j]; s += x0 * d[a + j]; s += x1 * d[a1 + j]; row[j] = s; }
      t += 2;
    }
    if (t < T) {
      const xi = X[t][i], a = t * m;
      for (let j = 0; j < m; j++) row[j] += xi * d[a + j];
    }
  }
  if (g) for (let t = 0; t < T; t++) for (let j = 0; j < m; j++) g[j] += d[t * m + j];
}

/** gpt.layernorm_backward: dL/dx from dL/dout for rows x that the forward
 *  pass normalised with mu and sigma; adds to gGamma and gBeta if gamma. */
function layernormBackward(dout, x, mu, sigma, gamma, gGamma, gBeta) {
  return dout.map((d0, t) => {
    const n = d0.length, xhat = new Float64Array(n), d = new Float64Array(n);
    let mean = 0, dot = 0;
    for (let c = 0; c < n; c++) {
      xhat[c] = (x[t][c] - mu[t]) / sigma[t];
      if (gamma) { gGamma[c] += d0[c] * xhat[c]; gBeta[c] += d0[c]; }
      d[c] = gamma ? d0[c] * gamma[c] : d0[c];
      mean += d[c]; dot += d[c] * xhat[c];
    }
    mean /= n; dot /= n;
    for (let c = 0; c < n; c++) d[c] = (d[c] - mean - xhat[c] * dot) / sigma[t];
    return d;
  });
}

/** gpt.attention_backward: from dL/dA, the gradients of W_Q, W_K, W_V
 *  (and biases) into grads under the block's prefix; returns dL/du. */
function attentionBackward(dA, blk, p, heads, grads, pre) {
  const T = dA.length, d = dA[0].length, dh = d / heads, scale = Math.sqrt(dh);
  const dQ = dA.map(() => new Float64Array(d)), dK = dA.map(() => new Float64Array(d));
  const dV = dA.map(() => new Float64Array(d)), da = new Float64Array(T);
  for (let h = 0; h < heads; h++) {
    const c0 = h * dh, c1 = c0 + dh;
    for (let t = 0; t < T; t++) {
      const a = blk.weights[h][t], g = dA[t];
      let sum = 0;
      for (let j = 0; j <= t; j++) {           // o = a v; a is 0 past t (the mask)
        const v = blk.V[j], dv = dV[j], aj = a[j];
        let s = 0;
        for (let c = c0; c < c1; c++) { s += g[c] * v[c]; dv[c] += aj * g[c]; }
        da[j] = s; sum += s * aj;
      }
      const q = blk.Q[t], dq = dQ[t];
      for (let j = 0; j <= t; j++) {           // a = gpt.softmax(s), s = q . k / sqrt(d_head)
        const ds = (a[j] * (da[j] - sum)) / scale;
        if (ds === 0) continue;
        const k = blk.K[j], dk = dK[j];
        for (let c = c0; c < c1; c++) { dq[c] += ds * k[c]; dk[c] += ds * q[c]; }
      }
    }
  }
  const du = dA.map(() => new Float64Array(d));
  for (const [n, dM] of [["Q", dQ], ["K", dK], ["V", dV]]) {
    addProduct(grads[pre + "W_" + n], blk.u, dM, grads[pre + "b_" + n]);
    const back = matmulT(dM, p["W_" + n]);
    for (let t = 0; t < T; t++) {
      const out = du[t], b = back[t];
      for (let c = 0; c < d; c++) out[c] += b[c];
    }
  }
  return du;
}

/** gpt.mlp_backward: from dL/dm, the gradients of W_1, W_2 (and biases)
 *  into grads; returns dL/du'. */
function mlpBackward(dm, blk, p, c, grads, pre) {
  const dpost = matmulT(dm, p.W_2);
  addProduct(grads[pre + "W_2"], blk.mlp_post, dm, grads[pre + "b_2"]);
  const dpre = dpost.map((row, t) => row.map((g, k) => {   // GELU's derivative, tanh form
    const x = blk.mlp_pre[t][k], th = Math.tanh(c * (x + 0.044715 * x * x * x));
    const dt = (1 - th * th) * c * (1 + 3 * 0.044715 * x * x);
    return g * (0.5 * (1 + th) + 0.5 * x * dt);
  }));
  addProduct(grads[pre + "W_1"], blk.u2, dpre, grads[pre + "b_1"]);
  return matmulT(dpre, p.W_1);
}

/** gpt.backward for one text's trace: the gradients of the mean of
 *  -ln p[target] over the positions whose target is >= 0, added into
 *  grads (gpt.zerosLike(model) if not given). count: the number of targets
 *  the mean divides by, for a batch run one text at a time (default:
 *  this text's). Returns grads, named as gpt.py names them. */
function backward(model, tr, targets, grads, count) {
  grads = grads || gpt.zerosLike(model);
  count = count || targets.filter((k) => k >= 0).length;
  const V = model.vocabSize;
  const dlogits = tr.p.map((p, t) => {                // (p - onehot) / N, at kept positions
    const out = new Float64Array(V);
    if (targets[t] >= 0) for (let v = 0; v < V; v++) out[v] = (p[v] - (v === targets[t] ? 1 : 0)) / count / tr.temperature;
    return out;
  });
  addProduct(grads.W_U, tr.f, dlogits);
  let dx = layernormBackward(matmulT(dlogits, model.W_U), tr.y, tr.mu_f, tr.sigma_f,
    model.gamma_f, grads.gamma_f, grads.beta_f);
  for (let b = model.blocks.length - 1; b >= 0; b--) {
    const p = model.blocks[b], blk = tr.blocks[b], pre = `blocks.${b}.`;
    const du2 = mlpBackward(dx, blk, p, model.geluC, grads, pre);          // y = h + m
    const dln2 = layernormBackward(du2, blk.h, blk.mu2, blk.sigma2, p.gamma_2, grads[pre + "gamma_2"], grads[pre + "beta_2"]);
    const dh = dx.map((r, t) => r.map((v, c) => v + dln2[t][c]));
    addProduct(grads[pre + "W_O"], blk.A, dh, grads[pre + "b_O"]);        // h = X + A W_O
    const du = attentionBackward(matmulT(dh, p.W_O), blk, p, tr.heads, grads, pre);
    const dln1 = layernormBackward(du, blk.X, blk.mu, blk.sigma, p.gamma_1, grads[pre + "gamma_1"], grads[pre + "beta_1"]);
    dx = dh.map((r, t) => r.map((v, c) => v + dln1[t][c]));
  }
  tr.ids.forEach((id, t) => {                         // X = E[ids] + P[:T]
    for (let c = 0; c < model.d; c++) { grads.E[id][c] += dx[t][c]; grads.P[t][c] += dx[t][c]; }
  });
  return grads;
}

/** gpt.cross_entropy: the mean of -ln p[target] over the targets >= 0. */
function crossEntropy(p, targets) {
  let sum = 0, n = 0;
  targets.forEach((k, t) => { if (k >= 0) { sum -= Math.log(p[t][k]); n++; } });
  return sum / n;
}

/** gpt.loss_and_grads on a batch of texts (ids and targets: one array
 *  per text, all the same length): the mean loss over every kept target
 *  of the batch, and its gradients. count: what the mean divides by, when
 *  this is one part of a larger batch (its parts' losses and gradients
 *  then add up to the batch's); by default, this batch's kept targets. */
function lossAndGrads(model, ids, targets, heads, temperature, count) {
  count = count || targets.reduce((n, row) => n + row.filter((k) => k >= 0).length, 0);
  const grads = gpt.zerosLike(model);
  let loss = 0;
  ids.forEach((row, i) => {
    const tr = gpt.forward(model, row, heads, temperature);
    const kept = targets[i].filter((k) => k >= 0).length;
    if (kept) loss += crossEntropy(tr.p, targets[i]) * kept / count;
    backward(model, tr, targets[i], grads, count);
  });
  return { loss, grads };
}

export { layernormBackward, attentionBackward, mlpBackward, backward, crossEntropy, lossAndGrads };
