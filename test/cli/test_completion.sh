#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The bash completion of zkcoord, as bash calls it: COMP_WORDS and COMP_CWORD set, _zkcoord
# run, COMPREPLY inspected. Usage: test_completion.sh path/to/zkcoord.bash
set -u
source "$1" || exit 1
[[ $(complete -p zkcoord) == "complete -F _zkcoord zkcoord" ]] || {
  echo "FAIL: zkcoord has no completion function"
  exit 1
}

failures=0
# The replies to completing the last of WORD..., sorted, on one line.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _zkcoord
  ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u | paste -sd ' '
}

# expect "WANTED REPLIES" WORD...: the replies must be exactly these.
expect() {
  local wanted=$1
  shift
  local got
  got=$(complete_words "$@")
  if [[ $got == "$wanted" ]]; then
    echo "ok   [$*] -> $got"
  else
    echo "FAIL [$*] -> '$got', wanted '$wanted'"
    failures=$((failures + 1))
  fi
}

# expect_among "REPLY" WORD...: the replies must include REPLY (the shell's commands vary).
expect_among() {
  local wanted=$1
  shift
  local got
  got=$(complete_words "$@")
  if [[ " $got " == *" $wanted "* ]]; then
    echo "ok   [$*] -> $got"
  else
    echo "FAIL [$*] -> '$got', wanted '$wanted'"
    failures=$((failures + 1))
  fi
}

expect "lock locks" zkcoord lo
expect "lock locks" zkcoord --connect zk:2181 -v lo
expect "leader lock locks" zkcoord l
expect "semaphore server" zkcoord help s
expect "--help --hold" zkcoord lock /jobs/a --h
expect "--watch" zkcoord locks --w
expect "--json" zkcoord members /g --j
expect "creator-all" zkcoord lock --acl cr
expect "fenced" zkcoord try-it --html x.html --mode f
expect "--version" zkcoord --vers
expect "counter" zkcoord cou
expect "add cas get set" zkcoord counter /c/n ""
expect "cas" zkcoord counter /c/n c
expect "4 8" zkcoord counter /c/n --bytes ""
expect "--bytes" zkcoord counter /c/n get --by
expect "--depth" zkcoord watch /t --de
expect "watch" zkcoord wat
expect "--members" zkcoord barrier /b --mem
expect "--timeout" zkcoord barrier /b --members 3 --t
expect_among "bash" zkcoord barrier /b --members 3 bas
# PATH is ZooKeeper's: nothing local is offered.
expect "" zkcoord lock /jobs/
# After PATH comes COMMAND: the shell's command names.
expect_among "bash" zkcoord lock /jobs/a bas
expect_among "bash" zkcoord register /g member-1 --data x bas
# A value is not taken for the command word.
expect "lock locks" zkcoord --session-timeout 5s lo

((failures == 0)) || exit 1
echo "all completions as expected"
