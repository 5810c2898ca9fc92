# Study-file, output and CLI tests. Included from tests/CMakeLists.txt; also
# works when included from elsewhere (paths are relative to this file).
find_package(GTest REQUIRED)
include(GoogleTest)
if(NOT TARGET HDF5::HDF5)  # test_cli reads results.h5 back
  find_package(HDF5 REQUIRED COMPONENTS C)
endif()
get_filename_component(_hs_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

add_executable(test_study ${CMAKE_CURRENT_LIST_DIR}/test_study.cpp)
target_link_libraries(test_study PRIVATE hydrosweep_host hydrosweep_build_paths GTest::gtest_main)
gtest_discover_tests(test_study PROPERTIES LABELS "cpu" DISCOVERY_TIMEOUT 60)

# Runs the built `hydrosweep` executable end to end.
add_executable(test_cli ${CMAKE_CURRENT_LIST_DIR}/test_cli.cpp)
target_link_libraries(test_cli PRIVATE hydrosweep_host hydrosweep_build_paths HDF5::HDF5 GTest::gtest_main)  # hydrosweep_host: the model registry
target_include_directories(test_cli PRIVATE ${_hs_root})
add_dependencies(test_cli hydrosweep)
gtest_discover_tests(test_cli PROPERTIES LABELS "cpu" TIMEOUT 300 DISCOVERY_TIMEOUT 60)

# `hydrosweep stability` end to end, the [stability] table, the CPU dispatch.
add_executable(test_stability_cli ${CMAKE_CURRENT_LIST_DIR}/test_stability_cli.cpp)
target_link_libraries(test_stability_cli PRIVATE hydrosweep_host hydrosweep_build_paths HDF5::HDF5 GTest::gtest_main)
add_dependencies(test_stability_cli hydrosweep)
gtest_discover_tests(test_stability_cli PROPERTIES LABELS "cpu" TIMEOUT 300 DISCOVERY_TIMEOUT 60)

# End-to-end suites that run the built executable and compare with the host
# library's own functions (value checks, failure statuses, runner edges).
function(hydrosweep_cli_test name)
  add_executable(${name} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.cpp)
  target_link_libraries(${name} PRIVATE hydrosweep_host hydrosweep_build_paths HDF5::HDF5 GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${_hs_root})
    add_dependencies(${name} hydrosweep)
  gtest_discover_tests(${name} PROPERTIES LABELS "cpu" TIMEOUT 600 DISCOVERY_TIMEOUT 60)
endfunction()
hydrosweep_cli_test(test_end_to_end_values)
hydrosweep_cli_test(test_failure_status)
hydrosweep_cli_test(test_runner_edges)
hydrosweep_cli_test(test_design_rows)
hydrosweep_cli_test(test_report)
hydrosweep_cli_test(test_memory_budget)
hydrosweep_cli_test(test_regression_shipped_studies)
# MPI-sharded studies through mpirun (with MPI), or the refusal without it.
hydrosweep_cli_test(test_mpi)
if(HYDROSWEEP_HAVE_MPI AND HYDROSWEEP_MPIEXEC)
  target_compile_definitions(test_mpi PRIVATE HYDROSWEEP_TEST_MPIEXEC="${HYDROSWEEP_MPIEXEC}")
endif()

# pytest: a results file regenerates its own design and analysis from its
# metadata and outputs, with scipy/numpy only (tests/python/).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME Python.ResultsReproduce
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${_hs_root}/tests/python)
  set_tests_properties(Python.ResultsReproduce PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "HYDROSWEEP_EXE=$<TARGET_FILE:hydrosweep>")
endif()

# Seed 003's constrained systems through `hydrosweep stability` and `check`.
add_executable(test_constrained_cli ${CMAKE_CURRENT_LIST_DIR}/test_constrained_cli.cpp)
target_link_libraries(test_constrained_cli PRIVATE hydrosweep_host hydrosweep_build_paths HDF5::HDF5 GTest::gtest_main)
add_dependencies(test_constrained_cli hydrosweep)
gtest_discover_tests(test_constrained_cli PROPERTIES LABELS "cpu" TIMEOUT 300 DISCOVERY_TIMEOUT 60)
