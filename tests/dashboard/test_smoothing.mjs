// Unit tests of the compare page's pure helpers (src/dashboard/assets/smoothing.js) in node:
// TensorBoard's debiased EMA, the x axes, final values, the spec diff.
//   node tests/dashboard/test_smoothing.mjs      (ctest: dashboard: smoothing)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

// The asset is an ES module in a folder without package.json: load its text as a module.
const source = readFileSync(new URL("../../src/dashboard/assets/smoothing.js", import.meta.url), "utf8");
const m = await import("data:text/javascript;base64," + Buffer.from(source).toString("base64"));

const close = (a, b, what) => {
  assert.equal(a.length, b.length, what + ": lengths");
  a.forEach((v, i) => {
    if (v === null || Number.isNaN(v)) assert.ok(Object.is(v, b[i]), `${what}[${i}]: ${v} vs ${b[i]}`);
    else assert.ok(Math.abs(v - b[i]) < 1e-12, `${what}[${i}]: ${v} vs ${b[i]}`);
  });
};

// TensorBoard's resmoothDataset (vz_line_chart2/line-chart.ts), transcribed as the reference.
function tensorboard(ys, w) {
  let last = ys.length > 0 ? 0 : NaN, numAccum = 0;
  const isConstant = ys.every((v) => v === ys[0]);
  return ys.map((y) => {
    if (isConstant || !Number.isFinite(y)) return y;
    last = last * w + (1 - w) * y;
    numAccum++;
    return last / (w === 1 ? 1 : 1 - Math.pow(w, numAccum));
  });
}

const tests = {
  "the EMA is debiased: the first value is the first point": () => {
    close(m.smooth([1, 2, 3], 0.5), [1, 1.25 / 0.75, 2.125 / 0.875], "[1,2,3] w=.5");
    close(m.smooth([4, 8], 0), [4, 8], "w=0 is the raw curve");
    close(m.smooth([], 0.6), [], "empty");
  },
  "it matches TensorBoard's resmoothDataset on noisy curves": () => {
    let seed = 7;
    const rand = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
    for (const w of [0, 0.3, 0.6, 0.9, 0.99]) {
      const ys = Array.from({ length: 200 }, (_, i) => 2 / (1 + i / 20) + 0.3 * rand());
      close(m.smooth(ys, w), tensorboard(ys, w), "w=" + w);
    }
  },
  "a constant curve stays; gaps and non-finite values pass through uncounted": () => {
    close(m.smooth([0.5, 0.5, 0.5], 0.9), [0.5, 0.5, 0.5], "constant");
    close(m.smooth([1, null, 3], 0.5), [1, null, 1.75 / 0.75], "gap");
    close(m.smooth([1, NaN, 3], 0.5), [1, NaN, 1.75 / 0.75], "NaN");
    close(m.smooth([1, 3], 5), m.smooth([1, 3], 0.999), "weight clamped below 1");
  },
  "x axes: step, fractional epoch, seconds since the first record": () => {
    const cols = { step: [50, 100, 150, 200], epoch: [0, 1, 1, 2], time: [1000.5, 1010.5, null, 1030] };
    assert.equal(m.stepsPerEpoch(cols.step, cols.epoch), 100);
    assert.equal(m.stepsPerEpoch([10, 20], [0, 0]), null);
    assert.deepEqual(m.xValues(cols, "step"), [50, 100, 150, 200]);
    assert.deepEqual(m.xValues(cols, "epoch", 100), [0.5, 1, 1.5, 2]);
    assert.deepEqual(m.xValues(cols, "epoch", null), [0, 1, 1, 2]);
    assert.deepEqual(m.xValues(cols, "wall"), [0, 10, null, 29.5]);
    assert.deepEqual(m.xValues({ step: [1, 2] }, "wall"), [null, null]);
  },
  "final values are the last finite ones": () => {
    assert.equal(m.lastValue([0.9, 0.5, null]), 0.5);
    assert.equal(m.lastValue([]), null);
    assert.equal(m.lastValue(undefined), null);
  },
  "the spec diff: env by name, masked values compared as shown, differences first": () => {
    const a = { image: "scnn-train", env: [{ name: "EPOCHS", value: "2" }, { name: "API_TOKEN", value: "****" }],
                command: ["scnn-train", "train"], gpu: 1, pvcs: [{ claim: "data", mountPath: "/mnt" }] };
    const b = { image: "scnn-train", env: [{ name: "EPOCHS", value: "3" }, { name: "API_TOKEN", value: "****" },
                { name: "OUTPUT_DIR", value: "/mnt/runs-retrained" }], command: ["scnn-train", "train"], gpu: 1,
                pvcs: [{ claim: "restored", mountPath: "/mnt" }] };
    const flat = m.flattenSpec(a, "", {});
    assert.equal(flat["env.EPOCHS"], "2");
    assert.equal(flat.command, "scnn-train train");
    const rows = m.specDiff([a, b]);
    const differing = rows.filter((r) => r.differs).map((r) => r.key);
    assert.deepEqual(differing, ["env.EPOCHS", "env.OUTPUT_DIR", "pvcs"]);
    assert.deepEqual(rows.find((r) => r.key === "env.OUTPUT_DIR").values, ["–", "/mnt/runs-retrained"]);
    assert.ok(rows.slice(0, 3).every((r) => r.differs) && rows.slice(3).every((r) => !r.differs));
    assert.deepEqual(rows.find((r) => r.key === "env.API_TOKEN").values, ["****", "****"]);
  },
  "command lines quoted as a shell reads them back": () => {
    assert.equal(m.shellQuoted(["scnn-train", "train", "--lr", "0.1"]), "scnn-train train --lr 0.1");
    assert.equal(m.shellQuoted(["sh", "-c", "echo about to fail; echo oops >&2; exit 3"]),
                 "sh -c 'echo about to fail; echo oops >&2; exit 3'");
    assert.equal(m.shellQuoted(["echo", "it's", ""]), "echo 'it'\\''s' ''");
    assert.equal(m.flattenSpec({ command: ["sh", "-c", "a b"] }, "", {}).command, "sh -c 'a b'");
  },
};

let failed = 0;
for (const [name, fn] of Object.entries(tests)) {
  try { fn(); console.log("ok   " + name); } catch (e) { failed++; console.log("FAIL " + name + "\n     " + e.message); }
}
process.exit(failed ? 1 : 0);
