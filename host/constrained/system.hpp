// A constrained multibody system of run-time size n (coordinates) and m
// (constraints), assembled from the elements of a kernels/ model (the
// N-loop linkage, the flexible double pendulum): M q̈ = f(q, q̇) − Φ_qᵀλ,
// Φ(q) = 0 (seed 003 eq (1)). The elements' physics and exact local
// derivatives are kernels/ code (kernels/linearize/element_derivatives.hpp);
// this class only gathers local coordinates and scatters the K × K blocks
// into dense global matrices (n ≤ ~1000 here: dense LAPACK is the fast path
// at these sizes; docs/models/nloop-and-flexible.md §6).
#pragma once
#include "host/eigen_dense.hpp"

#include <memory>
#include <typeindex>
#include <vector>

#include "kernels/linearize/element_derivatives.hpp"

namespace hs {

class ConstrainedSystem {
 public:
  ConstrainedSystem(int n, int m) : n_(n), m_(m) {}
  int n() const { return n_; }
  int m() const { return m_; }

  // The Assembly interface of the kernels/ models' build().
  template <class E>
  void mass(const E& e, const int* idx) { block<MassBlock<E>>().add(e, idx); }
  template <class E>
  void force(const E& e, const int* idx) { block<ForceBlock<E>>().add(e, idx); }
  template <class E>
  void constraint(const E& e, const int* idx) {
    block<ConstraintBlock<E>>().add(e, idx, rows_);
    rows_ += E::R;
  }
  int rows_assembled() const { return rows_; }

  // Global quantities at q (velocities q̇ for the forces).
  Eigen::MatrixXd mass_matrix(const Eigen::VectorXd& q) const;
  void forces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& f, Eigen::MatrixXd& df_dq,
              Eigen::MatrixXd& df_dqd) const;
  void constraints(const Eigen::VectorXd& q, Eigen::VectorXd& phi, Eigen::MatrixXd& phi_q) const;
  // ∂(Φ_qᵀλ)/∂q with λ frozen (seed 003 eq (17)).
  Eigen::MatrixXd constraint_hessian(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) const;

 private:
  struct Block {
    virtual ~Block() = default;
    virtual void add_mass(const Eigen::VectorXd&, Eigen::MatrixXd&) const {}
    virtual void add_forces(const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd&, Eigen::MatrixXd&,
                            Eigen::MatrixXd&) const {}
    virtual void add_constraints(const Eigen::VectorXd&, Eigen::VectorXd&, Eigen::MatrixXd&) const {}
    virtual void add_hessian(const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::MatrixXd&) const {}
  };
  template <class E>
  struct Elements : Block {
    std::vector<E> elements;
    std::vector<int> indices;  // K per element
    void push(const E& e, const int* idx) {
      elements.push_back(e);
      indices.insert(indices.end(), idx, idx + E::K);
    }
    const int* idx(size_t k) const { return indices.data() + k * E::K; }
    void gather(const Eigen::VectorXd& x, size_t k, double* local) const {
      for (int j = 0; j < E::K; ++j) local[j] = x[idx(k)[j]];
    }
  };
  template <class E>
  struct MassBlock : Elements<E> {
    void add(const E& e, const int* idx) { this->push(e, idx); }
    void add_mass(const Eigen::VectorXd& q, Eigen::MatrixXd& M) const override {
      constexpr int K = E::K;
      for (size_t k = 0; k < this->elements.size(); ++k) {
        double ql[K], Ml[K * K];
        this->gather(q, k, ql);
        this->elements[k].mass(ql, Ml);
        const int* g = this->idx(k);
        for (int r = 0; r < K; ++r)
          for (int c = 0; c < K; ++c) M(g[r], g[c]) += Ml[r * K + c];
      }
    }
  };
  template <class E>
  struct ForceBlock : Elements<E> {
    void add(const E& e, const int* idx) { this->push(e, idx); }
    void add_forces(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& f, Eigen::MatrixXd& dq,
                    Eigen::MatrixXd& dqd) const override {
      constexpr int K = E::K;
      for (size_t k = 0; k < this->elements.size(); ++k) {
        double ql[K], qdl[K], fl[K], Jq[K * K], Jqd[K * K];
        this->gather(q, k, ql);
        this->gather(qd, k, qdl);
        force_derivatives(this->elements[k], ql, qdl, fl, Jq, Jqd);
        const int* g = this->idx(k);
        for (int r = 0; r < K; ++r) {
          f[g[r]] += fl[r];
          for (int c = 0; c < K; ++c) {
            dq(g[r], g[c]) += Jq[r * K + c];
            dqd(g[r], g[c]) += Jqd[r * K + c];
          }
        }
      }
    }
  };
  template <class E>
  struct ConstraintBlock : Elements<E> {
    std::vector<int> first_row;
    void add(const E& e, const int* idx, int row) {
      this->push(e, idx);
      first_row.push_back(row);
    }
    void add_constraints(const Eigen::VectorXd& q, Eigen::VectorXd& phi, Eigen::MatrixXd& phi_q) const override {
      constexpr int K = E::K, R = E::R;
      for (size_t k = 0; k < this->elements.size(); ++k) {
        double ql[K], pl[R], Jl[R * K];
        this->gather(q, k, ql);
        constraint_derivatives(this->elements[k], ql, pl, Jl);
        const int* g = this->idx(k);
        for (int r = 0; r < R; ++r) {
          phi[first_row[k] + r] = pl[r];
          for (int c = 0; c < K; ++c) phi_q(first_row[k] + r, g[c]) += Jl[r * K + c];
        }
      }
    }
    void add_hessian(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, Eigen::MatrixXd& H) const override {
      constexpr int K = E::K, R = E::R;
      for (size_t k = 0; k < this->elements.size(); ++k) {
        double ql[K], ll[R], Hl[K * K];
        this->gather(q, k, ql);
        for (int r = 0; r < R; ++r) ll[r] = lambda[first_row[k] + r];
        hs::constraint_hessian(this->elements[k], ql, ll, Hl);
        const int* g = this->idx(k);
        for (int r = 0; r < K; ++r)
          for (int c = 0; c < K; ++c) H(g[r], g[c]) += Hl[r * K + c];
      }
    }
  };

  template <class B>
  B& block() {
    for (auto& entry : blocks_)
      if (entry.type == std::type_index(typeid(B))) return static_cast<B&>(*entry.block);
    blocks_.push_back({std::type_index(typeid(B)), std::make_unique<B>()});
    return static_cast<B&>(*blocks_.back().block);
  }
  struct Entry {
    std::type_index type;
    std::unique_ptr<Block> block;
  };
  int n_, m_, rows_ = 0;
  std::vector<Entry> blocks_;
};

}  // namespace hs
