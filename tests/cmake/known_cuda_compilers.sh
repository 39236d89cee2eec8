# Sourced, after tests/integration/checks.sh, by the CMake module's tests
# whose projects enable CUDA alone:
#   known_cuda_compilers FIRST DIR   known_compilers FIRST DIR (checks.sh), and
#                                    the ranlib CMake found for FIRST
# CMake 3.25's CMakeCUDACompiler.cmake names the archiver but not ranlib,
# which its compiler checks leave in the cache only: a CUDA-only project
# that skips them would finish each static library with an empty command
# ("" libk.a). (CMake 4's names both; a project that enables CXX gets both
# from CMakeCXXCompiler.cmake.)
known_cuda_compilers() {
  local known
  known=$(known_compilers "$1" "$2") || return
  [ -z "$known" ] || echo "$known" -DCMAKE_RANLIB="$(sed -n 's/^CMAKE_RANLIB:FILEPATH=//p' "$1/CMakeCache.txt")"
}
