#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every command shown in a shell block of README.md and docs/*.md must be real.

  check_commands.py --build BUILD_DIR --binary NAME=PATH ...

For each command line of a ```sh / ```bash / ```console / ```shell block (and the option lists in
the comment lines under it):
- scripts/X (or another path in the tree): the script exists and is executable;
- a built program (NAME as the docs write it, e.g. build/examples/zkcoord_seat_booking or
  zkcoord): `PATH --help` (`zkcoord COMMAND --help` for the tool) exits 0 and names every --option
  and the first word (the mode) the docs give it;
- ctest / scripts/test -L LABEL (also in inline `code`): LABEL is a label of this build's tests;
- $PWD/FILE: FILE exists;
- a Debian system tool (apt-get, pkg-config, g++), also after sudo: it is installed here, and
  `apt-get install` is given local package files (./[DIR/]NAME*.deb) whose NAME is a package of
  the release (PACKAGES);
- any other program: an error, so a new kind of command gets a check here.
"""
import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = {"sh", "bash", "console", "shell"}
CLI_NAMES = {"zkcoord", "build/cli/zkcoord"}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
INLINE_LABEL = re.compile(r"`(?:scripts/test|ctest)\b[^`]*?-L (\w+)[^`]*`")
# The Debian packages of a release, as `scripts/package` builds them.
PACKAGES = {"zkcoord", "libzkcoord0", "libzkcoord-dev", "libzkcoord-testing-dev"}
SYSTEM_TOOLS = {"apt-get", "pkg-config", "g++"}
# Shell words that are not part of the command to check.
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def shell_blocks(path):
    """(line number, [logical lines]) of each shell block: continuations joined."""
    blocks, body, start, language = [], None, 0, ""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            if body is None:
                body, start, language = [], number, line[3:].strip().split(" ")[0].lower()
            else:
                if language in SHELL_LANGUAGES:
                    blocks.append((start, "\n".join(body).replace("\\\n", " ").splitlines()))
                body = None
        elif body is not None:
            body.append(line)
    return blocks


def split_commands(lines):
    """[(command text, [comment texts under it])] of a block's logical lines."""
    commands = []
    for line in lines:
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            if commands:
                commands[-1][1].append(text)
            continue
        commands.append((re.split(r"\s#\s", text, maxsplit=1)[0].strip(), []))
    return commands


class Checker:
    def __init__(self, build, binaries):
        self.build, self.binaries, self.problems, self.checked = build, binaries, [], 0
        self.log = []
        self.help_texts = {}
        listing = subprocess.run(["ctest", "--print-labels"], cwd=build, capture_output=True,
                                 text=True, check=True).stdout
        # "Test project DIR", "All Labels:", then one label a line.
        after = listing.split("All Labels:", 1)[-1] if "All Labels:" in listing else ""
        self.labels = {line.strip() for line in after.splitlines() if line.strip()}
        if not self.labels:
            raise SystemExit(f"no test labels in {build}: wrong --build?")

    def problem(self, where, text):
        self.problems.append(f"{where}: {text}")

    def passed(self, where, what):
        self.checked += 1
        self.log.append(f"{where}: {what}")

    def check_label(self, where, label):
        self.passed(where, f"label {label}")
        if label not in self.labels:
            self.problem(where, f"-L {label}: no test has the label '{label}' "
                                f"(labels: {', '.join(sorted(self.labels))})")

    def help_of(self, argv):
        key = tuple(argv)
        if key not in self.help_texts and not os.access(argv[0], os.X_OK):
            self.help_texts[key] = (-1, f"{argv[0]} is not built")
        if key not in self.help_texts:
            run = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=30,
                                 stdin=subprocess.DEVNULL)
            self.help_texts[key] = (run.returncode, run.stdout + run.stderr)
        return self.help_texts[key]

    def check_program(self, where, program, words, options):
        argv = [self.binaries[program]]
        positional = [w for w in words if not w.startswith(("-", "["))]
        if program in CLI_NAMES and positional:
            argv.append(positional.pop(0))  # the tool's command: its own --help
        status, text = self.help_of(argv)
        shown = " ".join([program] + argv[1:])
        mode = positional[0] if positional and program not in CLI_NAMES else None
        self.passed(where, f"`{shown} --help` names {' '.join(options + [mode] * bool(mode))}")
        if status != 0:
            self.problem(where, f"`{shown} --help` exits {status}:\n{text}")
            return
        for option in options:
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text):
                self.problem(where, f"{option}: `{shown} --help` does not know it:\n{text}")
        if mode and re.fullmatch(r"[a-z]+", mode) and not re.search(rf"\b{mode}\b", text):
            self.problem(where, f"'{mode}': `{shown} --help` does not name it:\n{text}")

    def check_system_tool(self, where, program, arguments):
        self.passed(where, f"system tool {program}")
        if not shutil.which(program):
            self.problem(where, f"`{program}` is not installed (scripts/install-deps?)")
        if program != "apt-get" or arguments[:1] != ["install"]:
            return
        for file in arguments[1:]:
            # ./NAME_VERSION_ARCH.deb names one package; ./PREFIX*.deb every package it begins.
            name = re.fullmatch(r"\./(?:[\w.-]+/)*([a-z0-9.+-]+?)([*_])[^/]*\.deb", file)
            self.passed(where, f"package file {file}")
            matched = name and [package for package in PACKAGES if package == name[1] or
                                (name[2] == "*" and package.startswith(name[1]))]
            if not matched:
                self.problem(where, f"{file}: names none of the packages {sorted(PACKAGES)}")

    def check_command(self, where, command, comments):
        words = shlex.split(command)
        for word in words:
            for file in re.findall(r"\$PWD/([\w./-]+)", word):
                self.passed(where, f"file {file}")
                if not (ROOT / file).exists():
                    self.problem(where, f"$PWD/{file}: no such file in the repository")
        while words and ASSIGNMENT.match(words[0]):
            words.pop(0)
        if words and words[0] == "sudo":
            words.pop(0)
        program, arguments = words[0], words[1:]
        # A script of the repository: scripts/X, or any other path in the tree (not build/).
        is_script = program.startswith("scripts/") or (
            "/" in program and not program.startswith(("build/", "/", "$")) and
            program not in self.binaries)
        if is_script:
            self.passed(where, f"script {program}")
            script = ROOT / program
            if not (script.is_file() and os.access(script, os.X_OK)):
                self.problem(where, f"{program}: no such executable script")
        if program in ("ctest", "scripts/test"):
            for flag, value in zip(arguments, arguments[1:]):
                if flag == "-L":
                    self.check_label(where, value)
        if program in self.binaries:
            options = OPTION.findall(" ".join([command] + comments))
            self.check_program(where, program, arguments, options)
        elif program in SYSTEM_TOOLS:
            self.check_system_tool(where, program, arguments)
        elif program not in ("cmake", "ctest") and not is_script:
            self.problem(where, f"`{program}`: no check knows this program "
                                "(add it to test/docs/check_commands.py)")

    def check_markdown(self, path):
        name = path.relative_to(ROOT)
        for start, lines in shell_blocks(path):
            for command, comments in split_commands(lines):
                self.check_command(f"{name}:{start} `{command}`", command, comments)
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for label in INLINE_LABEL.findall(line):
                self.check_label(f"{name}:{number}", label)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, type=pathlib.Path)
    parser.add_argument("--binary", action="append", default=[], metavar="NAME=PATH")
    args = parser.parse_args()
    binaries = dict(b.split("=", 1) for b in args.binary)
    checker = Checker(args.build, binaries)
    for path in [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md")):
        checker.check_markdown(path)
    for line in checker.log:
        print(line)
    for problem in checker.problems:
        print(problem, file=sys.stderr)
    print(f"check_commands: {checker.checked} checks, {len(checker.problems)} problem(s)")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main())
