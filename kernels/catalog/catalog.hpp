// The one list of the models hydrosweep knows: every entry of either family
// declares beside its physics (kernels/models/*_descriptor.hpp) what it is and
// what it supports, and the host dispatches on those declarations, never on a
// model's name or family (docs/code-layout.md §2).
//
// A hydraulically actuated physics declares:
//   key                         its name in ModelDescriptor::physics
//   FrictionLaws, Formulations  TypeLists of what it is compiled with (a
//                               formulation runs the laws it `integrates`; the
//                               stability map the linearizable_friction ones)
//   Model<Friction>             the model the integrators run
//                               (only when it runs: static constexpr bool runs)
//   Linearized<Friction>        the DAE form the stability map linearizes
//                               (only when static constexpr bool linearizes)
//   OffDevice, off_device_reason  formulations its kernels leave off the GPU
//   describe()                  the models (names, defaults, parameter tables)
//                               built on it
// A constrained system of run-time size (seed 003) declares instead:
//   Constrained                 the system the stability map assembles
//                               (host/constrained/; per thread where it
//                               declares per_thread_coordinates)
//   size_key, penalty_*         the parameter that sets its size ("": fixed);
//                               UCS's defaults
//   describe()                  its model
// Backends, stability maps, the per-thread constrained kernels and the host's
// model list iterate this list: adding a model of either family is its own
// files and one line here, a friction law or formulation one entry of its
// physics' lists. Host-only (the descriptors hold strings).
#pragma once
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../friction/law_choice.hpp"
#include "../linearize/per_thread_capacity.hpp"
#include "../linearize/stability.hpp"
#include "../models/constrained_descriptor.hpp"
#include "../models/four_bar_descriptor.hpp"
#include "../models/lift_tilt_descriptor.hpp"
#include "../models/planar_multibody_descriptor.hpp"
#include "../models/quick_return_descriptor.hpp"
#include "../models/rigid_double_pendulum_descriptor.hpp"

namespace hs {

using ModelCatalog = TypeList<  //
    PlanarFourBarPhysics,
    SpatialFourBarPhysics,
    QuickReturnPhysics,
    LiftTiltPhysics,
    NLoopLinkagePhysics,
    FlexiblePendulumPhysics,
    RigidDoublePendulumPhysics,
    PlanarMultibodyPhysics,
    PlanarMultibodyTwoCylinderPhysics>;

// Whether an entry is a constrained system of run-time size (it declares
// `Constrained`), and whether that system also runs per thread.
template <class Entry, class = void>
struct IsConstrainedEntry : std::false_type {};
template <class Entry>
struct IsConstrainedEntry<Entry, std::void_t<typename Entry::Constrained>> : std::true_type {};
template <class Entry>
constexpr bool constrained_per_thread() {
  if constexpr (IsConstrainedEntry<Entry>::value)
    return HasPerThreadMcs<typename Entry::Constrained>::value;
  else
    return false;
}

// ---- combinations --------------------------------------------------------------

// Whether the CUDA backend is built for a physics' formulation: the
// formulation runs on a device (Formulation::on_device; not the CPU reference
// integrator) and the physics does not leave it out. A physics leaves out a
// formulation whose kernel does not fit a GPU thread by listing it in
// `OffDevice` with its reason in `off_device_reason` (SpatialFourBarPhysics).
template <class Physics, class = void>
struct OffDeviceOf {
  using type = TypeList<>;
};
template <class Physics>
struct OffDeviceOf<Physics, std::void_t<typename Physics::OffDevice>> {
  using type = typename Physics::OffDevice;
};
// Why a physics or formulation is not on the device (its
// `off_device_reason`, or empty).
template <class T, class = void>
struct OffDeviceReason {
  static constexpr const char* value = "";
};
template <class T>
struct OffDeviceReason<T, std::void_t<decltype(T::off_device_reason)>> {
  static constexpr const char* value = T::off_device_reason;
};
template <class Physics, class Formulation>
constexpr bool on_device_for =
    Formulation::on_device && IndexIn<Formulation, typename OffDeviceOf<Physics>::type>::value < 0;

template <class PhysicsT, class Friction, class FormulationT>
struct RunCombination {
  using Physics = PhysicsT;
  using Formulation = FormulationT;
  using Integrator = typename Formulation::template Integrator<Physics, Friction>;
  static constexpr bool on_device = on_device_for<Physics, Formulation>;  // built for the CUDA backend
  // The physics' place in ModelCatalog (the CUDA build splits a
  // formulation's kernels over translation units by it: catalog_position).
  static constexpr int position = IndexIn<Physics, ModelCatalog>::value;
};
template <class Physics, class Friction>
struct StabilityCombination {
  using System = typename Physics::template Linearized<Friction>;
};

// Whether a physics compiles its laws with states as one run-time choice
// too (`static constexpr bool dynamic_friction_choice = true`).
template <class Physics, class = void>
struct DynamicFrictionChoiceOf : std::false_type {};
template <class Physics>
struct DynamicFrictionChoiceOf<Physics, std::void_t<decltype(Physics::dynamic_friction_choice)>>
    : std::integral_constant<bool, Physics::dynamic_friction_choice> {};
// What a physics is compiled with: its friction laws with the static ones
// gathered into one run-time choice (kernels/friction/law_choice.hpp), so
// that every (physics, formulation) compiles once for them, and the laws with
// states into another where the physics asks for it.
template <class Physics>
using FrictionPoliciesOf =
    typename CompiledFrictionPolicies<typename Physics::FrictionLaws, DynamicFrictionChoiceOf<Physics>::value>::type;

namespace catalog_detail {

template <class P, class = void>
struct HasActuators : std::false_type {};
template <class P>
struct HasActuators<P, std::void_t<decltype(std::declval<P&>().actuator[0].friction.law_code)>> : std::true_type {};

// Whether a compiled friction policy runs the law a study names.
template <class Policy>
struct PolicyLaws {
  static bool runs(const std::string& law) { return law == Policy::name; }
};
template <class... Laws>
struct PolicyLaws<StaticFrictionChoice<Laws...>> {
  static bool runs(const std::string& law) { return ((law == Laws::name) || ...); }
};
template <class... Laws>
struct PolicyLaws<DynamicFrictionChoice<Laws...>> {
  static bool runs(const std::string& law) { return ((law == Laws::name) || ...); }
};

template <class Physics, class F, class... Friction, class... Formulation>
void each_run(TypeList<Friction...>, TypeList<Formulation...>, F& f, const std::string& friction,
              const std::string& formulation, bool& found) {
  auto one_friction = [&](auto friction_tag) {
    using Fr = std::decay_t<decltype(friction_tag)>;  // decay: GCC types a captured tag as a reference in a nested lambda
    auto one_formulation = [&](auto formulation_tag) {
      using Fo = std::decay_t<decltype(formulation_tag)>;
      if constexpr (Fo::template integrates<Fr>) {
        if (!found && PolicyLaws<Fr>::runs(friction) && formulation == Fo::name) {
          found = true;
          f(RunCombination<Physics, Fr, Fo>{});
        }
      }
    };
    (one_formulation(Formulation{}), ...);
  };
  (one_friction(Friction{}), ...);
}

template <class Physics, class F, class... Friction>
void each_stability(TypeList<Friction...>, F& f, const std::string& friction, bool& found) {
  auto one = [&](auto friction_tag) {
    using Fr = std::decay_t<decltype(friction_tag)>;  // decay: GCC types a captured tag as a reference in a nested lambda
    if constexpr (linearizable_friction<Fr>) {
      if (!found && PolicyLaws<Fr>::runs(friction)) {
        found = true;
        f(StabilityCombination<Physics, Fr>{});
      }
    }
  };
  (one(Friction{}), ...);
}

template <class Physics, class F>
void run_of(F& f, const std::string& physics, const std::string& friction, const std::string& formulation, bool& found) {
  if constexpr (Physics::runs) {
    if (!found && physics == Physics::key)
      each_run<Physics>(FrictionPoliciesOf<Physics>{}, typename Physics::Formulations{}, f, friction, formulation, found);
  }
}
template <class Physics, class F>
void stability_of(F& f, const std::string& physics, const std::string& friction, bool& found) {
  if constexpr (Physics::linearizes) {
    if (!found && physics == Physics::key) each_stability<Physics>(FrictionPoliciesOf<Physics>{}, f, friction, found);
  }
}

template <class F, class... P>
bool run(TypeList<P...>, F& f, const std::string& physics, const std::string& friction, const std::string& formulation) {
  bool found = false;
  (run_of<P>(f, physics, friction, formulation, found), ...);
  return found;
}
template <class F, class... P>
bool stability(TypeList<P...>, F& f, const std::string& physics, const std::string& friction) {
  bool found = false;
  (stability_of<P>(f, physics, friction, found), ...);
  return found;
}
// What a model of this physics supports, from the physics' lists: its
// friction laws and formulations (first = default), those built for the
// CUDA backend, the laws each formulation integrates, the laws the stability
// map linearizes.
template <class Physics, class... Friction, class... Formulation>
void fill_support(ModelDescriptor& d, TypeList<Friction...> laws, TypeList<Formulation...> formulations) {
  d.friction_laws = names_of(laws);
  d.formulations = names_of(formulations);
  d.device_formulations.clear();
  d.off_device.clear();
  d.formulation_friction_laws.clear();
  auto one_formulation = [&](auto formulation_tag) {
    using Fo = std::decay_t<decltype(formulation_tag)>;
    if (on_device_for<Physics, Fo>)
      d.device_formulations.push_back(Fo::name);
    else  // left out by the physics, or the CPU reference integrator
      d.off_device.push_back(
          {Fo::name, Fo::on_device ? OffDeviceReason<Physics>::value : OffDeviceReason<Fo>::value});
    ModelDescriptor::FormulationLaws e;
    e.formulation = Fo::name;
    auto add = [&](const char* name, bool integrates) {
      if (integrates) e.friction_laws.push_back(name);
    };
    (add(Friction::name, Fo::template integrates<Friction>), ...);
    d.formulation_friction_laws.push_back(std::move(e));
  };
  (one_formulation(Formulation{}), ...);
  d.stability_friction_laws.clear();
  auto add_linearizable = [&](const char* name, bool linearizable) {
    if (linearizable) d.stability_friction_laws.push_back(name);
  };
  (add_linearizable(Friction::name, linearizable_friction<Friction>), ...);
}

// What physics Ph declares, into a model of it: support and stability sizes.
template <class Ph>
void complete(ModelDescriptor& d) {
  if constexpr (!IsConstrainedEntry<Ph>::value)
    fill_support<Ph>(d, typename Ph::FrictionLaws{}, typename Ph::Formulations{});
  if constexpr (Ph::linearizes) {
    using System = typename StabilityCombination<Ph, typename FirstOf<FrictionPoliciesOf<Ph>>::type>::System;
    d.stability_eigenvalues = StabilityOf<System>::capacity;
    d.stability_pressures = System::r < kStabilityPressures ? System::r : kStabilityPressures;
  }
}

template <class... P>
std::vector<ModelDescriptor> describe(TypeList<P...>) {
  std::vector<ModelDescriptor> all;
  auto add = [&](auto physics_tag) {
    using Ph = decltype(physics_tag);
    for (auto& d : Ph::describe()) {
      complete<Ph>(d);
      all.push_back(std::move(d));
    }
  };
  (add(P{}), ...);
  return all;
}
template <class... P>
bool complete_by_key(TypeList<P...>, ModelDescriptor& d) {
  bool found = false;
  auto one = [&](auto physics_tag) {
    using Ph = decltype(physics_tag);
    if (!found && d.physics == Ph::key) {
      found = true;
      complete<Ph>(d);
    }
  };
  (one(P{}), ...);
  return found;
}

template <class... P>
int position(TypeList<P...>, const std::string& key) {
  int position = -1, here = 0;
  auto one = [&](const char* physics_key) {
    if (position < 0 && key == physics_key) position = here;
    ++here;
  };
  (one(P::key), ...);
  return position;
}

}  // namespace catalog_detail

// Calls f(RunCombination{}) for the (physics, friction law, formulation)
// named; false if this build has no such combination. A static law's
// combination is its physics' StaticFrictionChoice: the caller writes the law
// into the instances' parameters (select_friction_law, below).
template <class F>
bool with_run_combination(F&& f, const std::string& physics, const std::string& friction,
                          const std::string& formulation) {
  return catalog_detail::run(ModelCatalog{}, f, physics, friction, formulation);
}
// Calls f(StabilityCombination{}) for the (physics, friction law) named.
template <class F>
bool with_stability_combination(F&& f, const std::string& physics, const std::string& friction) {
  return catalog_detail::stability(ModelCatalog{}, f, physics, friction);
}
// The study's friction law in every actuator's parameters (law_code, read by
// StaticFrictionChoice and DynamicFrictionChoice; a law compiled alone ignores it). Params without
// actuators (seed 003's constrained systems) have nothing to select.
template <class Params>
void select_friction_law(Params& p, const std::string& law) {
  if constexpr (catalog_detail::HasActuators<Params>::value) {
    const int code = friction_law_code_of(FrictionLawRegistry{}, law.c_str());
    if (code < 0) return;  // not a registered law: the combination lookup refuses it, naming the laws
    for (auto& a : p.actuator) a.friction.law_code = code;
  }
}

// The place of the physics named `key` in ModelCatalog (-1: none of this
// build), RunCombination::position at run time: the CUDA build compiles a
// formulation's kernels in several translation units, each taking the physics
// whose position is its own modulo their number (host/run/backends/cuda.cu).
inline int catalog_position(const std::string& key) { return catalog_detail::position(ModelCatalog{}, key); }

// Every model of every entry, in catalog order.
inline std::vector<ModelDescriptor> describe_catalog() { return catalog_detail::describe(ModelCatalog{}); }
// A model described at run time (a model file, host/registry/model_file.cpp)
// gets what its physics entry declares (friction laws, formulations, device
// support, stability sizes); false if no entry has its `physics` key.
inline bool complete_from_catalog(ModelDescriptor& d) { return catalog_detail::complete_by_key(ModelCatalog{}, d); }

// f(Entry{}) for every constrained entry (the host builds its function
// tables from them: host/constrained/points.cpp).
template <class F, class... E>
void each_constrained_entry(F&& f, TypeList<E...>) {
  auto one = [&](auto entry) {
    if constexpr (IsConstrainedEntry<decltype(entry)>::value) f(entry);
  };
  (one(E{}), ...);
}
template <class F>
void each_constrained_entry(F&& f) {
  each_constrained_entry(f, ModelCatalog{});
}

// f(System{}) for the constrained system with a per-thread capacity whose
// model is named `name` (the CUDA backend's stability kernels are built for
// each); false when none is.
template <class F, class... E>
bool with_per_thread_constrained_system(const std::string& name, F&& f, TypeList<E...>) {
  bool found = false;
  auto one = [&](auto entry) {
    using Entry = decltype(entry);
    if constexpr (constrained_per_thread<Entry>()) {
      if (!found && name == Entry::Constrained::name) {
        found = true;
        f(typename Entry::Constrained{});
      }
    }
  };
  (one(E{}), ...);
  return found;
}
template <class F>
bool with_per_thread_constrained_system(const std::string& name, F&& f) {
  return with_per_thread_constrained_system(name, f, ModelCatalog{});
}

}  // namespace hs
