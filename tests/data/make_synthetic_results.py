#!/usr/bin/env python3
"""Write a synthetic hydrosweep results.h5 (no solver needed).

    python3 tests/data/make_synthetic_results.py DIR [--design DESIGN] [--seed S]
        [--base B] [--count N] [--stride K] [--samples M] [--no-analysis]
        [--sparse-metadata]

Writes DIR/results.h5 with the layout of `hydrosweep run` (/metadata,
/inputs, /outputs, optional /trajectories and /analysis). The numbers come
from a cheap made-up response model, not from the four-bar equations: they
are plausible in size and unit, that is all. Some instances fail (status !=
0, NaN outputs, trajectories cut off with t = NaN).

Designs:
  saltelli (default)  4 factors (one virtual, "friction_scale"), B base
                      samples x (4 + 2) rows; /analysis with statistics,
                      failure and sobol: every optional group is present
  grid                2 axes: friction.coulomb_force (8, linear) x
                      circuit.oil_bulk_modulus (10, log-spaced)
  grid3               3 axes (5 x 4 x 3)
  lhs | monte-carlo | sobol   N points of the 4 factors
  single              one instance, nothing varied
"""
import argparse
import math
from pathlib import Path

import h5py
import numpy as np

STATUS_NAMES = ["ok", "diverged", "newton_failure", "pressure_out_of_range", "constraint_failure",
                "stroke_out_of_range", "invalid_parameters"]

# name, unit, description, low, high, log-spaced
FACTORS = {
    "circuit.oil_bulk_modulus": ("Pa", "oil bulk modulus B_oil", 5e8, 2e9, True),
    "friction_scale": ("-", "multiplies every seal friction force (virtual factor)", 0.5, 2.0, False),
    "circuit.valve_time_constant": ("s", "spool time constant tau", 0.002, 0.05, True),
    "input.gain": ("-", "multiplies every U_ref value of the schedule", 0.6, 1.4, False),
    "friction.coulomb_force": ("N", "Coulomb force F_c", 50.0, 500.0, False),
}
DEFAULTS = {"circuit.oil_bulk_modulus": 1.2e9, "friction_scale": 1.0, "circuit.valve_time_constant": 0.00455,
            "input.gain": 1.0, "friction.coulomb_force": 200.0}
RANDOM_FACTORS = ["circuit.oil_bulk_modulus", "friction_scale", "circuit.valve_time_constant", "input.gain"]

# name, unit, description, integer
COLUMNS = [("t_end", "s", "time reached (the failure time if status != ok)", False),
           ("steps", "-", "steps completed", True)]
COLUMNS += [(f"q{k}", "rad", f"final relative joint angle {k}", False) for k in (1, 2, 3)]
COLUMNS += [(f"qd{k}", "rad/s", f"final relative joint rate {k}", False) for k in (1, 2, 3)]
COLUMNS += [(f"p{k}", "Pa", f"final pressure of volume {k}", False) for k in (1, 2, 3)]
for _k in (1, 2, 3):
    COLUMNS += [(f"p{_k}_min", "Pa", f"minimum pressure of volume {_k}", False),
                (f"p{_k}_max", "Pa", f"maximum pressure of volume {_k}", False)]
COLUMNS += [
    ("U", "V", "final spool opening", False),
    ("s", "m", "final actuator length", False),
    ("cylinder_work", "J", "work of the cylinder pressures on the mechanism", False),
    ("friction_work", "J", "work of the seal friction (negative: dissipated)", False),
    ("max_cylinder_work", "J", "max_t |cylinder work|", False),
    ("peak_energy_drift", "J", "max_t |T + V - E0 - W_cyl - W_fr|", False),
    ("final_energy_drift", "J", "T + V - E0 - W_cyl - W_fr at t_end", False),
    ("newton_iterations", "-", "Newton iterations over all steps", True),
    ("max_newton_iterations", "-", "most Newton iterations in one step", True),
    ("mean_newton_iterations", "-", "newton_iterations / steps (NaN without steps)", False),
    ("max_constraint_violation", "m", "max_t |loop-closure residual|", False),
    ("settling_time", "s", "time after the last input change until |qd1| stays small", False),
    ("tracking_rms", "rad", "RMS of crank angle minus reference", False),
]
CHANNELS = [("t", "s"), ("q1", "rad"), ("q2", "rad"), ("q3", "rad"), ("p1", "Pa"), ("p2", "Pa"), ("p3", "Pa"),
            ("U", "V"), ("s", "m"), ("sdot", "m/s"), ("piston_force", "N"), ("friction_force", "N"),
            ("energy_drift", "J")]
ANALYSED = ["p2_max", "settling_time", "peak_energy_drift"]
LEVELS = np.array([0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99])
DT, DURATION = 1e-3, 10.0
SCHEDULE_T = np.array([0.0, 1.0, 2.5, 5.0, 8.0])
SCHEDULE_U = np.array([0.0, 10.0, 0.0, -10.0, 0.0])


def scale(name, u):
    """Unit-cube coordinate u in [0, 1] -> factor value."""
    _, _, lo, hi, log = FACTORS[name]
    return lo * (hi / lo) ** u if log else lo + u * (hi - lo)


def axis(name, count):
    return scale(name, np.linspace(0.0, 1.0, count))


def design(kind, rng, base, count):
    """-> (varied names, N x P values, sample_method, saltelli base or None)."""
    if kind == "single":
        return [], np.zeros((1, 0)), "grid", None
    if kind in ("grid", "grid3"):
        names = (["friction.coulomb_force", "circuit.oil_bulk_modulus"] if kind == "grid"
                 else ["friction.coulomb_force", "circuit.oil_bulk_modulus", "circuit.valve_time_constant"])
        counts = [8, 10] if kind == "grid" else [5, 4, 3]
        axes = [axis(n, c) for n, c in zip(names, counts)]
        mesh = np.meshgrid(*axes, indexing="ij")  # first axis slowest, as [[grid]] order
        return names, np.column_stack([m.ravel() for m in mesh]), "grid", None
    names = RANDOM_FACTORS
    p = len(names)
    if kind == "saltelli":
        a, b = rng.random((base, p)), rng.random((base, p))
        rows = []
        for j in range(base):  # per base sample: A, AB_1 .. AB_P, B
            rows.append(a[j])
            for i in range(p):
                ab = a[j].copy()
                ab[i] = b[j, i]
                rows.append(ab)
            rows.append(b[j])
        u = np.array(rows)
    elif kind == "lhs":
        u = (np.array([rng.permutation(count) for _ in range(p)]).T + rng.random((count, p))) / count
    else:  # monte-carlo, sobol (a plain random stand-in is enough here)
        u = rng.random((count, p))
    values = np.column_stack([scale(n, u[:, k]) for k, n in enumerate(names)])
    return names, values, kind, base if kind == "saltelli" else None


def respond(inputs, n, rng):
    """Made-up response model -> (status, outputs dict)."""
    x = {name: np.full(n, DEFAULTS[name]) for name in DEFAULTS}
    x.update(inputs)
    bulk, fs, tau, gain, fc = (x["circuit.oil_bulk_modulus"], x["friction_scale"], x["circuit.valve_time_constant"],
                               x["input.gain"], x["friction.coulomb_force"])
    noise = lambda s: rng.normal(0.0, s, n)  # noqa: E731
    friction = fs * fc
    o = {}
    o["p2_max"] = 14e6 * (bulk / 1.2e9) ** 0.35 * gain ** 1.2 * (1 + 0.0008 * (friction - 200)) * (1 + 4 * tau) + noise(3e5)
    o["p3_max"] = 9e6 * (bulk / 1.2e9) ** 0.3 * gain * (1 + 0.0005 * (friction - 200)) + noise(2e5)
    o["p1_max"] = 21e6 + np.abs(noise(1e5))
    o["p1_min"] = 0.3e6 + np.abs(noise(2e4))
    o["p2_min"] = np.maximum(2e4, 1.5e6 - 0.5e6 * gain + noise(1e5))
    o["p3_min"] = np.maximum(2e4, 1.0e6 - 0.3e6 * gain + noise(1e5))
    o["p1"], o["p2"], o["p3"] = 20.8e6 + noise(1e4), 3.1e6 + noise(5e4), 2.7e6 + noise(5e4)
    o["q1"], o["q2"], o["q3"] = 0.1 * gain + noise(0.01), -1.2 + noise(0.01), 2.0 + noise(0.01)
    o["qd1"], o["qd2"], o["qd3"] = noise(1e-3), noise(1e-3), noise(1e-3)
    o["U"] = noise(1e-4)
    o["s"] = 0.78 + 0.02 * gain + noise(1e-3)
    o["cylinder_work"] = 1.2e3 * gain + noise(20)
    o["friction_work"] = -(0.9 * friction * gain) + noise(5)
    o["max_cylinder_work"] = 2.1e3 * gain + np.abs(noise(20))
    o["peak_energy_drift"] = 2e-4 * (bulk / 1e9) ** 1.5 * np.exp(noise(0.8))
    o["final_energy_drift"] = o["peak_energy_drift"] * rng.uniform(-1, 1, n)
    o["mean_newton_iterations"] = 2.0 + 0.4 * (bulk / 1e9) + noise(0.05)
    o["max_newton_iterations"] = np.ceil(o["mean_newton_iterations"] + 2 + rng.integers(0, 3, n))
    o["max_constraint_violation"] = 1e-12 * np.exp(noise(0.5))
    o["settling_time"] = 0.35 + 8 * tau + 0.15 * fs * 200 / 200 / gain + np.abs(noise(0.02))
    o["tracking_rms"] = 0.012 * fs ** 0.5 + 0.4 * tau + np.abs(noise(0.001))

    # Failures: likely at high pressure, plus a few random Newton failures.
    p_fail = 1.0 / (1.0 + np.exp(-(o["p2_max"] - 22.5e6) / 4e5))
    status = np.zeros(n, dtype=np.int32)
    status[rng.random(n) < p_fail] = STATUS_NAMES.index("pressure_out_of_range")
    status[(status == 0) & (rng.random(n) < 0.01)] = STATUS_NAMES.index("newton_failure")
    status[(status == 0) & (bulk > 1.6e9) & (friction > 400)] = STATUS_NAMES.index("newton_failure")  # stiff and sticky
    if n == 1:
        status[:] = 0
    failed = status != 0
    t_end = np.where(failed, rng.uniform(0.8, 0.9 * DURATION, n), DURATION)
    o["t_end"] = t_end
    o["steps"] = np.floor(t_end / DT + 0.5)
    o["newton_iterations"] = np.round(o["steps"] * np.where(failed, 2.5, o["mean_newton_iterations"]))
    for name, *_ in COLUMNS:
        if name not in ("t_end", "steps", "newton_iterations", "max_newton_iterations"):
            o[name] = np.where(failed, np.nan, o[name])
    o["max_newton_iterations"] = np.where(failed, 20, o["max_newton_iterations"])
    return status, o, x


def trajectories(x, o, status, m, rng):
    n = status.size
    t = np.linspace(0.0, DURATION, m)
    tr = {name: np.empty((n, m)) for name, _ in CHANNELS}
    dt = t[1] - t[0]
    for i in range(n):
        tau = x["circuit.valve_time_constant"][i]
        ref = x["input.gain"][i] * np.interp(t, SCHEDULE_T, SCHEDULE_U)
        u = np.empty(m)
        u[0] = 0.0
        a = 1.0 - math.exp(-dt / max(tau, 1e-9))
        for k in range(1, m):
            u[k] = u[k - 1] + a * (ref[k] - u[k - 1])
        wn = 2 * math.pi * 3.0 * math.sqrt(x["circuit.oil_bulk_modulus"][i] / 1.2e9)
        ring = np.zeros(m)
        for tk in SCHEDULE_T[1:]:
            ring += np.where(t >= tk, np.exp(-2.0 * (t - tk)) * np.sin(wn * (t - tk)), 0.0)
        pmax = o["p2_max"][i] if np.isfinite(o["p2_max"][i]) else 20e6
        tr["t"][i] = t
        tr["U"][i] = u
        tr["q1"][i] = 0.1 + 0.05 * np.cumsum(u) * dt + 0.002 * ring
        tr["q2"][i] = -1.2 - 0.3 * (tr["q1"][i] - 0.1)
        tr["q3"][i] = 2.0 + 0.2 * (tr["q1"][i] - 0.1)
        tr["p1"][i] = 21e6 - 0.1e6 * np.abs(u) / 10
        tr["p2"][i] = 3e6 + (pmax - 3.5e6) * np.clip(u / 10, 0, 1) + 0.3e6 * ring
        tr["p3"][i] = 2.7e6 + 6e6 * np.clip(-u / 10, 0, 1) - 0.2e6 * ring
        tr["s"][i] = 0.78 + 0.1 * (tr["q1"][i] - 0.1)
        tr["sdot"][i] = np.gradient(tr["s"][i], t)
        tr["piston_force"][i] = tr["p2"][i] * 1.96e-3 - tr["p3"][i] * 1.0e-3
        tr["friction_force"][i] = -200.0 * x["friction_scale"][i] * np.tanh(tr["sdot"][i] / 1e-3)
        tr["energy_drift"][i] = np.cumsum(rng.normal(0, 1e-6, m))
        if status[i] != 0:  # samples after the failure are NaN
            cut = t > o["t_end"][i]
            for name, _ in CHANNELS:
                tr[name][i, cut] = np.nan
    return tr


def ok_values(o, status, q):
    v = o[q][status == 0]
    return v[np.isfinite(v)]


def statistics(group, v, n_failed, conf):
    z = 1.959963984540054 if abs(conf - 0.95) < 1e-9 else 2.5758293035489
    n = v.size
    mean = float(v.mean()) if n else math.nan
    std = float(v.std(ddof=1)) if n > 1 else (0.0 if n == 1 else math.nan)
    half = z * std / math.sqrt(n) if n > 1 else math.nan
    group.attrs.update(mean=mean, std=std, mean_ci_low=mean - half, mean_ci_high=mean + half,
                       std_ci_low=std * max(0.0, 1 - z / math.sqrt(2 * max(n - 1, 1))) if n > 1 else math.nan,
                       std_ci_high=std * (1 + z / math.sqrt(2 * max(n - 1, 1))) if n > 1 else math.nan,
                       count_ok=np.int64(n), count_failed=np.int64(n_failed), confidence=conf)
    s = np.sort(v)
    q = np.quantile(s, LEVELS) if n else np.full(LEVELS.size, np.nan)
    lo, hi = np.full(LEVELS.size, np.nan), np.full(LEVELS.size, np.nan)
    if n > 1:  # order-statistic (binomial, normal approximation) confidence interval
        for k, p in enumerate(LEVELS):
            d = z * math.sqrt(n * p * (1 - p))
            lo[k] = s[int(np.clip(math.floor(n * p - d), 0, n - 1))]
            hi[k] = s[int(np.clip(math.ceil(n * p + d), 0, n - 1))]
    for name, data in (("quantile_levels", LEVELS), ("quantiles", q), ("quantile_ci_low", lo), ("quantile_ci_high", hi)):
        group.create_dataset(name, data=data)


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return math.nan, math.nan, math.nan
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, max(0.0, c - h), min(1.0, c + h)


def sobol(group, f, status, base, names, rng):
    p = len(names)
    blocks = f.reshape(base, p + 2)
    good = np.isfinite(blocks).all(axis=1) & (status.reshape(base, p + 2) == 0).all(axis=1)
    kept = blocks[good]
    kept = kept - (kept.mean() if kept.size else 0.0)  # centred: the estimators below are shift-sensitive
    fa, fab, fb = kept[:, 0], kept[:, 1:p + 1], kept[:, p + 1]

    def estimate(idx):
        a, ab, b = fa[idx], fab[idx], fb[idx]
        var = np.var(np.concatenate([a, b]))
        if not var > 0:
            return np.full(p, np.nan), np.full(p, np.nan)
        s1 = np.mean(b[:, None] * (ab - a[:, None]), axis=0) / var  # Saltelli 2010
        st = 0.5 * np.mean((a[:, None] - ab) ** 2, axis=0) / var  # Jansen
        return s1, st

    m = int(good.sum())
    s1, st = estimate(np.arange(m))
    boot = [estimate(rng.integers(0, m, m)) for _ in range(200)] if m > 1 else []
    b1 = np.array([b[0] for b in boot]) if boot else np.full((1, p), np.nan)
    bt = np.array([b[1] for b in boot]) if boot else np.full((1, p), np.nan)
    group.attrs["factors"] = np.array(names, dtype=h5py.string_dtype())
    group.attrs["base_samples"] = np.int64(base)
    group.attrs["dropped_rows"] = np.int64((base - m) * (p + 2))
    group.attrs["confidence"] = 0.95
    for name, data in (("first_order", s1), ("first_order_ci_low", np.nanpercentile(b1, 2.5, axis=0)),
                       ("first_order_ci_high", np.nanpercentile(b1, 97.5, axis=0)), ("total", st),
                       ("total_ci_low", np.nanpercentile(bt, 2.5, axis=0)),
                       ("total_ci_high", np.nanpercentile(bt, 97.5, axis=0))):
        group.create_dataset(name, data=data)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="output directory (created); the file is DIR/results.h5")
    ap.add_argument("--design", default="saltelli",
                    choices=["saltelli", "grid", "grid3", "lhs", "monte-carlo", "sobol", "single"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--base", type=int, default=128, help="saltelli: base samples (default 128)")
    ap.add_argument("--count", type=int, default=200, help="lhs/monte-carlo/sobol: instances (default 200)")
    ap.add_argument("--stride", type=int, default=10, help="trajectory stride; 0: no /trajectories (default 10)")
    ap.add_argument("--samples", type=int, default=201, help="samples per trajectory (default 201)")
    ap.add_argument("--no-analysis", action="store_true", help="leave out /analysis")
    ap.add_argument("--sparse-metadata", action="store_true",
                    help="leave out optional metadata attributes (sample_method, backend, created, ...)")
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    names, values, method, base = design(args.design, rng, args.base, args.count)
    n = values.shape[0]
    status, o, x = respond({name: values[:, k] for k, name in enumerate(names)}, n, rng)
    m = args.samples if args.stride > 0 else 0

    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    strs = h5py.string_dtype()
    with h5py.File(out / "results.h5", "w") as f:
        g = f.create_group("inputs")
        g.attrs["varied"] = np.array(names, dtype=strs)
        for k, name in enumerate(names):
            d = g.create_dataset(name, data=values[:, k])
            d.attrs["unit"], d.attrs["description"] = FACTORS[name][0], FACTORS[name][1]
        cols = list(DEFAULTS)
        d = g.create_dataset("all", data=np.column_stack([x[c] for c in cols]))
        d.attrs["columns"] = np.array(cols, dtype=strs)
        d.attrs["units"] = np.array([FACTORS[c][0] for c in cols], dtype=strs)

        g = f.create_group("outputs")
        d = g.create_dataset("status", data=status.astype(np.int32))
        d.attrs["status_names"] = np.array(STATUS_NAMES, dtype=strs)
        d.attrs["description"] = "why the instance stopped: status_names[status]; 0 = ok (ran to the end)"
        for name, unit, what, integer in COLUMNS:
            data = o[name].astype(np.int64) if integer else o[name].astype(np.float64)
            d = g.create_dataset(name, data=data)
            d.attrs["unit"], d.attrs["description"] = unit, what

        if m > 0:
            g = f.create_group("trajectories")
            g.attrs["stride"] = np.int64(args.stride)
            g.attrs["description"] = "every stride-th step and t = 0; samples after a failure have t = NaN"
            for name, data in trajectories(x, o, status, m, rng).items():
                d = g.create_dataset(name, data=data, chunks=(min(n, 64), m), compression="gzip",
                                     compression_opts=1, shuffle=True)
                d.attrs["unit"] = dict(CHANNELS)[name]

        if not args.no_analysis:
            a = f.create_group("analysis")
            quantities = ANALYSED if args.design != "grid" else ANALYSED[:2]
            a.attrs["quantities"] = np.array(quantities, dtype=strs)
            st = a.create_group("statistics")
            for q in quantities:
                statistics(st.create_group(q), ok_values(o, status, q), int((status != 0).sum()), 0.95)
            v = ok_values(o, status, "p2_max")
            limit = 18e6
            k = int((v > limit).sum())
            pf, lo, hi = wilson(k, v.size)
            fg = a.create_group("failure")
            fg.attrs.update(quantity="p2_max", limit=limit, direction="above", probability=pf, ci_low=lo,
                            ci_high=hi, failures=np.int64(k), count=np.int64(v.size), method="wilson")
            if method == "saltelli":
                sg = a.create_group("sobol")
                for q in quantities:
                    sobol(sg.create_group(q), o[q], status, base, names, rng)

        meta = f.create_group("metadata")
        study_name = f"synthetic_{args.design}"
        text = f'[study]\nname = "{study_name}"\nmodel = "four-bar"\nfriction = "brown-mcphee"\n'
        attrs = dict(study_name=study_name, study_path=f"studies/{study_name}.toml", study_text=text,
                     study_description="synthetic results for plot tests (made-up response model)",
                     hydrosweep_version="synthetic", model="four-bar", friction="brown-mcphee",
                     formulation="reduced", sample_method=method, instance_count=np.int64(n),
                     failed_count=np.int64((status != 0).sum()), backend="cpu", threads=np.int64(16),
                     wall_seconds=0.01 * n, created="2024-01-01T00:00:00Z",
                     trajectory_stride=np.int64(args.stride if m else 0), samples_per_instance=np.int64(m),
                     dt=DT, duration=DURATION)
        if args.sparse_metadata:
            for key in ("sample_method", "backend", "created", "wall_seconds", "failed_count", "study_text",
                        "friction", "dt"):
                attrs.pop(key)
        meta.attrs.update(attrs)
    print(f"wrote {out / 'results.h5'}: {args.design}, {n} instances, {int((status != 0).sum())} failed")


if __name__ == "__main__":
    main()
