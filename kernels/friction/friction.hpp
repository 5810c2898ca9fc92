// Seal friction of the hydraulic cylinder, as interchangeable policies.
//
// A friction policy gives the friction force F_μ(v) opposing the piston
// velocity v = ṡ (it is subtracted from the piston force, seed 002 eq 20)
// and, for dynamic models, the rates of its internal states w. The
// integrator treats those states as extra trapezoidal primary variables
// (seed 002 eqs 35–37, "first approach"), so a policy only states
//   n_states, force(P, v, w, ẇ), state_rates(P, v, w, ẇ_out).
// Static models have n_states = 0 and ignore w, ẇ.
// All laws are odd in v (docs/models/friction.md §1).
#pragma once
#include "../core/decision_log.hpp"
#include "../core/dual.hpp"

namespace hs {

// One parameter set for every friction law (each uses the fields it needs).
// Defaults: docs/models/friction.md §2: F_c, F_s, σ2 [S] seed 000
// (the values "used in Ref. [5]" = seed 002); v_s [T]; ξ project choice.
// R: double for one instance, Lanes<W> for W instances in lockstep
// (kernels/core/lanes.hpp; every field an R, so the batch is the W structs
// transposed).
template <class R = double>
struct FrictionParamsT {
  R coulomb_force = 210.0;      // F_c [N]
  R static_force = 830.0;       // F_s [N]
  R stribeck_velocity = 0.005;  // v_s [m/s]
  R viscous_coefficient = 330.0;  // σ2 [N·s/m]
  // Bengisu–Akay decay rate ξ of the sliding branch [s/m]. Not in the seed
  // texts; 1/v_s = 200 s/m makes the Stribeck drop decay over one Stribeck
  // velocity, the scale the other laws use (project choice).
  R bengisu_akay_decay = 200.0;
  // LuGre and modified LuGre (docs/models/friction.md §7–§8; seed 002
  // Table 2 is lost, so these are literature-typical project choices [P]).
  R lugre_stiffness = 1e6;       // σ0 [N/m]: F_s/σ0 = 0.83 mm of pre-sliding at breakaway
  R lugre_damping = 1e3;         // σ1 [N·s/m]: ~√σ0 per unit mass
  R stribeck_exponent = 2.0;     // n [-] (≥ 1): Gaussian Stribeck curve
  R film_time_acceleration = 0.05;  // τ_hp [s]
  R film_time_deceleration = 0.5;   // τ_hn [s]
  R film_time_dwell = 20.0;         // τ_h0 [s]
  R film_velocity = 0.05;           // v_b [m/s]: 10 v_s
  // Which law a StaticFrictionChoice or DynamicFrictionChoice evaluates
  // (kernels/friction/law_choice.hpp): the law's position in
  // FrictionLawRegistry, set by the host from `[study] friction`, not a study
  // parameter. Last, so that the parameter table's fields keep their places.
  // A law compiled as a policy of its own ignores it.
  R law_code = 0.0;
};
using FrictionParams = FrictionParamsT<double>;

// Seed 000's friction scenarios (×1, ×1/10, ×1/100, §4.4) scale the
// Coulomb, static and viscous terms together; so does a stability map's
// friction axis.
HS_HD inline void scale_friction(FrictionParams& f, double scale) {
  f.coulomb_force *= scale;
  f.static_force *= scale;
  f.viscous_coefficient *= scale;
}

// Brown–McPhee, seed 000 eq (8) (signed form, plain viscous term σ2·v;
// seed 002 eq (24) multiplies σ2 by tanh(4) = 0.99933, ambiguity A4):
//   F_μ = F_c tanh(4v/v_s) + (F_s − F_c)(v/v_s)/((v/v_s)²/4 + 3/4)² + σ2 v
// Smooth, so the Newton tangent is continuous; slope at 0:
//   4F_c/v_s + (16/9)(F_s − F_c)/v_s + σ2.
struct BrownMcPhee {
  static constexpr const char* name = "brown-mcphee";  // as written in study files
  static constexpr int n_states = 0;
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T force(const FrictionParamsT<R>& f, const T& v, const T* = nullptr, const T* = nullptr) {
    const T x = v * (1.0 / f.stribeck_velocity);
    const T den = 0.25 * x * x + 0.75;
    return f.coulomb_force * math::tanh(4.0 * x) + (f.static_force - f.coulomb_force) * x / (den * den) +
           f.viscous_coefficient * v;
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>&, const T&, const T*, T*) {}
};

// Bengisu–Akay, seed 002 eqs (21)–(23):
//   |v| <  v_s:  F_μ = (F_s − F_s/v_s² (|v| − v_s)²) sgn v            + σ2 v
//   |v| >= v_s:  F_μ = (F_c + (F_s − F_c) e^{−ξ(|v| − v_s)}) sgn v   + σ2 v
// Seed 002's corrected form adds σ2 v only in the sliding branch, which
// makes F_μ jump by σ2·v_s at |v| = v_s (ambiguity A5). We add it in both
// branches: the law stays continuous (both branches give F_s + σ2 v_s at
// v_s) and its value differs from seed 002's by at most σ2·v_s = 1.65 N.
// Slope at 0: 2F_s/v_s + σ2.
struct BengisuAkay {
  static constexpr const char* name = "bengisu-akay";  // as written in study files
  static constexpr int n_states = 0;
  template <class R, class T>
  HS_HD HS_FORCEINLINE static T force(const FrictionParamsT<R>& f, const T& v, const T* = nullptr, const T* = nullptr) {
    const T speed = math::abs(v);
    const R vs = f.stribeck_velocity;
    return lane_if(
        HS_DECISION(bengisu_akay_sticking, speed < vs, speed, vs),
        [&]() -> T {
          // (F_s − F_s/v_s² (|v| − v_s)²) sgn v = F_s (2v/v_s − v|v|/v_s²): written
          // without sgn so that the dual-number slope at v = 0 is 2F_s/v_s, not 0.
          return f.static_force * (2.0 / vs) * v - f.static_force / (vs * vs) * v * speed + f.viscous_coefficient * v;
        },
        [&]() -> T {
          const T sliding =
              f.coulomb_force + (f.static_force - f.coulomb_force) * math::exp(-f.bengisu_akay_decay * (speed - vs));
          return sliding * math::sign(v) + f.viscous_coefficient * v;
        });
  }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>&, const T&, const T*, T*) {}
};

// A policy with no friction at all (frictionless checks, energy tests).
struct NoFriction {
  static constexpr const char* name = "none";  // as written in study files
  static constexpr int n_states = 0;
  template <class R, class T>
  HS_HD static T force(const FrictionParamsT<R>&, const T&, const T* = nullptr, const T* = nullptr) { return T(0.0); }
  template <class R, class T>
  HS_HD static void state_rates(const FrictionParamsT<R>&, const T&, const T*, T*) {}
};

}  // namespace hs
