// Embeds the physics alone (hydrosweep::kernels): the seed 002 work cycle of
// the default four-bar (docs/models/integrators.md), integrated by the
// double-step trapezoidal rule, one instance, no host library. Prints the
// final crank angle in shortest round-trip form, for comparison with the
// engine's summary.csv (tests/install_consumer_test.sh).
#include <charconv>
#include <cstdio>

#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/integrators/run.hpp"
#include "kernels/models/four_bar.hpp"

int main() {
  using Integrator = hs::DoubleStepTrapezoidal<hs::HydraulicFourBar<hs::BrownMcPhee>>;
  const hs::FourBarParams P = hs::seed002_four_bar();
  const hs::IntegratorSettings S;  // dt = 1 ms, 10 s: the study's [integrator]
  const auto r = hs::run_instance<Integrator>(P, S, 0, [](long, const auto&) {});
  if (r.status != hs::Status::ok) {
    std::fprintf(stderr, "embed_kernels: the work cycle failed (status %d at t = %g s)\n", static_cast<int>(r.status), r.t_end);
    return 1;
  }
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, r.q[0]).ptr;
  std::printf("q1 %.*s steps %ld\n", static_cast<int>(end - text), text, r.steps);
  return 0;
}
