#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mutation check of the tree cache's engine (lib/cache/tree_cache_fsm.*): applies each
# test/unit/mutants/cache/*.patch in a scratch git worktree (never in the checkout this script
# lives in), builds unit_tree_cache_fsm and unit_tree_cache_fsm_property only, runs both and
# reports, per mutant, whether it was killed and by which test (the scripted cases name the
# Curator bug, the property test the invariant). A mutant survives if both tests pass.
#
# Usage: test/unit/mutants/run-cache-mutants.sh [--worktree DIR] [PATCH...]
#   --worktree DIR   scratch worktree (default: <checkout>/../wt-cache-mutants); created at
#                    HEAD if missing; its build dir is DIR/build-mutants (ccache if installed)
#   PATCH...         mutants to run (default: every *.patch in test/unit/mutants/cache/)
# The engine, its public header and both tests are copied from the checkout's working copy.
# Exit status: 0 if every mutant was killed, 1 if any survived or failed to build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(git -C "$here" rev-parse --show-toplevel)
# shellcheck source=scratch_worktree.sh
source "$here/scratch_worktree.sh"
worktree="$(dirname "$src")/wt-cache-mutants"
patches=()
while (($#)); do
  case "$1" in
    --worktree) worktree=$2; shift 2 ;;
    -h|--help) sed -n '3,15p' "$0"; exit 0 ;;
    *) patches+=("$(realpath "$1")"); shift ;;
  esac
done
((${#patches[@]})) || patches=("$here"/cache/*.patch)

files=(lib/cache/tree_cache_fsm.cpp lib/cache/tree_cache_fsm.hpp include/zkcoord/cache.hpp
       lib/CMakeLists.txt test/unit/CMakeLists.txt
       test/unit/test_tree_cache_fsm.cpp test/unit/test_tree_cache_fsm_property.cpp)
targets=(unit_tree_cache_fsm unit_tree_cache_fsm_property)
build="$worktree/build-mutants"
scratch_worktree "$src" "$worktree"

restore_sources() {
  for f in "${files[@]}"; do
    mkdir -p "$(dirname "$worktree/$f")"
    cp "$src/$f" "$worktree/$f"
  done
}
trap restore_sources EXIT
restore_sources

scratch_build "$worktree" "$build" -DZKCOORD_WERROR=ON

run_tests() {  # prints "passed", "build-error" or the first failure and the test that saw it
  if ! cmake --build "$build" -j2 --target "${targets[@]}" >"$build/mutant-build.log" 2>&1; then
    echo "build-error"
    return
  fi
  local verdicts=() target out what
  for target in "${targets[@]}"; do
    if out=$(timeout 600 "$build/test/unit/$target" --log_level=error --color_output=no \
               --report_level=no 2>&1); then
      continue
    fi
    # Boost.Test's line: ...error: in "<case>": <what>
    what=$(grep -Eo 'error: in "[^"]*": .*' <<<"$out" | head -1 |
             sed -e 's/^error: in "\([^"]*\)": /\1: /' -e 's/invariant broken: //' | cut -c1-110)
    verdicts+=("${target#unit_}: ${what:-failed without a message (crash or timeout?)}")
  done
  if ((${#verdicts[@]} == 0)); then
    echo "passed"
  else
    printf '%s; ' "${verdicts[@]}"
    echo
  fi
}

baseline=$(run_tests)
if [[ "$baseline" != passed ]]; then
  echo "the unmutated engine does not pass: $baseline" >&2
  exit 1
fi

survivors=0
printf '%-40s %-8s %s\n' "mutant" "result" "killed by"
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  restore_sources
  git -C "$worktree" apply "$patch"
  result=$(run_tests)
  case "$result" in
    passed) printf '%-40s %-8s %s\n' "$name" SURVIVED "-"; survivors=$((survivors + 1)) ;;
    build-error) printf '%-40s %-8s %s\n' "$name" BROKEN "does not build"; survivors=$((survivors + 1)) ;;
    *) printf '%-40s %-8s %s\n' "$name" killed "$result" ;;
  esac
done
restore_sources
# Leave the scratch build matching the unmutated engine.
cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null 2>&1 || true
echo "$((${#patches[@]} - survivors)) of ${#patches[@]} mutants killed"
((survivors == 0))
