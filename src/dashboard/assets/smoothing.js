// Pure helpers of the compare page (no DOM; tests/dashboard/test_smoothing.mjs runs them in node):
// TensorBoard's scalar smoothing and the x axes runs are aligned on.

// TensorBoard's exponential moving average with debiasing (tensorboard/plugins/scalar,
// vz_line_chart2 resmoothDataset): last = last * w + (1 - w) * y; smoothed = last / (1 - w^n),
// n the count of finite values so far, so the first points are not pulled towards 0. A series of
// one constant value, and non-finite or null values, are passed through unchanged. `weight` in [0, 1).
export function smooth(ys, weight) {
  const w = Math.min(Math.max(Number(weight) || 0, 0), 0.999);
  const finite = ys.filter((y) => y !== null && Number.isFinite(y));
  const constant = finite.every((y) => y === finite[0]);
  let last = 0, n = 0;
  return ys.map((y) => {
    if (constant || y === null || !Number.isFinite(y)) return y;
    last = last * w + (1 - w) * y;
    n += 1;
    return last / (1 - Math.pow(w, n));
  });
}

// Steps per epoch as the records tell it: the smallest step / epoch over records past epoch 0
// (a record's epoch is the number of whole epochs done); null when no record is past epoch 0.
export function stepsPerEpoch(steps, epochs) {
  let best = null;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i], e = epochs[i];
    if (s === null || e === null || !(e >= 1)) continue;
    const per = s / e;
    if (best === null || per < best) best = per;
  }
  return best;
}

// The x values of one kind's columns for an axis: "step", "epoch" (fractional: step divided by
// the run's steps per epoch, else the recorded epoch) or "wall" (seconds since the run's first
// record, from each record's "time"); null where a record lacks what the axis needs.
export function xValues(cols, axis, perEpoch) {
  const steps = cols.step || [];
  if (axis === "step") return steps.slice();
  if (axis === "epoch") {
    const epochs = cols.epoch || steps.map(() => null);
    return perEpoch ? steps.map((s) => (s === null ? null : s / perEpoch)) : epochs.slice();
  }
  const times = cols.time || steps.map(() => null);
  const t0 = times.find((t) => t !== null && Number.isFinite(t));
  return times.map((t) => (t === null || t0 === undefined ? null : t - t0));
}

// The last finite value of a column (a run's final metric), or null.
export function lastValue(col) {
  for (let i = (col || []).length - 1; i >= 0; i--) if (col[i] !== null && Number.isFinite(col[i])) return col[i];
  return null;
}

// A command line for display, as a shell reads it back (as lanectl describe prints it): words
// with spaces or shell characters in single quotes.
export function shellQuoted(words) {
  return words.map((w) => {
    const s = String(w);
    return s !== "" && !/[\s'"\\$`;&|<>(){}*?!#~]/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }).join(" ");
}

// A job spec flattened for a diff: {"image": "...", "env.API_TOKEN": "****", "command": "a b", ...}.
// Objects give dotted keys, arrays of objects with a "name" key by that name, other arrays one
// value, quoted as a shell command line.
export function flattenSpec(value, prefix, out) {
  const into = out || {};
  if (Array.isArray(value)) {
    if (value.length && value.every((v) => v && typeof v === "object" && !Array.isArray(v) && "name" in v)) {
      for (const v of value) {
        const { name, ...rest } = v;
        const keys = Object.keys(rest);
        if (keys.length === 1 && keys[0] === "value") into[prefix + "." + name] = String(rest.value);
        else flattenSpec(rest, prefix + "." + name, into);
      }
    } else {
      into[prefix] = shellQuoted(value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))));
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) flattenSpec(v, prefix ? prefix + "." + k : k, into);
  } else if (prefix) {
    into[prefix] = value === null || value === undefined ? "" : String(value);
  }
  return into;
}

// Rows of a spec diff: [{key, values: [per run], differs}], keys sorted, differing ones first.
export function specDiff(specs) {
  const flat = specs.map((s) => flattenSpec(s || {}, "", {}));
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort();
  const rows = keys.map((key) => {
    const values = flat.map((f) => (key in f ? f[key] : "–"));
    return { key, values, differs: values.some((v) => v !== values[0]) };
  });
  return [...rows.filter((r) => r.differs), ...rows.filter((r) => !r.differs)];
}
