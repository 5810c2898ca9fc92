// The catalog (kernels/catalog/catalog.hpp) against the models' descriptions
// (kernels/models/*_descriptor.hpp): every (model, friction law,
// formulation) a description says it supports is compiled, and what the
// description says of the kernel is true of the kernel: its output columns,
// its driving coordinate, its parameters' offsets and default instance.
#include "host/constrained/points.hpp"
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "host/registry/models.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "kernels/catalog/catalog.hpp"

using namespace hs;

TEST(Catalog, EverySupportedCombinationIsCompiledAndMatchesItsDescription) {
  ASSERT_FALSE(models().empty());
  std::set<std::string> names;
  for (const auto& m : models()) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(names.insert(m.name).second) << "model names are unique";
    EXPECT_EQ(m.defaults.size(), m.parameters.size());
    ASSERT_FALSE(m.friction_laws.empty());
    if (m.supports_command("run")) {
      ASSERT_FALSE(m.formulations.empty());
      // What the CUDA backend is built for: a subset, and the default formulation among it.
      for (const auto& f : m.device_formulations) EXPECT_TRUE(m.supports_formulation(f)) << f;
      EXPECT_TRUE(ModelDescriptor::contains(m.device_formulations, m.formulations.front()));
      // Every other formulation says why the device is not built for it.
      for (const auto& f : m.formulations)
        EXPECT_EQ(ModelDescriptor::contains(m.device_formulations, f), m.off_device_reason(f).empty()) << f;
      const long driving = m.summary_column(m.driving_coordinate);
      ASSERT_GE(driving, 0) << "driving coordinate " << m.driving_coordinate << " is not a summary column";
      for (const auto& friction : m.friction_laws)
        for (const auto& formulation : m.formulations) {
          SCOPED_TRACE(friction + " / " + formulation);
          const bool found = with_run_combination(
              [&](auto combination) {
                using Integrator = typename decltype(combination)::Integrator;
                constexpr int nq = Integrator::nq, np = Integrator::np, na = Integrator::na;
                using Input = typename Integrator::Model::Input;  // a controller adds its report and probe
                EXPECT_EQ(static_cast<long>(m.summary_columns.size()),
                          (run_columns::summary_width<nq, np, na, InputReport<Input>>()));
                EXPECT_EQ(static_cast<long>(m.trajectory_channels.size()),
                          (run_columns::sample_width<nq, np, na, InputProbe<Input>>()));
                // Summary column "q<k+1>" is coordinate k.
                EXPECT_EQ(m.summary_columns[2 + Integrator::driving_coordinate()].name, m.driving_coordinate);
                using Params = typename Integrator::Params;
                ASSERT_EQ(m.params_bytes.size(), sizeof(Params));
                for (const auto& p : m.parameters)
                  EXPECT_LE(p.offset + (p.integer ? sizeof(int) : sizeof(double)), sizeof(Params)) << p.name;
                // The default row through the table is the default instance, field by field.
                const Params base = default_params<Params>(m, friction);
                const Params unpacked = unpack_row(m.parameters, m.defaults.data(), base);
                EXPECT_EQ(pack_row(m.parameters, unpacked), m.defaults);
                EXPECT_EQ(std::memcmp(&base, &unpacked, sizeof(Params)), 0);
              },
              m.physics, friction, formulation);
          // Compiled exactly when the description says the formulation integrates the law.
          EXPECT_EQ(found, m.supports_run(friction, formulation));
        }
      // The double step integrates every law; the index-1 form only the static ones.
      EXPECT_EQ(m.friction_laws_of("double-step"), m.friction_laws);
      if (m.supports_formulation("index1-baumgarte")) {
        EXPECT_TRUE(m.supports_run("brown-mcphee", "index1-baumgarte"));
        EXPECT_FALSE(m.supports_run("lugre", "index1-baumgarte"));
        EXPECT_FALSE(m.supports_run("modified-lugre", "index1-baumgarte"));
      }
    }
    if (m.supports_command("stability") && m.constrained) {
      // Seed 003's systems of run-time size: the host path, not the compiled catalog.
      EXPECT_EQ(m.stability_methods, (std::vector<std::string>{"mcs", "rcs", "ucs"}));
      EXPECT_FALSE(with_stability_combination([](auto) {}, m.physics, m.friction_laws.front()));
    } else if (m.supports_command("stability")) {
      EXPECT_EQ(m.stability_methods, std::vector<std::string>{"reduced"});
      for (const auto& friction : m.friction_laws) {
        EXPECT_EQ(with_stability_combination([](auto) {}, m.physics, friction),
                  ModelDescriptor::contains(m.stability_friction_laws, friction))
            << friction;
      }
    }
    // Static laws are linearizable, laws with states are not (for the laws the model has).
    if (m.supports_friction("bengisu-akay")) {
      EXPECT_TRUE(ModelDescriptor::contains(m.stability_friction_laws, "bengisu-akay"));
    }
    EXPECT_FALSE(ModelDescriptor::contains(m.stability_friction_laws, "lugre"));
  }
}

// Distinct parameters sit at distinct offsets (no two names write the same field).
TEST(Catalog, ParameterTablesNameEachFieldOnce) {
  for (const auto& m : models()) {
    std::set<std::size_t> offsets;
    std::set<std::string> names;
    for (const auto& p : m.parameters) {
      EXPECT_TRUE(offsets.insert(p.offset).second) << m.name << ": " << p.name;
      EXPECT_TRUE(names.insert(p.name).second) << m.name << ": " << p.name;
      EXPECT_TRUE(p.admits(m.defaults[p.index]) || p.role == ParameterInfo::Role::input_schedule)
          << m.name << ": default of " << p.name << " out of its range " << p.range_text();
    }
  }
}

// Every column has a unit, and tracking_rms (the driving coordinate's
// deviation from the nominal run) is in the driving coordinate's unit: the
// crank angle in rad, where it was labelled "-" before (issue 39).
TEST(Catalog, EverySummaryColumnHasAUnitAndTrackingIsInTheDrivingCoordinatesUnit) {
  for (const auto& m : models()) {
    if (!m.supports_command("run")) continue;
    SCOPED_TRACE(m.name);
    for (const auto& c : m.summary_columns) EXPECT_FALSE(c.unit.empty()) << c.name;
    const int drive = m.summary_column(m.driving_coordinate);
    const int tracking = m.summary_column("tracking_rms");
    ASSERT_GE(drive, 0) << m.driving_coordinate;
    ASSERT_GE(tracking, 0);
    EXPECT_EQ(m.summary_columns[tracking].unit, m.summary_columns[drive].unit);
    EXPECT_NE(m.summary_columns[tracking].unit, "-");
  }
}

// What the CUDA backend is built for, per model: both semirecursive
// formulations, except the 3D four-bar's penalty kernel (~430 KB of stack per
// GPU thread: SpatialFourBarPhysics::OffDevice); never the index-1 reference
// integrator.
TEST(Catalog, DeviceFormulationsLeaveOutTheReferenceIntegratorAndThe3dFourBarsPenaltyKernel) {
  const std::vector<std::string> both = {"double-step", "penalty"};
  EXPECT_EQ(find_model("four-bar")->device_formulations, both);
  EXPECT_EQ(find_model("quick-return")->device_formulations, both);
  EXPECT_EQ(find_model("four-bar-3d")->device_formulations, std::vector<std::string>{"double-step"});
  EXPECT_NE(find_model("four-bar-3d")->off_device_reason("penalty").find("430 KB of stack per GPU thread"),
            std::string::npos);
  EXPECT_EQ(find_model("four-bar")->off_device_reason("index1-baumgarte"), "the CPU reference integrator");
  EXPECT_EQ(find_model("four-bar-3d")->off_device_reason("index1-baumgarte"), "the CPU reference integrator");
}

// One catalog for both families (docs/code-layout.md §2): every model of a
// constrained entry carries the host's function table (the capability the
// stages dispatch on) and offers seed 003's methods; no other model carries
// one. The tables are built from the catalog's entries, one per entry, from
// the model's own description, and describe the model they are attached to.
TEST(Catalog, ConstrainedSystemsAreCatalogEntriesWithTheirHostTableAttached) {
  long constrained_entries = 0;
  std::vector<std::string> keys;
  each_constrained_entry([&](auto entry) {
    ++constrained_entries;
    keys.push_back(decltype(entry)::key);
  });
  EXPECT_EQ(constrained_entries, 3);  // seed 003's N-loop linkage and flexible pendulum, the rigid double pendulum
  long attached = 0;
  std::vector<std::string> attached_keys;
  for (const auto& m : models()) {
    SCOPED_TRACE(m.name);
    const bool seed003_methods = m.stability_methods == std::vector<std::string>{"mcs", "rcs", "ucs"};
    EXPECT_EQ(m.constrained != nullptr, seed003_methods);
    if (!m.constrained) continue;
    ++attached;
    attached_keys.push_back(m.physics);
    EXPECT_EQ(m.constrained->name, m.name);
    EXPECT_EQ(m.constrained->key, m.physics);
    // The parameter that sets its size, or none for a system of fixed size.
    if (!m.constrained->size_key.empty()) {
      EXPECT_NE(m.find_parameter(m.constrained->size_key), nullptr) << m.constrained->size_key;
    }
    // Its size from its default row, through the table.
    long n = 0, c = 0;
    m.constrained->size(m.defaults.data(), n, c);
    EXPECT_GT(n, c);
    EXPECT_GT(c, 0);
    if (m.constrained->size_key.empty()) {
      // Fixed: no parameter moves it (every one doubled, as integers stay integers).
      std::vector<double> doubled = m.defaults;
      for (double& v : doubled) v *= 2.0;
      long n2 = 0, c2 = 0;
      m.constrained->size(doubled.data(), n2, c2);
      EXPECT_EQ(n2, n);
      EXPECT_EQ(c2, c);
    }
  }
  EXPECT_EQ(attached, constrained_entries);
  EXPECT_EQ(attached_keys, keys);  // one table per entry, in catalog order
  // The per-thread systems the CUDA stability kernels are built for: the
  // linkage (n <= 9), not the pendulum.
  EXPECT_TRUE(with_per_thread_constrained_system("nloop-linkage", [](auto) {}));
  EXPECT_FALSE(with_per_thread_constrained_system("flexible-pendulum", [](auto) {}));
  EXPECT_FALSE(with_per_thread_constrained_system("rigid-double-pendulum", [](auto) {}));
  EXPECT_FALSE(with_per_thread_constrained_system("four-bar", [](auto) {}));
  // What `hydrosweep parameters --model M` says of the sizes each backend takes.
  EXPECT_NE(model_support_text(*find_model("nloop-linkage"))
                .find("on the GPU by mcs, one point per thread, up to 9 coordinates (linkage.loops)"),
            std::string::npos);
  EXPECT_NE(model_support_text(*find_model("flexible-pendulum")).find("at any size (dense LAPACK), not on the GPU"),
            std::string::npos);
}
