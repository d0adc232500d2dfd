// charts.js: the twin of toycalc/book/draw.py's charts (at, nice_ticks,
// series_key, line_chart_svg, stacked_bars_svg): axes, lines and stacked
// bars in draw.js's markup. Apart from draw.js so that a page without a
// chart (End to End, the Simulator) does not load them; the nano-gpt
// pages do (site/publish_weights.py). tests/book/test_figures_parity.py
// compares the strings. The same ES module in Node and in a page.

import * as draw from "./draw.js";

const { esc, label, svg, textWidth } = draw;

const SERIES = 5;   // series classes s1 .. s5 (figures.css), told apart by more than colour
const sum = (values) => values.reduce((s, v) => s + v, 0);

/** A coordinate with one decimal at most: 12, 12.5. */
function at(v) {
  const tenths = Math.floor(v * 10 + 0.5);
  return tenths % 10 === 0 ? String(Math.floor(tenths / 10)) : (tenths / 10).toFixed(1);
}

/** Round tick values (1, 2 or 5 times a power of ten apart) over lo .. hi. */
function niceTicks(lo, hi, n) {
  if (hi === lo) hi = lo + 1;
  const raw = (hi - lo) / n, power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= raw * (1 - 1e-9));
  const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
  const out = [];
  for (let k = first; k <= last; k++) out.push(k * step);
  return out;
}

/** A key to the series, in a row: a swatch (or a short line) and a name each. */
function seriesKey(names, x, y, mark) {
  let out = "";
  names.forEach((name, k) => {
    const cls = `s${(k % SERIES) + 1}`;
    out += mark === "line" ? `<path class="series ${cls}" d="M${x} ${y - 4}h18"/>`
                           : `<rect class="key ${cls}" x="${x}" y="${y - 9}" width="10" height="10"/>`;
    out += label(x + (mark === "line" ? 22 : 14), y, name, "start", "val");
    x += (mark === "line" ? 22 : 14) + textWidth(name) + 12;
  });
  return out;
}

/** Lines with axes: series is a list of [name, points, titles]. */
function lineChartSvg(series, aria, xTicks, yTicks, xLabel, yLabel, width, height) {
  const left = Math.max(...yTicks.map(([, t]) => textWidth(t, 6))) + 10;
  const top = (series.length > 1 ? 26 : 10) + (yLabel ? 14 : 0), bottom = 34;
  const right = Math.max(14, Math.floor(textWidth(xTicks[xTicks.length - 1][1], 6) / 2) + 4);
  const x0 = xTicks[0][0], x1 = xTicks[xTicks.length - 1][0], y0 = yTicks[0][0], y1 = yTicks[yTicks.length - 1][0];
  const X = (v) => left + (v - x0) * (width - left - right) / ((x1 - x0) || 1);
  const Y = (v) => height - bottom - (v - y0) * (height - top - bottom) / ((y1 - y0) || 1);
  let body = `<path class="axis" d="M${left} ${top}V${height - bottom}H${width - right}"/>`;
  for (const [v, text] of xTicks) {
    body += `<path class="tick" d="M${at(X(v))} ${height - bottom}v4"/>`;
    body += label(Math.floor(X(v) + 0.5), height - bottom + 16, text, "middle", "val");
  }
  for (const [v, text] of yTicks) {
    body += `<path class="grid" d="M${left} ${at(Y(v))}H${width - right}"/>`;
    body += label(left - 4, Math.floor(Y(v) + 4.5), text, "end", "val");
  }
  if (xLabel) body += label(width - right, height - 4, xLabel, "end", "hdr");
  if (yLabel) body += label(0, top - 10, yLabel, "start", "hdr");
  if (series.length > 1) body += seriesKey(series.map(([name]) => name), left, 12, "line");
  series.forEach(([, points, titles], k) => {
    const cls = `s${(k % SERIES) + 1}`;
    body += `<polyline class="series ${cls}" points="${points.map(([x, y]) => `${at(X(x))},${at(Y(y))}`).join(" ")}"/>`;
    const r = points.length <= 50 ? 2 : 1;
    points.forEach(([x, y], i) => {
      body += `<circle class="dot ${cls}" cx="${at(X(x))}" cy="${at(Y(y))}" r="${r}"><title>${esc(titles[i])}</title></circle>`;
    });
  });
  return svg(width, height, aria, body);
}

/** One horizontal bar per label, cut into a segment per series. */
function stackedBarsSvg(labels, names, rows, titles, aria, after, span) {
  span = span || 240;
  const row = 22, top = 24, left = Math.max(...labels.map((t) => textWidth(t))) + 8;
  const tail = after ? Math.max(...after.map((t) => textWidth(t))) + 8 : 0;
  const key = sum(names.map((n) => textWidth(n) + 26)), bars = left + span + tail;
  let body = seriesKey(names, left + key <= bars ? left : 0, 12);
  labels.forEach((name, r) => {
    const values = rows[r], y = top + r * row, total = sum(values);
    body += label(left - 6, y + 14, name, "end");
    const ends = [0];
    let running = 0;
    for (const v of values) {
      running += v;
      ends.push(Math.floor(running * span * 10 / (total || 1) + 0.5));
    }
    values.forEach((v, k) => {
      const x = left * 10 + ends[k], w = ends[k + 1] - ends[k], cls = `s${(k % SERIES) + 1}`;
      body += `<rect class="seg ${cls}" x="${at(x / 10)}" y="${y + 2}" width="${at(w / 10)}" ` +
              `height="${row - 4}"><title>${esc(titles[r][k])}</title></rect>`;
      if (w / 10 >= textWidth(names[k], 6) + 6) {
        body += label(Math.floor((x + w / 2) / 10 + 0.5), y + 15, names[k], "middle", `on-${cls}`);
      }
    });
    if (after) body += label(left + span + 6, y + 15, after[r], "start", "val");
  });
  return svg(Math.max(bars, key), top + labels.length * row, aria, body);
}

export { at, niceTicks, seriesKey, lineChartSvg, stackedBarsSvg };
