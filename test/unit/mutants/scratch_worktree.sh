# SPDX-License-Identifier: Apache-2.0
# Sourced by the mutant runners here: the scratch git worktree they patch and build in, never
# the checkout they live in.
#   scratch_worktree SRC WORKTREE   creates WORKTREE at SRC's HEAD, or brings our earlier
#                                   scratch copy to that commit
#   scratch_build WORKTREE BUILD [CMAKE_ARG...]
#                                   configures BUILD once (ccache when installed)

scratch_worktree() {
  local src=$1 worktree=$2
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$src")} CCACHE_NOHASHDIR=1
  if [[ ! -d "$worktree" ]]; then
    git -C "$src" worktree add --detach "$worktree" HEAD >/dev/null
  elif [[ "$(git -C "$worktree" rev-parse HEAD)" != "$(git -C "$src" rev-parse HEAD)" ]]; then
    # Our own scratch copy only: bring it to the checkout's commit.
    git -C "$worktree" checkout --quiet --force --detach "$(git -C "$src" rev-parse HEAD)"
  fi
}

scratch_build() {
  local worktree=$1 build=$2
  shift 2
  [[ -f "$build/CMakeCache.txt" ]] && return 0
  local launcher=()  # rebuilds after each mutant are quicker with ccache
  command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$worktree" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" "${launcher[@]}" >/dev/null
}
