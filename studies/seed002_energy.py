#!/usr/bin/env python3
"""Seed 002's energy figures by measurement: what sets the maximum cylinder
work and the peak energy drift of the four-bar work cycle (penalty
formulation, Brown-McPhee friction, dt = 1 ms, 10 s).

    python3 studies/seed002_energy.py [--hydrosweep PATH] [--out DIR]

Seed 002 reports a maximum cylinder work of ~121 J and a peak energy drift of
0.44-0.45 J (0.36-0.37 %) at the valve opening (~1 s). The reconstructed
circuit (docs/models/hydraulics.md §11, values marked [T]) gives 61.8 J and
4.5e-3 J at the valve closing (2.514 s). This script writes its study files
into DIR, runs them with `hydrosweep run` and measures:

  (a) the DCV flow coefficient C_vd over x0.5 ... x2.5: max cylinder work,
      peak drift, the time of the drift peak, the largest drift before 2 s
      and the drift at each valve event (opening 1 s, closing 2.5 s,
      reversal 5 s, stop 8 s); the supply pressure pP over x1 ... x4;
  (b) the readings that give 121 J: C_vd alone, pP alone, pP at C_vd x sqrt(2)
      (the "35 bar per control edge" reading of the valve's rating);
  (c) the drift's size and timing there;
  (d) where the drift comes from: the trapezoidal rule with a trapezoidal
      quadrature of the power books, for a constant mass matrix exactly,
          drift(t) = -(dt^2/8) zdd' M zdd  (~ -(dt^2/8) m_eff sdd^2),
      a bounded offset set by the mechanism's acceleration at that instant,
      not an accumulated error. The script checks this against the measured
      drift (m_eff from the default mechanism's geometry, sdd from the
      trapezoidal relation), shows the valve events (spool rate, pressure
      rate, acceleration), the effect of a faster spool (tau / 2, / 4) and of
      dt = 1e-3, 5e-4, 2.5e-4 (a ratio of 4 per halving), and a
      one-at-a-time scan of the other circuit values for the opening/closing
      ratio of the drift;
  (e) the bound on the drift at the opening: the net accelerating force
      there cannot exceed A2 pP - A3 pT + the static load, so
      drift_open <= (dt^2/8) F_max^2 / m_eff;
  (f) a hypothesis about the seed's undefined bookkeeping (docs/models/
      integrators.md §6, A18), not the code's: the same runs with the work
      booked by a first-order (rectangle) rule, whose drift is
      (dt/2)(P_net(t) - P_net(0)) on top of the trapezoid's, P_net the power of
      the pressure and friction forces: size, timing, share of the work.

Writes DIR/seed002_energy.png and DIR/seed002_energy.json and prints the
tables. About a minute on one core. Findings: docs/models/hydraulics.md §15.
"""
import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import h5py
import matplotlib

matplotlib.use("Agg")  # headless
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET_WORK = 121.0  # J, seed 002 (120.94-121.02 over the four laws)
PAPER_DRIFT = (0.44, 0.45)  # J, at the valve opening
CVD = 1.069e-8  # default circuit.dcv_flow_coefficient
PP = 7.6e6  # default circuit.supply_pressure
PT = 1e5  # default circuit.tank_pressure
TAU = 0.004547284088339867  # default circuit.valve_time_constant
EVENTS = {"opening 1 s": (1.0, 1.5), "closing 2.5 s": (2.5, 3.0), "reversal 5 s": (5.0, 5.5),
          "stop 8 s": (8.0, 8.5)}
SCALE_AXES = {"dcv": ("dcv_flow_scale", ["circuit.dcv_flow_coefficient"]),
              "pp": ("supply_scale", ["circuit.supply_pressure"])}

HEADER = """[study]
name = "{name}"
model = "four-bar"
formulation = "penalty"
friction = "brown-mcphee"

[integrator]
dt = {dt!r}
duration = 10.0

[input]
times = [0.0, 1.0, 2.5, 5.0, 8.0]
values = [0.0, 10.0, 0.0, -10.0, 0.0]

[parameters]
{params}
[analysis]
reference_run = false

[output]
trajectory_stride = {stride}
"""


def study_text(name, params, axis, values, dt, stride):
    """One-axis grid study: axis is a parameter name or a key of SCALE_AXES."""
    p = "".join(f'"{k}" = {v!r}\n' for k, v in params.items())
    text = HEADER.format(name=name, dt=dt, params=p, stride=stride)
    vals = ", ".join(repr(float(v)) for v in values)
    if axis in SCALE_AXES:
        nm, scales = SCALE_AXES[axis]
        text += f'\n[[grid]]\nname = "{nm}"\nscales = {json.dumps(scales)}\nvalues = [{vals}]\n'
    else:
        text += f'\n[[grid]]\nparameter = "{axis}"\nvalues = [{vals}]\n'
    return text


class Runner:
    def __init__(self, exe, out):
        self.exe, self.out, self.count = exe, out, 0

    def grid(self, name, axis, values, params=None, dt=1e-3, stride=1):
        """Runs the grid; returns one dict per instance (outputs, and trajectories when stride > 0)."""
        self.count += 1
        toml = self.out / f"{name}.toml"
        toml.write_text(study_text(name, params or {}, axis, values, dt, stride))
        d = self.out / name
        subprocess.run([str(self.exe), "run", str(toml), "--out", str(d), "--quiet"], check=True)
        rows = []
        with h5py.File(d / "results.h5", "r") as f:
            o = f["outputs"]
            for i, v in enumerate(values):
                r = {"value": float(v), "status": int(o["status"][i]),
                     "work": float(o["max_cylinder_work"][i]), "drift": float(o["peak_energy_drift"][i]),
                     "iterations": float(o["mean_newton_iterations"][i])}
                if stride:
                    T = f["trajectories"]
                    r.update({k: T[k][i] for k in ("t", "energy_drift", "s", "sdot", "U", "p1", "p2", "p3", "q1",
                                                   "piston_force", "friction_force")})
                    r["dt"] = dt
                rows.append(r)
        return rows


# --- the default mechanism's effective mass at the cylinder (docs/models/four-bar.md: crank 2 m,
# coupler 8 m, rocker 5 m, masses 16/64/40 kg, slender rods, cylinder G = (-1, 0) to the crank's middle).
MASS = (16.0, 64.0, 40.0)
INERTIA = (16 * 4 / 12, 64 * 64 / 12, 40 * 25 / 12)


def configuration(th1):
    B = np.array([2 * math.cos(th1), 2 * math.sin(th1)])
    E = np.array([10.0, 0.0])
    D = E - B
    L = math.hypot(*D)
    a = (64 - 25 + L * L) / (2 * L)
    h = math.sqrt(64 - a * a)
    u = D / L
    C = B + a * u + h * np.array([-u[1], u[0]])  # the upper branch of the default assembly
    th = (th1, math.atan2(*(C - B)[::-1]), math.atan2(*(E - C)[::-1]))
    g = (B / 2, (B + C) / 2, (C + E) / 2)
    s = math.hypot(math.cos(th1) + 1.0, math.sin(th1))
    return g, th, s


def effective_mass(th1, h=1e-6):
    """m_eff(theta1) = sum(m |dg/ds|^2 + I (dtheta/ds)^2): T = m_eff sdot^2 / 2."""
    gp, tp, sp = configuration(th1 + h)
    gm, tm, sm = configuration(th1 - h)
    ds = (sp - sm) / (2 * h)
    e = sum(m * float((((a - b) / (2 * h)) ** 2).sum()) for m, a, b in zip(MASS, gp, gm))
    e += sum(i * ((a - b) / (2 * h)) ** 2 for i, a, b in zip(INERTIA, tp, tm))
    return e / ds ** 2


def analyse(r):
    """Drift timing, event windows and the -(dt^2/8) m_eff sdd^2 predictor of one run."""
    t, d, dt = r["t"], r["energy_drift"], r["dt"]
    sd = r["sdot"]
    # The trapezoidal rule's own accelerations: sd_{k+1} - sd_k = dt/2 (a_k + a_{k+1}), a_0 = 0 (at rest).
    a = np.zeros_like(sd)
    mid = np.diff(sd) / dt
    for k in range(len(mid)):
        a[k + 1] = 2 * mid[k] - a[k]
    th = r["q1"]
    grid = np.linspace(th.min() - 1e-3, th.max() + 1e-3, 41)
    meff = np.interp(th, grid, [effective_mass(x) for x in grid])
    pred = -(dt ** 2 / 8) * meff * a ** 2
    # A first-order (rectangle-rule) quadrature of the power, P = (F_p - F_mu) sdot at the step's start,
    # instead of the code's trapezoid: drift_1(t) = drift(t) + W_trap(t) - W_rect(t) = drift(t) + (dt/2)(P(t) - P(0)).
    P = (r["piston_force"] - r["friction_force"]) * sd
    rect = d + np.concatenate([[0.0], np.cumsum(0.5 * dt * (P[1:] - P[:-1]))])
    r["rect"] = rect
    k = int(np.argmax(np.abs(d)))
    kr = int(np.argmax(np.abs(rect)))
    out = {"work": r["work"], "drift": r["drift"], "t_peak": float(t[k]), "drift_signed": float(d[k]),
           "before_2s": float(np.abs(d[t < 2.0]).max()),
           "pred_peak": float(np.abs(pred).max()), "t_pred_peak": float(t[int(np.argmax(np.abs(pred)))]),
           "corr": float(np.corrcoef(d, pred)[0, 1]), "meff0": float(meff[0]),
           "residual": float(np.abs(d - pred).max()), "events": {},
           "rect_peak": float(abs(rect[kr])), "t_rect_peak": float(t[kr]), "max_abs_power": float(np.abs(P).max()),
           "t_max_power": float(t[int(np.argmax(np.abs(P)))])}
    Udot = np.gradient(r["U"], dt)
    for name, (lo, hi) in EVENTS.items():
        w = (t >= lo) & (t < hi)
        j = np.flatnonzero(w)[int(np.argmax(np.abs(d[w])))]
        out["events"][name] = {
            "drift": float(abs(d[j])), "t": float(t[j]), "rect": float(np.abs(rect[w]).max()),
            "max_abs_sdd": float(np.abs(a[w]).max()),
            "max_abs_Udot": float(np.abs(Udot[w]).max()),
            "max_abs_p2dot": float(np.abs(np.gradient(r["p2"], dt)[w]).max()),
            "max_abs_p3dot": float(np.abs(np.gradient(r["p3"], dt)[w]).max()),
            "sdot_before": float(sd[max(np.flatnonzero(w)[0] - 1, 0)]),
            "max_abs_force": float(np.abs(r["piston_force"][w]).max())}
    r["sdd"], r["pred"] = a, pred
    return out


def solve(run, name, axis, lo, hi, params=None, target=TARGET_WORK, tol=0.05):
    """Value of a scale axis giving max_cylinder_work = target (Illinois regula falsi, one run per step)."""
    f = {}

    def work(x):
        f[x] = run.grid(f"{name}_{len(f)}", axis, [x], params, stride=0)[0]["work"] - target
        return f[x]

    a, b = lo, hi
    fa, fb = work(a), work(b)
    if fa * fb > 0:
        return None
    side = 0
    for _ in range(30):
        c = (a * fb - b * fa) / (fb - fa)
        fc = work(c)
        if abs(fc) < tol:
            return c
        if fc * fb > 0:
            b, fb = c, fc
            if side == -1:
                fa /= 2
            side = -1
        else:
            a, fa = c, fc
            if side == 1:
                fb /= 2
            side = 1
    return c


def row(label, m):
    ev = m["events"]
    return (f"{label:28} {m['work']:8.2f} {m['drift']:10.3e} {m['t_peak']:7.3f} {m['before_2s']:10.3e}"
            f" {ev['opening 1 s']['drift']:10.3e} {ev['closing 2.5 s']['drift']:10.3e}"
            f" {ev['opening 1 s']['drift'] / ev['closing 2.5 s']['drift']:6.2f} {m['pred_peak']:10.3e} {m['corr']:7.4f}")


def row_rect(label, m):
    ev = m["events"]
    return (f"{label:28} {m['work']:8.2f} {m['rect_peak']:8.4f} {m['t_rect_peak']:7.3f}"
            + "".join(f" {ev[e]['rect']:8.4f}" for e in EVENTS)
            + f" {ev['opening 1 s']['rect'] / m['work'] * 100:7.3f} % {m['max_abs_power']:7.0f} W at {m['t_max_power']:.3f}")


HEAD_RECT = (f"{'run':28} {'W_max [J]':>8} {'peak [J]':>8} {'t_peak':>7} {'opening':>8} {'closing':>8} {'reversal':>8}"
             f" {'stop':>8} {'open/W':>9} {'max |P_net|':>11}")

HEAD = (f"{'run':28} {'W_max [J]':>8} {'peak drift':>10} {'t_peak':>7} {'max < 2 s':>10} {'opening':>10}"
        f" {'closing':>10} {'op/cl':>6} {'dt2/8 m a2':>10} {'corr':>7}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hydrosweep", default=str(ROOT / "build/host/cli/hydrosweep"))
    ap.add_argument("--out", default="out/seed002_energy")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    run = Runner(a.hydrosweep, out)
    first_order = []  # (label, metrics) for table (f)
    report = {"target_work_J": TARGET_WORK, "paper_drift_J": PAPER_DRIFT}

    # (a) C_vd and pP grids, every step recorded.
    cvd_scales = [0.5, 0.75, 1.0, 1.25, math.sqrt(2), 1.5, 1.75, 2.0, 2.25, 2.5]
    cvd = run.grid("grid_dcv", "dcv", cvd_scales)
    pp_scales = [1.0, 1.5, 2.0, 2.5, 3.0, 4.0]
    pp = run.grid("grid_supply", "pp", pp_scales)
    if any(r["status"] for r in cvd + pp):
        sys.exit("a grid instance failed")
    print("(a) one factor at a time (penalty, Brown-McPhee, dt = 1 ms); drift in J, times in s")
    print(HEAD)
    report["grid_dcv"], report["grid_supply"] = [], []
    for r in cvd:
        m = analyse(r)
        report["grid_dcv"].append({"scale": r["value"], **m})
        first_order.append((f"C_vd x {r['value']:.3f}", m))
        print(row(f"C_vd x {r['value']:.3f}", m))
    for r in pp:
        m = analyse(r)
        report["grid_supply"].append({"scale": r["value"], **m})
        first_order.append((f"pP x {r['value']:.2f}", m))
        print(row(f"pP x {r['value']:.2f} ({r['value'] * PP / 1e6:.1f} MPa)", m))

    # (b) readings that give 121 J.
    readings = {}
    x = solve(run, "solve_dcv", "dcv", 1.5, 2.5)
    if x is not None:
        readings["C_vd alone"] = ("dcv", x, {})
    x = solve(run, "solve_supply", "pp", 2.0, 8.0)
    if x is not None:
        readings["pP alone"] = ("pp", x, {})
    sq2 = {"circuit.dcv_flow_coefficient": CVD * math.sqrt(2)}
    x = solve(run, "solve_supply_sqrt2", "pp", 1.0, 6.0, sq2)
    if x is not None:
        readings["pP at C_vd x sqrt(2)"] = ("pp", x, sq2)
    print(f"\n(b, c) readings that give {TARGET_WORK} J of maximum cylinder work")
    print(HEAD)
    report["readings"] = {}
    sol = {}
    for label, (axis, x, params) in readings.items():
        r = run.grid(f"reading_{axis}_{len(sol)}", axis, [x], params)[0]
        m = analyse(r)
        sol[label] = (axis, x, params, r)
        desc = {"dcv": f"C_vd x {x:.4f} = {x * CVD:.4g}", "pp": f"pP = {x * PP / 1e6:.2f} MPa"}[axis]
        report["readings"][label] = {"setting": desc, "params": params, **m}
        first_order.append((f"121 J: {label}", m))
        print(row(label, m) + f"   [{desc}]")

    # (d) dt halving and a faster spool, at the nominal circuit and at the C_vd reading.
    cases = {"nominal": ("dcv", 1.0, {})}
    if "C_vd alone" in sol:
        cases["121 J (C_vd)"] = sol["C_vd alone"][:3]
    print("\n(d) dt halving (a trapezoidal rule's error falls 4x per halving)")
    report["dt"] = {}
    for label, (axis, x, params) in cases.items():
        peaks = []
        for dt in (1e-3, 5e-4, 2.5e-4):
            r = run.grid(f"dt_{axis}_{dt:g}_{len(report['dt'])}", axis, [x], params, dt=dt)[0]
            m = analyse(r)
            peaks.append((dt, m["drift"], m["t_peak"], m["events"]["opening 1 s"]["drift"],
                          m["events"]["closing 2.5 s"]["drift"], r))
            first_order.append((f"{label}, dt = {dt:g}", m))
        report["dt"][label] = [{"dt": p[0], "peak": p[1], "t_peak": p[2], "opening": p[3], "closing": p[4]}
                               for p in peaks]
        for (dt, pk, tp, op, cl, _), nxt in zip(peaks, peaks[1:] + [None]):
            ratio = f"{pk / nxt[1]:.3f} (opening {op / nxt[3]:.3f}, closing {cl / nxt[4]:.3f})" if nxt else ""
            print(f"  {label:14} dt = {dt:g}: peak {pk:.4e} J at {tp:.4f} s, opening {op:.4e}, closing {cl:.4e}"
                  f"{'   ratio to dt/2: ' + ratio if ratio else ''}")
        cases[label] = cases[label] + (peaks,)

    print("\n(d) a faster (and a slower) spool: tau x 2, x 1, / 2, / 4")
    report["tau"] = {}
    taus = [2 * TAU, TAU, TAU / 2, TAU / 4]
    tau_runs = {}
    for label, (axis, x, params, _) in cases.items():
        p = dict(params)
        if axis == "dcv":
            p["circuit.dcv_flow_coefficient"] = x * CVD
        else:
            p["circuit.supply_pressure"] = x * PP
        rs = run.grid(f"tau_{len(report['tau'])}", "circuit.valve_time_constant", taus, p)
        tau_runs[label] = rs
        report["tau"][label] = []
        for r in rs:
            m = analyse(r)
            report["tau"][label].append({"tau": r["value"], **m})
            first_order.append((f"{label}, tau {1e3 * r['value']:.2f} ms", m))
            print(row(f"{label}, tau = {1e3 * r['value']:.2f} ms", m))

    # One at a time around the C_vd reading: which reconstructed value moves the peak to the opening?
    print("\n(d) one at a time around the 121 J (C_vd) reading: opening/closing drift ratio")
    base = {"circuit.dcv_flow_coefficient": sol["C_vd alone"][1] * CVD} if "C_vd alone" in sol else {}
    scan = {"circuit.throttle_diameter": [0.004, 0.005, 0.008, 0.010],
            "circuit.piston_diameter": [0.063, 0.100, 0.125],
            "circuit.hose_bulk_modulus": [5e7, 5e8, 1.5e9],
            "circuit.hose_volume_1": [1.5e-5, 1.5e-4],
            "circuit.rod_side_initial_pressure": [1e6, 6e6]}
    report["scan"] = {}
    for k, (par, vals) in enumerate(scan.items()):
        rs = run.grid(f"scan_{k}", par, vals, base)
        report["scan"][par] = []
        for r in rs:
            if r["status"] or not np.isfinite(r["energy_drift"]).all():
                print(f"  {par} = {r['value']:g}: status {r['status']}")
                continue
            m = analyse(r)
            report["scan"][par].append({"value": r["value"], **m})
            first_order.append((f"{par.split('.')[1][:16]} {r['value']:g}", m))
            print(row(f"{par.split('.')[1][:17]} = {r['value']:g}", m))

    # (e) the bound at the opening.
    meff0 = effective_mass(math.pi / 3)
    A2 = math.pi * 0.08 ** 2 / 4
    A3 = A2 - math.pi * 0.035 ** 2 / 4
    r0 = cases["nominal"][3][0][5]  # the nominal run at dt = 1 ms: its static pressures at t = 0
    f0 = A2 * float(r0["p2"][0]) - A3 * float(r0["p3"][0])  # the static pressure force (about -386 N)
    fmax = A2 * PP - A3 * PT - f0
    bound = 1e-6 / 8 * fmax ** 2 / meff0
    need = math.sqrt(8 * PAPER_DRIFT[0] * meff0 / 1e-6)
    report["bound"] = {"m_eff_kg": meff0, "F_open_max_N": fmax, "drift_open_max_J": bound,
                       "F_needed_for_0.44J_N": need, "pP_needed_at_D80_MPa": (need + f0 + A3 * PT) / A2 / 1e6}
    print(f"\n(e) m_eff at the start = {meff0:.1f} kg; net force at the opening <= A2 pP - A3 pT + |F0| = "
          f"{fmax / 1e3:.1f} kN, so drift_opening <= (dt^2/8) F^2/m_eff = {bound:.3f} J at dt = 1 ms; "
          f"{PAPER_DRIFT[0]} J needs {need / 1e3:.1f} kN, i.e. pP >= "
          f"{report['bound']['pP_needed_at_D80_MPa']:.1f} MPa with D = 80 mm")

    print("\n(f) hypothesis, not the code's bookkeeping: the work booked by a first-order (rectangle) rule,"
          "\n    drift_1(t) = drift(t) + (dt/2)(P_net(t) - P_net(0)), P_net = (F_p - F_mu) sdot; falls 2x per dt halving")
    print(HEAD_RECT)
    for label, m in first_order:
        print(row_rect(label, m))
    report["first_order"] = [{"run": label, "peak": m["rect_peak"], "t_peak": m["t_rect_peak"],
                              "events": {e: v["rect"] for e, v in m["events"].items()}, "work": m["work"]}
                             for label, m in first_order]

    plot(out / "seed002_energy.png", cvd, sol, cases, tau_runs)
    (out / "seed002_energy.json").write_text(json.dumps(report, indent=1, default=float))
    print(f"\n{run.count} hydrosweep runs; plot and seed002_energy.json in {out}")


def plot(path, cvd, sol, cases, tau_runs):
    fig, axs = plt.subplots(2, 4, figsize=(21, 9.5), constrained_layout=True)
    ax = axs[:, :3]
    x = [r["value"] for r in cvd]
    a0 = ax[0, 0]
    a0.plot(x, [r["work"] for r in cvd], "o-", color="C0", label="max cylinder work")
    a0.axhline(TARGET_WORK, color="C0", ls=":", label="seed 002: 121 J")
    a0.set(xlabel="C_vd / 1.069e-8", ylabel="J", title="work and peak drift vs the DCV flow coefficient")
    b = a0.twinx()
    b.semilogy(x, [r["drift"] for r in cvd], "s-", color="C3", label="peak drift")
    b.semilogy(x, [np.abs(r["energy_drift"][r["t"] < 2]).max() for r in cvd], "^--", color="C1",
               label="largest drift before 2 s")
    b.axhline(0.445, color="C3", ls=":", label="seed 002: 0.44-0.45 J")
    b.set_ylabel("drift [J]")
    h1, l1 = a0.get_legend_handles_labels()
    h2, l2 = b.get_legend_handles_labels()
    a0.legend(h1 + h2, l1 + l2, fontsize=8, loc="center left")

    nominal = cases["nominal"][3][0][5]
    runs = [("nominal (61.8 J)", nominal, "C0")]
    if "121 J (C_vd)" in cases:
        runs.append((f"C_vd x {cases['121 J (C_vd)'][1]:.3f} (121 J)", cases["121 J (C_vd)"][3][0][5], "C3"))
    for label, r, c in runs:
        ax[0, 1].plot(r["t"], r["energy_drift"], color=c, lw=0.9, label=label)
    ax[0, 1].set(xlabel="t [s]", ylabel="J", title="energy drift over the cycle (dt = 1 ms)")
    for lo, hi, title, axx in ((0.99, 1.2, "opening", ax[0, 2]), (2.49, 2.7, "closing", ax[1, 0])):
        for label, r, c in runs:
            w = (r["t"] >= lo) & (r["t"] <= hi)
            axx.plot(r["t"][w], r["energy_drift"][w], color=c, label=f"{label}: drift")
            axx.plot(r["t"][w], r["pred"][w], "--", color="k", lw=0.8)
            ax2 = axx.twinx()
            ax2.plot(r["t"][w], r["U"][w], ":", color=c, lw=0.8)
            ax2.set_ylabel("U [V] (dotted)")
        axx.plot([], [], "--", color="k", lw=0.8, label="-(dt^2/8) m_eff sdd^2")
        axx.set(xlabel="t [s]", ylabel="J", title=f"drift at the valve {title}")
        axx.legend(fontsize=8, loc="lower right")
    for label, (_, _, _, peaks), c in zip(cases, cases.values(), ("C0", "C3")):
        dts = [p[0] for p in peaks]
        ax[1, 1].loglog(dts, [p[1] for p in peaks], "o-", color=c, label=f"{label}: peak")
        ax[1, 1].loglog(dts, [p[3] for p in peaks], "^--", color=c, label=f"{label}: opening")
    d0 = np.array([1e-3, 2.5e-4])
    ax[1, 1].loglog(d0, cases["nominal"][3][0][1] * (d0 / 1e-3) ** 2, ":", color="gray", label="dt^2")
    ax[1, 1].set(xlabel="dt [s]", ylabel="J", title="peak and opening drift vs dt")
    for label, rs in tau_runs.items():
        for r, ls in zip(rs, ("-", "--", "-.", ":")):
            w = (r["t"] >= 0.99) & (r["t"] <= 2.7)
            ax[1, 2].plot(r["t"][w], r["energy_drift"][w], ls, color="C0" if label == "nominal" else "C3", lw=0.8,
                          label=f"{label}, tau = {1e3 * r['value']:.2f} ms")
    ax[1, 2].set(xlabel="t [s]", ylabel="J", title="drift, opening to closing, vs spool time constant")
    for label, r, c in runs:
        axs[0, 3].plot(r["t"], r["rect"], color=c, lw=0.8, label=label)
    axs[0, 3].axhline(0.445, color="k", ls=":", lw=0.8, label="seed 002: 0.44-0.45 J")
    axs[0, 3].axhline(-0.445, color="k", ls=":", lw=0.8)
    axs[0, 3].set(xlabel="t [s]", ylabel="J", title="hypothesis: work by a first-order rule,\n"
                  "drift + (dt/2)(P_net(t) - P_net(0))")
    for label, (_, _, _, peaks), c in zip(cases, cases.values(), ("C0", "C3")):
        for (dt, *_, r), ls in zip(peaks, ("-", "--", ":")):
            w = (r["t"] >= 0.99) & (r["t"] <= 1.3)
            axs[1, 3].plot(r["t"][w], r["rect"][w], ls, color=c, lw=0.8, label=f"{label}, dt = {dt:g}")
    axs[1, 3].set(xlabel="t [s]", ylabel="J", title="first-order drift at the opening vs dt (halves per halving)")
    for a in (ax[0, 1], ax[1, 1], ax[1, 2], axs[0, 3], axs[1, 3]):
        a.legend(fontsize=7)
    for a in axs.flat:
        a.grid(True, alpha=0.3)
    fig.suptitle("seed 002 work cycle, penalty, Brown-McPhee: what sets the cylinder work and the energy drift")
    fig.savefig(path, dpi=80)
    plt.close(fig)


if __name__ == "__main__":
    main()
