// Storage for N objects of T that the code writes whole before it reads
// them, without running T's constructor. Dual and Lanes zero their members
// when constructed (kernels/core/dual.hpp, lanes.hpp): the right default for
// a number, but a cost for the large arrays of jets a pass fills entry by
// entry — on Dual<10, Dual<1, Lanes<8>>> (1.4 KB a number) zeroing the frames
// and points of the 3D four-bar's pose took a fifth of its lanes' run
// (docs/models/lanes.md §8). T must be trivially destructible (nothing runs
// when the storage ends) and must not hold its own address or invariants:
// each element then takes its first value by assignment, as a double's does.
// Every jet and lane type qualifies: Dual's members are numbers, and Lanes<W>
// holds one std::experimental::simd of doubles, whose assignment stores its
// elements whatever the storage held before (libstdc++'s fixed-size simd is
// not std::is_trivially_copyable, hence no stronger assertion here).
#pragma once
#include <type_traits>

#include "hd.hpp"

namespace hs {

template <class T, int N>
struct Uninitialized {
  static_assert(std::is_trivially_destructible<T>::value, "storage left unconstructed holds trivially destructible objects");
  union {
    T item[N];
  };
  HS_HD Uninitialized() {}
  HS_HD T& operator[](int i) { return item[i]; }
  HS_HD const T& operator[](int i) const { return item[i]; }
};

}  // namespace hs
