# Sourced by the test stages that build the tree once more in a directory of
# their own (sanitize.sh, tsan.sh).
#
# raw_unity_build BUILD_DIR
# Makes BUILD_DIR (already configured) a unity build: CMake compiles each
# target's sources in groups of 16 files, one translation unit per group.
# Most of the time a file of Raw takes to compile goes to parsing the headers
# it includes (the standard library, Abseil, gRPC, GoogleTest), so a group
# parses them once instead of sixteen times. The price is that a change to
# one file recompiles its group, which suits these stages (run whole, cached
# by ccache) but not the libraries of the main build, which a developer edits
# (there only the test programs are unity builds: tests/CMakeLists.txt).
# Sources of one target
# must therefore not define two file-local names alike; generated protobuf
# code, which does, is left out (proto/CMakeLists.txt).
raw_unity_build() {
  local build="$1"
  if ! grep -qxF "CMAKE_UNITY_BUILD:BOOL=ON" "$build/CMakeCache.txt" ||
    ! grep -qxF "CMAKE_UNITY_BUILD_BATCH_SIZE:STRING=16" "$build/CMakeCache.txt"; then
    cmake "$build" -DCMAKE_UNITY_BUILD:BOOL=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE:STRING=16 >/dev/null
  fi
}
