#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs a separate project (consumer/) against zkcoord, one way per call:
#   run.sh find_package     BUILD_DIR SOURCE_DIR   install BUILD_DIR into a temp prefix, find_package
#   run.sh pkg-config       BUILD_DIR SOURCE_DIR   the same prefix, compiled with g++ and pkg-config
#   run.sh add_subdirectory BUILD_DIR SOURCE_DIR   configure only: zkcoord as a sub-project
#   run.sh FetchContent     BUILD_DIR SOURCE_DIR [build]   a git clone of SOURCE_DIR's HEAD:
#                                                  configured; with "build" also built and run
# Each prints "consumer ok" from the consumer program (configured only: after CMake's checks).
set -euo pipefail
how=$1 build_dir=$2 source_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $how in
  find_package)
    cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
    cmake -S "$here/consumer" -B "$work/build" -DZKCOORD_HOW=find_package \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
    cmake --build "$work/build" -j2 >/dev/null
    "$work/build/consumer"
    ;;
  pkg-config)
    cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
    libdir=$(find "$work/prefix" -name zkcoord.pc -printf '%h\n' | head -n1)
    export PKG_CONFIG_PATH=$libdir
    # shellcheck disable=SC2046  # pkg-config prints several words on purpose
    g++ -std=c++20 -o "$work/consumer" "$here/consumer/main.cpp" \
      $(pkg-config --cflags --libs zkcoord-testing zkcoord)
    "$work/consumer"
    ;;
  add_subdirectory)
    cmake -S "$here/consumer" -B "$work/build" -DZKCOORD_HOW=add_subdirectory \
      -DZKCOORD_SOURCE_DIR="$source_dir" | grep "zkcoord found by add_subdirectory"
    echo "consumer ok (configured)"
    ;;
  FetchContent)
    git -C "$source_dir" rev-parse --verify HEAD >/dev/null
    # A clone with the work tree's uncommitted changes left out: what a user fetches.
    cmake -S "$here/consumer" -B "$work/build" -DZKCOORD_HOW=FetchContent \
      -DZKCOORD_GIT_REPOSITORY="$source_dir" -DZKCOORD_GIT_TAG="$(git -C "$source_dir" rev-parse HEAD)" \
      -DCMAKE_BUILD_TYPE=Release | grep "zkcoord found by FetchContent"
    if [ "${4:-}" = build ]; then
      cmake --build "$work/build" --target consumer -j2 >/dev/null
      "$work/build/consumer"
    else
      echo "consumer ok (fetched and configured)"
    fi
    ;;
  *) echo "usage: run.sh find_package|pkg-config|add_subdirectory|FetchContent BUILD_DIR SOURCE_DIR [build]" >&2; exit 2 ;;
esac
