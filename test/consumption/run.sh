#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the built zkcoord into a temp prefix, then configures, builds and runs a separate
# project against it with find_package(zkcoord).
set -euo pipefail
build_dir=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$source_dir/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
"$work/build/consumer"
