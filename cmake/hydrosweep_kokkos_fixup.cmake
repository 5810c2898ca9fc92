# Debian 12's KokkosConfig.cmake (Trilinos 13.2) computes its prefix one level
# too high (/usr/lib/include): point Kokkos::kokkos at the real headers, or
# clear Kokkos_FOUND when they cannot be found. Used by the build
# (CMakeLists.txt) and by the installed package (hydrosweepConfig.cmake), whose
# consumers meet the same Kokkos.
get_target_property(_hs_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
if(_hs_kokkos_inc AND NOT EXISTS "${_hs_kokkos_inc}/Kokkos_Core.hpp")
  find_path(HYDROSWEEP_KOKKOS_INCLUDE Kokkos_Core.hpp PATHS /usr/include/trilinos /usr/local/include NO_DEFAULT_PATH)
  if(HYDROSWEEP_KOKKOS_INCLUDE)
    set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${HYDROSWEEP_KOKKOS_INCLUDE}")
  else()
    set(Kokkos_FOUND OFF)
  endif()
endif()
