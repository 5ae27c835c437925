#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mutation check of the contender state machine's property test (unit_contender_fsm_property):
# applies each *.patch here (to the machine, the policies, the deletion log or handoff_count) in a
# scratch git worktree (never in the checkout this script lives in), builds
# unit_contender_fsm_property only, runs it and reports whether the mutant was killed and by
# which invariant (and in which policy mix). The scripted tests (unit_contender_fsm) are not run:
# the point is what the property test catches on its own. For a mutant of grant_policy.cpp, the
# table-driven unit_grant_policy is run too and its verdict shown (the property test alone
# decides killed or survived).
#
# Usage: test/unit/mutants/run-mutants.sh [--worktree DIR] [--test-from REV] [PATCH...]
#   --worktree DIR   scratch worktree (default: <checkout>/../wt-property); created at HEAD
#                    if missing; its build dir is DIR/build-property (ccache if installed)
#   --test-from REV  run the property test as it was at git revision REV (e.g. to measure
#                    the test before a change); default: the checkout's working copy
#   PATCH...         mutants to run (default: every *.patch in this directory)
# Exit status: 0 if every mutant was killed, 1 if any survived or failed to build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(git -C "$here" rev-parse --show-toplevel)
# shellcheck source=scratch_worktree.sh
source "$here/scratch_worktree.sh"
worktree="$(dirname "$src")/wt-property"
test_from=""
patches=()
while (($#)); do
  case "$1" in
    --worktree) worktree=$2; shift 2 ;;
    --test-from) test_from=$2; shift 2 ;;
    -h|--help) sed -n '3,18p' "$0"; exit 0 ;;
    *) patches+=("$(realpath "$1")"); shift ;;
  esac
done
((${#patches[@]})) || patches=("$here"/*.patch)

# The code mutants may patch; the tests that judge them.
mutated=(lib/recipe/contender_fsm.cpp lib/recipe/contender_fsm.hpp lib/recipe/contender_fsm_io.hpp
         lib/recipe/grant_policy.cpp lib/recipe/grant_policy.hpp
         lib/recipe/deletion_log.cpp lib/recipe/deletion_log.hpp
         lib/recipe/handoff_count.cpp lib/recipe/handoff_count.hpp)
test_files=(test/unit/test_contender_fsm_property.cpp test/unit/contender_fsm_test_support.hpp
            test/unit/test_grant_policy.cpp test/unit/CMakeLists.txt)
build="$worktree/build-property"
scratch_worktree "$src" "$worktree"

# The code under test is the checkout's working copy of the machine and the policies; the tests
# are the working copy too, unless --test-from names a revision (a file it lacks is removed).
restore_sources() {
  for f in "${mutated[@]}"; do cp "$src/$f" "$worktree/$f"; done
  for f in "${test_files[@]}"; do
    if [[ -z "$test_from" ]]; then
      cp "$src/$f" "$worktree/$f"
    elif ! git -C "$src" show "$test_from:$f" >"$worktree/$f" 2>/dev/null; then
      rm -f "$worktree/$f"
    fi
  done
}
trap restore_sources EXIT
restore_sources

scratch_build "$worktree" "$build"

run_test() {  # target: prints "passed", "build-error" or the first failure
  local target=$1
  if ! cmake --build "$build" -j2 --target "$target" >"$build/mutant-build.log" 2>&1; then
    echo "build-error"
    return
  fi
  local out
  if out=$(timeout 600 "$build/test/unit/$target" --log_level=error --color_output=no \
             --report_level=no 2>&1); then
    echo "passed"
  else
    local what where
    # Boost.Test's line: ...error: in "<case>": [invariant broken: ]<what>
    what=$(sed -n 's/.*error: in "[^"]*": //p' <<<"$out" | head -1 |
             sed -e 's/^invariant broken: //' -e 's/^client [0-9]*: //')
    # The property test names the mix and seed; the unit test its case.
    where=$(grep -Eo 'policy mix [a-z_]+, seed [0-9]+' <<<"$out" | head -1)
    [[ -n "$where" ]] || where=$(grep -Eo 'error: in "[^"]*"' <<<"$out" | head -1 | sed 's/error: in //')
    echo "${what:-failed without an invariant message (crash or timeout?)} (${where:-?})"
  fi
}

build_and_run() {  # the property test's verdict
  run_test unit_contender_fsm_property
}

baseline=$(build_and_run)
if [[ "$baseline" != passed ]]; then
  echo "the unmutated machine does not pass: $baseline" >&2
  exit 1
fi

survivors=0
printf '%-36s %-8s %s\n' "mutant" "result" "killed by"
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  restore_sources
  git -C "$worktree" apply "$patch"
  result=$(build_and_run)
  case "$result" in
    passed) printf '%-36s %-8s %s\n' "$name" SURVIVED "-"; survivors=$((survivors + 1)) ;;
    build-error) printf '%-36s %-8s %s\n' "$name" BROKEN "does not build"; survivors=$((survivors + 1)) ;;
    *) printf '%-36s %-8s %s\n' "$name" killed "$result" ;;
  esac
  if grep -q '^+++ b/lib/recipe/grant_policy' "$patch" && [[ -f "$worktree/test/unit/test_grant_policy.cpp" ]]; then
    unit=$(run_test unit_grant_policy)
    printf '%-36s %-8s %s\n' "" "" "unit_grant_policy: ${unit/#passed/passed (not killed)}"
  fi
done
restore_sources
# Leave the worktree's build matching the unmutated machine.
cmake --build "$build" -j2 --target unit_contender_fsm_property >/dev/null 2>&1 || true
echo "$survivors of ${#patches[@]} mutants survived"
((survivors == 0))
