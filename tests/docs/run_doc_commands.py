#!/usr/bin/env python3
"""Runs every fenced `sh` block of README.md and docs/*.md as written (ctest docs_commands).

  run_doc_commands.py SOURCE_DIR BUILD_DIR WORK_DIR [SHARED_DIR] [--only FILE]

A user copies these blocks into a shell at the top of a checkout after
`bash scripts/setup.sh demo`; so does this test. Each file's blocks run in
order, in one work directory per file that looks like the checkout (its
top-level entries are links to the source tree, `build` a link to BUILD_DIR,
`../shared` a link to SHARED_DIR when given), with `bash -e -o pipefail`, a
clean PERFBOUND_PLUGIN_PATH and no perfbound on PATH. Files a block writes
stay for the file's later blocks, as they would for the user.

The info string after `sh` may carry attributes (GitHub shows only `sh`):

  ```sh exit=4            the block must exit with 4 (a documented status)
  ```sh needs=shared      skipped, with a message, when ../shared/data is absent
  ```sh no-run="why"      not run here (installs packages, needs an NPU); the
                          reason is printed, and a block without one fails
  ```sh wide="why"        its output may have lines over 100 columns (JSON a
                          machine reads); every other block's output must fit
                          100 columns, as every text view promises (issue 26)

Exits 1 naming FILE:LINE, the command and its output for a block that fails.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

TIMEOUT_S = 300
WIDTH = 100  # columns every text view fits (docs/cli.md)


def blocks_of(path):
    """(line, info attributes, text) of every ```sh block in a Markdown file."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    idx = 0
    while idx < len(lines):
        m = re.match(r"^\s*```(\S*)(.*)$", lines[idx])
        if not m:
            idx += 1
            continue
        lang, rest, start = m.group(1), m.group(2), idx
        idx += 1
        body = []
        while idx < len(lines) and not re.match(r"^\s*```\s*$", lines[idx]):
            body.append(lines[idx])
            idx += 1
        idx += 1
        if lang != "sh":
            continue
        attrs = {}
        for token in shlex.split(rest):
            key, _, value = token.partition("=")
            attrs[key] = value
        out.append((start + 1, attrs, "\n".join(body) + "\n"))
    return out


def checkout_view(src, build, work, shared):
    """A directory that looks like the checkout, with build/ and ../shared."""
    if os.path.isdir(work):
        shutil.rmtree(work)
    repo = os.path.join(work, "checkout")
    os.makedirs(repo)
    for entry in os.listdir(src):
        if entry in ("build", ".git") or entry.startswith("build-"):
            continue
        os.symlink(os.path.join(src, entry), os.path.join(repo, entry))
    os.symlink(os.path.abspath(build), os.path.join(repo, "build"))
    if shared:
        os.symlink(os.path.abspath(shared), os.path.join(work, "shared"))
    return repo


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--only")]
    only = [a.split("=", 1)[1] for a in argv[1:] if a.startswith("--only=")]
    if len(args) < 3:
        print(__doc__)
        return 2
    src, build, work = (os.path.abspath(a) for a in args[:3])
    shared = os.path.abspath(args[3]) if len(args) > 3 and args[3] else ""
    have_shared = bool(shared) and os.path.isdir(os.path.join(shared, "data"))
    files = ["README.md"] + sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md")))
    if only:
        files = [f for f in files if f in only]
    env = dict(os.environ)
    env["PERFBOUND_PLUGIN_PATH"] = ""
    env["PATH"] = ":".join(p for p in env.get("PATH", "").split(":") if not os.path.exists(os.path.join(p, "perfbound")))
    failures, ran, skipped = [], 0, []
    for rel in files:
        blocks = blocks_of(os.path.join(src, rel))
        if not blocks:
            continue
        repo = checkout_view(src, build, os.path.join(work, re.sub(r"[^A-Za-z0-9]", "_", rel)),
                             shared if have_shared else "")
        for line, attrs, text in blocks:
            where = "%s:%d" % (rel, line)
            if "no-run" in attrs:
                if not attrs["no-run"]:
                    failures.append((where, "a no-run block must say why (no-run=\"...\")", ""))
                else:
                    skipped.append("%s: not run here: %s" % (where, attrs["no-run"]))
                continue
            if attrs.get("needs") == "shared" and not have_shared:
                skipped.append("%s: SKIP: ../shared/data is absent" % where)
                continue
            expected = int(attrs.get("exit", "0"))
            try:
                proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=repo, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
                code, output = proc.returncode, proc.stdout.decode("utf-8", "replace")
            except subprocess.TimeoutExpired as e:
                code, output = "timeout after %d s" % TIMEOUT_S, (e.stdout or b"").decode("utf-8", "replace")
            ran += 1
            # Paths of this run's work directory count as the user's own
            # short ones would ("./..."): a long build path is not ours to wrap.
            measured = output.replace(os.path.realpath(repo), ".").replace(repo, ".").replace(work, "..")
            wide = [l for l in measured.split("\n") if len(l.rstrip("\r")) > WIDTH]
            if code != expected:
                failures.append((where, "exit %s, expected %d" % (code, expected), text + "--- output ---\n" + output[-4000:]))
            elif wide and "wide" not in attrs:
                failures.append((where, "%d output line(s) over %d columns (the widest %d); wrap them, or mark a block "
                                 "that prints JSON wide=\"why\"" % (len(wide), WIDTH, max(len(l) for l in wide)),
                                 text + "--- lines over %d columns ---\n" % WIDTH + "\n".join(wide[:10])))
            elif "wide" in attrs and not attrs["wide"]:
                failures.append((where, "a wide block must say why (wide=\"...\")", ""))
            else:
                print("ok   %s" % where)
    for s in skipped:
        print(s)
    for where, why, detail in failures:
        print("FAIL %s: %s\n%s" % (where, why, detail))
    print("%d block(s) ran, %d failed, %d not run" % (ran, len(failures), len(skipped)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
