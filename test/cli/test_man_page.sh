#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The zkcoord(1) page that help2man generated from `zkcoord --help`: the sections a manual page
# has (NAME with its one-line description, SYNOPSIS, DESCRIPTION), every command, and man(1)
# renders it without a warning. Usage: test_man_page.sh path/to/zkcoord.1
set -u
page=$1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

[[ -s $page ]] || {
  echo "FAIL: no page at $page"
  exit 1
}
for section in NAME SYNOPSIS DESCRIPTION; do
  grep -q "^\.SH $section" "$page" || fail "no $section section"
done
# The NAME line as lexgrog (mandb, apropos, lintian) reads it: "zkcoord - what it is".
if command -v lexgrog >/dev/null; then
  name_line=$(lexgrog "$page" 2>&1)
  [[ $name_line == *"zkcoord - coordinate shell jobs through ZooKeeper"* ]] ||
    fail "lexgrog reads no proper NAME line: $name_line"
fi
text=$(MANWIDTH=100 man -l "$page" 2>/tmp/zkcoord-man-warnings.$$)
warnings=$(cat /tmp/zkcoord-man-warnings.$$)
rm -f /tmp/zkcoord-man-warnings.$$
[[ -z $warnings ]] || fail "man -l warns: $warnings"
[[ $text == *"zkcoord [options] COMMAND [ARGS...]"* ]] || fail "the synopsis is not the usage line"
for command in lock locks elect leader semaphore register members counter watch server try-it help; do
  grep -Eq "^ +$command( |$)" <<<"$text" || fail "command $command is not listed"
done
for option in --hold --watch --connect --session-timeout --version; do
  [[ $text == *"$option"* ]] || fail "option $option is not mentioned"
done

((failures == 0)) || exit 1
echo "the manual page has its sections and every command"
