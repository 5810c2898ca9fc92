# `cmake --install BUILD [--prefix P]` (issue 17): the CLI, the header-only
# kernels and the host library's headers, the host library, the plot scripts
# and shipped studies the CLI runs, and a CMake package:
#   find_package(hydrosweep) -> hydrosweep::kernels (header-only physics,
#   host+device), hydrosweep::host (the batch engine: studies, designs,
#   backends, outputs).
# Layout under P: bin/hydrosweep, include/hydrosweep/{kernels,host}/...,
# lib/libhydrosweep_host.a, lib/cmake/hydrosweep/, share/hydrosweep/studies/.
# tests/install_consumer/ is a project that builds against it (ctest
# Install.ConsumerBuildsAgainstTheInstalledPackage).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HYDROSWEEP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hydrosweep)

install(DIRECTORY kernels/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hydrosweep/kernels FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY host/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hydrosweep/host FILES_MATCHING PATTERN "*.hpp")
install(TARGETS hydrosweep_kernels hydrosweep_host EXPORT hydrosweepTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hydrosweep)
if(TARGET hydrosweep)
  install(TARGETS hydrosweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# The CLI's plots (`hydrosweep plot`, the stability map) are Python scripts; an
# installed CLI finds them in share/hydrosweep/studies next to its bin/
# (host/cli/main.cpp, plot_script), with the shipped studies as examples.
install(DIRECTORY studies/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hydrosweep/studies
        FILES_MATCHING PATTERN "*.py" PATTERN "*.toml")
install(FILES cmake/hydrosweep_kokkos_fixup.cmake DESTINATION ${HYDROSWEEP_INSTALL_CMAKEDIR})

install(EXPORT hydrosweepTargets NAMESPACE hydrosweep:: DESTINATION ${HYDROSWEEP_INSTALL_CMAKEDIR})
# What this build linked, so the package finds the same dependencies.
set(HYDROSWEEP_PACKAGE_CUDA ${HYDROSWEEP_HAVE_CUDA})
set(HYDROSWEEP_PACKAGE_KOKKOS ${HYDROSWEEP_HAVE_KOKKOS})
set(HYDROSWEEP_PACKAGE_MPI ${HYDROSWEEP_HAVE_MPI})
configure_package_config_file(cmake/hydrosweepConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/hydrosweepConfig.cmake
                              INSTALL_DESTINATION ${HYDROSWEEP_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hydrosweepConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hydrosweepConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/hydrosweepConfigVersion.cmake
        DESTINATION ${HYDROSWEEP_INSTALL_CMAKEDIR})
