#!/usr/bin/env bash
# Compiler launcher: ccache on the compiler's real path (CMakeLists.txt sets it;
# docs/build.md §2). ccache hashes the compiler's name, and CMake calls the one
# GCC `c++` in one project and `g++` in another (the Python package's build,
# whose C compiler comes from Python's configuration): resolved, both are the
# same file and share the cache.
#   ccache_compiler.sh BASEDIR CCACHE COMPILER ARGS...
# BASEDIR: the checkout (CCACHE_BASEDIR: paths inside it hashed relative to
# the build folder, so a clone in another folder hits).
export CCACHE_BASEDIR="$1" CCACHE_NOHASHDIR=1
ccache=$2
compiler=$(readlink -f "$3" 2>/dev/null) || compiler=$3
shift 3
exec "$ccache" "$compiler" "$@"
