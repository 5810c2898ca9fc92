// The design stage (design.hpp): rows of parameters per instance, generated
// on demand from the factors, their laws and the seed.
#include "host/design/design.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>

namespace hs {

namespace {
std::string fmt(double v) { return round_trip_text(v); }
}  // namespace

const char* sample_method_name(SampleMethod m) {
  switch (m) {
    case SampleMethod::grid: return "grid";
    case SampleMethod::lhs: return "lhs";
    case SampleMethod::sobol: return "sobol";
    case SampleMethod::monte_carlo: return "monte-carlo";
    case SampleMethod::saltelli: return "saltelli";
    case SampleMethod::rows: return "rows";
  }
  return "?";
}

long Design::instance_count() const {
  switch (method) {
    case SampleMethod::grid: {
      long n = 1;
      for (const auto& a : grid) n *= static_cast<long>(a.values.size());
      return n;
    }
    case SampleMethod::saltelli: return sample_count * static_cast<long>(saltelli_block_size(grid.size(), second_order));
    default: return sample_count;
  }
}

std::vector<std::string> Design::varied_names() const {
  std::vector<std::string> names;
  for (const auto& a : grid) names.push_back(a.name);
  for (const auto& d : derived) names.push_back(d.target->name);
  return names;
}

std::vector<std::string> Design::varied_units() const {
  std::vector<std::string> units;
  for (const auto& a : grid) units.push_back(a.unit);
  for (const auto& d : derived) units.push_back(d.target->unit);
  return units;
}

void Design::unit_point(long i, double* u) const {
  const size_t d = grid.size();
  switch (method) {
    case SampleMethod::lhs: latin_hypercube->point(static_cast<size_t>(i), u); break;
    // The unscrambled sequence starts at the origin, which an unbounded law
    // maps to -inf: skip it (scrambled points are never exactly 0).
    case SampleMethod::sobol: sobol->point(static_cast<uint64_t>(i) + (scramble ? 0 : 1), u); break;
    case SampleMethod::monte_carlo: monte_carlo_unit_point(seed, static_cast<uint64_t>(i), d, u); break;
    case SampleMethod::saltelli: {
      const long block = static_cast<long>(saltelli_block_size(d, second_order));
      std::vector<double> base(2 * d);
      sobol->point(static_cast<uint64_t>(i / block) + (scramble ? 0 : 1), base.data());
      saltelli_point(base.data(), d, static_cast<size_t>(i % block), u, second_order);
      break;
    }
    case SampleMethod::grid:
    case SampleMethod::rows: break;
  }
  if (copula_cholesky.empty()) return;
  // Gaussian copula: normal scores z = Phi^-1(u), correlated as L z, back to
  // uniforms. Each factor keeps its law; the pairs get their rank correlation
  // (Spearman's rho of a normal pair is (6/pi) asin(R/2), the parser's
  // inverse). Uniforms are kept in [2^-53, 1 - 2^-53], the range of the Monte
  // Carlo streams whose quantiles the parser checked against each parameter's
  // range: a Latin hypercube's 0 (a stratum's left end) gets a finite score,
  // and a correlated score beyond ~8.3 does not round to u = 1 (an infinite
  // quantile of an unbounded law).
  const auto clamp = [](double v) { return std::min(std::max(v, 0x1p-53), 1.0 - 0x1p-53); };
  std::vector<double> z(d);
  for (size_t k = 0; k < d; ++k) z[k] = normal_quantile(clamp(u[k]));
  for (size_t k = 0; k < d; ++k) {
    double s = 0.0;
    for (size_t j = 0; j <= k; ++j) s += copula_cholesky[k * d + j] * z[j];
    u[k] = clamp(normal_cdf(s));
  }
}

namespace {
// Factor values of instance i, in factor order.
std::vector<double> factor_values(const Design& s, long i) {
  std::vector<double> v(s.grid.size());
  if (s.method == SampleMethod::grid) {
    for (size_t k = s.grid.size(); k-- > 0;) {  // last axis varies fastest
      const long n = static_cast<long>(s.grid[k].values.size());
      v[k] = s.grid[k].values[i % n];
      i /= n;
    }
    return v;
  }
  if (s.method == SampleMethod::rows) {
    for (size_t k = 0; k < s.grid.size(); ++k) v[k] = s.user_rows->values(static_cast<size_t>(i), k);
    return v;
  }
  std::vector<double> u(s.grid.size());
  s.unit_point(i, u.data());
  for (size_t k = 0; k < s.grid.size(); ++k) v[k] = s.grid[k].distribution.quantile(u[k]);
  return v;
}

// Apply factors then derived parameters (file order, so a derived parameter
// may use an earlier one). Returns the varied values in varied_names() order.
std::vector<double> apply(const Design& s, long i, double* p) {
  std::vector<double> v = factor_values(s, i);
  for (size_t k = 0; k < s.grid.size(); ++k) {
    const Factor& f = s.grid[k];
    if (f.info) p[f.info->index] = v[k];
    for (const ParameterInfo* q : f.scaled) p[q->index] = s.base[q->index] * v[k];
  }
  std::vector<double> inputs;
  for (const auto& d : s.derived) {
    inputs.resize(d.inputs.size());  // every name the expression reads, in names() order
    for (size_t k = 0; k < inputs.size(); ++k) inputs[k] = p[d.inputs[k]->index];
    const double x = d.expression->evaluate(inputs.data());
    p[d.target->index] = x;
    v.push_back(x);
  }
  return v;
}
}  // namespace

std::vector<double> Design::varied_values(long i) const {
  std::vector<double> p = base;
  return apply(*this, i, p.data());
}

std::vector<double> Design::instance(long i) const {
  std::vector<double> p = base;
  apply(*this, i, p.data());
  return p;
}

std::string Design::instance_problem(long i) const { return instance_problem(instance(i)); }

std::string Design::instance_problem(const double* p) const {
  for (const auto& d : derived) {
    const double x = p[d.target->index];
    if (!d.target->admits(x))
      return "derived." + d.target->name + " = " + fmt(x) + " is out of range " + d.target->range_text() +
             (d.target->unit == "-" ? "" : " " + d.target->unit);
  }
  for (const auto& f : grid)
    for (const ParameterInfo* q : f.scaled)
      if (!q->admits(p[q->index]))
        return f.name + " scales " + q->name + " to " + fmt(p[q->index]) + ", out of range " + q->range_text();
  for (const auto& rule : descriptor->rules) {
    const double a = p[descriptor->find_parameter(rule.a)->index], b = p[descriptor->find_parameter(rule.b)->index];
    if (!(a < b)) return rule.a + " = " + fmt(a) + " must be < " + rule.b + " = " + fmt(b) + ": " + rule.why;
  }
  if (descriptor->instance_check) {
    const auto problem = descriptor->instance_check(*descriptor, p, dt, duration);
    if (!problem.why.empty()) return problem.key + ": " + problem.why;
  }
  return "";
}

std::vector<std::string> Design::instance_problems(const double* rows, long count, int threads) const {
  std::vector<std::string> out(static_cast<size_t>(count > 0 ? count : 0));
  const long P = parameter_count();
  // No exception may leave an OpenMP region (it would terminate the program):
  // the first one is kept and thrown on the calling thread.
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (long k = 0; k < count; ++k) {
    try {
      out[static_cast<size_t>(k)] = instance_problem(rows + k * P);
    } catch (...) {
#pragma omp critical(hs_instance_problems)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

std::vector<double> Design::rows(long first, long count) const {
  const long P = parameter_count();
  std::vector<double> out(static_cast<size_t>(count * P));
  for (long i = 0; i < count; ++i) {
    std::copy(base.begin(), base.end(), out.begin() + i * P);
    apply(*this, first + i, out.data() + i * P);
  }
  return out;
}


const char* Design::sampler_description() const {
  switch (method) {
    case SampleMethod::grid:
      return "full factorial product of the factors' values, the first factor varying slowest";
    case SampleMethod::lhs:
      return "Latin hypercube: per dimension a random permutation of the n strata (stream seed/lhs_permutation/dimension), "
             "a uniform jitter inside the stratum (stream seed/lhs_jitter/row); xoshiro256** seeded by splitmix64 "
             "(host/design/sampling.hpp)";
    case SampleMethod::sobol:
      return "Sobol' sequence, Joe-Kuo direction numbers; scramble = 1: Owen's nested uniform scrambling in base 2, node "
             "bits hashed from (seed, dimension, node); scramble = 0: the unscrambled sequence from index 1 (the origin "
             "is skipped) (host/design/sampling.hpp)";
    case SampleMethod::monte_carlo:
      return "independent uniform draws, row i from stream (seed, monte_carlo, i); xoshiro256** seeded by splitmix64 "
             "(host/design/sampling.hpp)";
    case SampleMethod::saltelli:
      return "Saltelli 2010 design: base point r of a Sobol' sequence of dimension 2d (scrambled as for sobol) gives A = its "
             "first d coordinates, B = its last d, and A_B^j = A with column j from B; rows in blocks of d + 2 "
             "(A, B, A_B^0 ... A_B^(d-1)), with second_order = 1 blocks of 2d + 2 that add B_A^j = B with column j from A "
             "(Saltelli 2002), see saltelli_role";
    case SampleMethod::rows:
      return "the rows of a file (sample.file): instance i is row i, column k sets factor k's parameter; the rows are "
             "stored in /metadata/design/rows";
  }
  return "";
}

}  // namespace hs
