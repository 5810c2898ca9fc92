// The double step's coordinate partition (seed 001 §2.2, docs/models/integrators.md
// §3.4): full pivoting on Φ_z and the factor-2 hysteresis (A21), written with
// compile-time indices only (the pivot's row and column found by comparing) so
// that one source serves one instance, the GPU's registers and lockstep lanes.
//
// Checked against the textbook form below (run-time indices, swaps in place:
// the implementation this one replaced), bit for bit: the determinant and the
// two coordinate lists, on random matrices and on the cases where the search
// and the elimination branch (ties, zero columns, a zero pivot that stops the
// elimination, rank 1, all zero, NaN). Then on lanes: every lane of Lanes<4>
// and Lanes<8> gets its scalar result, and so does the hysteresis decision
// (choose_partition) for every current split.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/core/lanes.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/models/quick_return_descriptor.hpp"

using namespace hs;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// The textbook form: pivot by run-time indices, rows and columns swapped in place.
template <int nc, int nq>
double reference_partition(const double (&Phi_q)[nc][nq], int (&indep)[nq - nc], int (&dep)[nc]) {
  double J[nc][nq];
  for (int r = 0; r < nc; ++r)
    for (int c = 0; c < nq; ++c) J[r][c] = Phi_q[r][c];
  int col[nq];
  for (int c = 0; c < nq; ++c) col[c] = c;
  double det = 1.0;
  for (int k = 0; k < nc; ++k) {
    int pr = k, pc = k;
    for (int r = k; r < nc; ++r)
      for (int c = k; c < nq; ++c)
        if (std::fabs(J[r][c]) > std::fabs(J[pr][pc])) { pr = r; pc = c; }
    for (int c = 0; c < nq; ++c) std::swap(J[k][c], J[pr][c]);
    for (int r = 0; r < nc; ++r) std::swap(J[r][k], J[r][pc]);
    std::swap(col[k], col[pc]);
    det *= std::fabs(J[k][k]);
    if (J[k][k] == 0.0) break;
    for (int r = k + 1; r < nc; ++r) {
      const double l = J[r][k] / J[k][k];
      for (int c = k; c < nq; ++c) J[r][c] -= l * J[k][c];
    }
  }
  bool is_dep[nq] = {};
  for (int k = 0; k < nc; ++k) is_dep[col[k]] = true;
  int a = 0, b = 0;
  for (int c = 0; c < nq; ++c) (is_dep[c] ? dep[b++] : indep[a++]) = c;
  return det;
}

// Matrices that exercise every branch of the search and the elimination.
template <int nc, int nq>
std::vector<std::vector<double>> cases(unsigned seed, int random_count) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<std::vector<double>> out;
  for (int i = 0; i < random_count; ++i) {
    std::vector<double> m(nc * nq);
    for (double& v : m) v = u(rng);
    out.push_back(m);
    for (double& v : m) v = small(rng);  // ties and zeros
    out.push_back(m);
  }
  out.push_back(std::vector<double>(nc * nq, 0.0));  // all zero: stops at the first pivot
  std::vector<double> rank1(nc * nq);
  for (int r = 0; r < nc; ++r)
    for (int c = 0; c < nq; ++c) rank1[r * nq + c] = (r + 1.0) * (c - 1.0);  // a zero second pivot
  out.push_back(rank1);
  std::vector<double> zero_col(nc * nq);
  for (int r = 0; r < nc; ++r)
    for (int c = 0; c < nq; ++c) zero_col[r * nq + c] = c == 0 ? 0.0 : u(rng);
  out.push_back(zero_col);
  std::vector<double> with_nan(nc * nq);
  for (double& v : with_nan) v = u(rng);
  with_nan[nq + 1] = std::numeric_limits<double>::quiet_NaN();
  out.push_back(with_nan);
  return out;
}

template <class Integrator>
void scalar_matches_reference(unsigned seed) {
  constexpr int nc = Integrator::nc, nq = Integrator::nq, ni = nq - nc;
  for (const auto& m : cases<nc, nq>(seed, 500)) {
    double Phi[nc][nq];
    for (int r = 0; r < nc; ++r)
      for (int c = 0; c < nq; ++c) Phi[r][c] = m[r * nq + c];
    int ref_indep[ni], ref_dep[nc], indep[ni], dep[nc];
    const double ref_det = reference_partition(Phi, ref_indep, ref_dep);
    const double det = Integrator::full_pivot_partition(Phi, indep, dep);
    EXPECT_TRUE(same_bits(det, ref_det)) << det << " vs " << ref_det;
    for (int j = 0; j < ni; ++j) EXPECT_EQ(indep[j], ref_indep[j]);
    for (int r = 0; r < nc; ++r) EXPECT_EQ(dep[r], ref_dep[r]);
  }
}

TEST(Partition, FourBarMatchesTheTextbookForm) {
  scalar_matches_reference<DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>>(11);
}
TEST(Partition, QuickReturnMatchesTheTextbookForm) {
  scalar_matches_reference<DoubleStepTrapezoidal<QuickReturnPhysics::Model<BrownMcPhee>>>(12);
}

TEST(Partition, TheFourBarsSplitIsTheDrivingCrankAwayFromItsSingularities) {
  // Φ_z of the seed 002 four-bar at its assembled configuration: the split
  // full pivoting picks there must be one whose Φ_d is regular (det > 0).
  using Integrator = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>;
  const FourBarParams P = seed002_four_bar();
  Integrator::State s;
  Integrator::Constants K;
  ASSERT_EQ(Integrator::initialize(P, IntegratorSettings{}, s, K), Status::ok);
  double Phi[Integrator::nc][Integrator::nq];
  Integrator::Mech::constraint_jacobian(Integrator::Mech::pose(P.mechanism, s.q), Phi);
  int indep[1], dep[2];
  EXPECT_GT(Integrator::full_pivot_partition(Phi, indep, dep), 0.0);
  EXPECT_EQ(indep[0], s.part.indep[0]);
}

template <int W>
void lanes_match_scalar(unsigned seed) {
  using One = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>;
  using Wide = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>, Lanes<W>>;
  constexpr int nc = One::nc, nq = One::nq, ni = nq - nc;
  const auto all = cases<nc, nq>(seed, 200);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, all.size() - 1);
  std::uniform_int_distribution<int> which(0, nq - 1);
  for (int batch = 0; batch < 300; ++batch) {
    // Each lane its own matrix and its own current split.
    Lanes<W> Phi[nc][nq];
    typename Wide::Partition current;
    std::vector<int> lane_case(W), lane_indep(W);
    for (int lane = 0; lane < W; ++lane) {
      lane_case[lane] = static_cast<int>(pick(rng));
      for (int r = 0; r < nc; ++r)
        for (int c = 0; c < nq; ++c) Phi[r][c].set(lane, all[lane_case[lane]][r * nq + c]);
      lane_indep[lane] = which(rng);
      int b = 0;
      current.indep[0].set(lane, lane_indep[lane]);
      for (int c = 0; c < nq; ++c)
        if (c != lane_indep[lane]) current.dep[b++].set(lane, c);
    }
    typename Wide::Partition best;
    const Lanes<W> det = Wide::full_pivot_partition(Phi, best.indep, best.dep);
    typename Wide::Partition chosen = current;
    Wide::choose_partition(Phi, chosen);
    for (int lane = 0; lane < W; ++lane) {
      double one_phi[nc][nq];
      for (int r = 0; r < nc; ++r)
        for (int c = 0; c < nq; ++c) one_phi[r][c] = Phi[r][c][lane];
      typename One::Partition one_best, one_chosen;
      const double one_det = One::full_pivot_partition(one_phi, one_best.indep, one_best.dep);
      EXPECT_TRUE(same_bits(det[lane], one_det)) << "lane " << lane << ": " << det[lane] << " vs " << one_det;
      for (int j = 0; j < ni; ++j) EXPECT_EQ(static_cast<int>(best.indep[j][lane]), one_best.indep[j]);
      for (int r = 0; r < nc; ++r) EXPECT_EQ(static_cast<int>(best.dep[r][lane]), one_best.dep[r]);
      one_chosen.indep[0] = lane_indep[lane];
      for (int r = 0; r < nc; ++r) one_chosen.dep[r] = static_cast<int>(current.dep[r][lane]);
      One::choose_partition(one_phi, one_chosen);
      for (int j = 0; j < ni; ++j) EXPECT_EQ(static_cast<int>(chosen.indep[j][lane]), one_chosen.indep[j]);
      for (int r = 0; r < nc; ++r) EXPECT_EQ(static_cast<int>(chosen.dep[r][lane]), one_chosen.dep[r]);
    }
  }
}

TEST(Partition, LanesW4GiveTheScalarSplit) { lanes_match_scalar<4>(21); }
TEST(Partition, LanesW8GiveTheScalarSplit) { lanes_match_scalar<8>(22); }

TEST(Partition, HysteresisKeepsAWellConditionedSplitAndLeavesAPoorOne) {
  // Φ_z = [[1, 0, a], [0, 1, 0]] (coordinates 0, 1, 2), a > 1: full pivoting
  // makes 1 and 2 dependent, |det Φ_d| = a. The split with 0 and 1 dependent
  // has |det Φ_d| = 1: kept while 1 is not below ½·a (a = 2, the boundary),
  // left for full pivoting's at a = 2.5 (ratio 0.4). The split with 0 and 2
  // dependent is singular: always left.
  using One = DoubleStepTrapezoidal<HydraulicFourBar<BrownMcPhee>>;
  for (double a : {2.0, 2.5}) {
    const double Phi[2][3] = {{1.0, 0.0, a}, {0.0, 1.0, 0.0}};
    One::Partition best;
    EXPECT_EQ(One::full_pivot_partition(Phi, best.indep, best.dep), a);
    EXPECT_EQ(best.indep[0], 0);
    EXPECT_EQ(best.dep[0], 1);
    EXPECT_EQ(best.dep[1], 2);
    One::Partition fair{{2}, {0, 1}};
    One::choose_partition(Phi, fair);
    EXPECT_EQ(fair.indep[0], a == 2.0 ? 2 : 0) << "a = " << a;
    One::Partition singular{{1}, {0, 2}};
    One::choose_partition(Phi, singular);
    EXPECT_EQ(singular.indep[0], 0);
    EXPECT_EQ(singular.dep[0], 1);
    EXPECT_EQ(singular.dep[1], 2);
  }
}

}  // namespace
