#!/usr/bin/env python3
"""The feature x profile table of docs/portability.md, from `gpgpu info --features` runs.

Runs `gpgpu [--limits P] info --features` once without a profile and once per device-limit
profile, on whatever device the environment selects (Mesa llvmpipe by default), and prints a
Markdown table: one row per feature, one column per profile, each cell "works" (a right
answer, checked against the host, with how it ran), "refused" with the reason, or "WRONG". The raw output of every run goes to OUT_DIR.

    python3 scripts/portability-table.py build/rel/tools/gpgpu OUT_DIR > table.md
"""
import re
import subprocess
import sys
from pathlib import Path

FEATURE_LINE = re.compile(r"^  (\S.*?)\s{2,}(works|refused|WRONG)\s+(.*)$")


def profiles(gpgpu: str) -> list[str]:
    header = subprocess.run([gpgpu, "info", "--profiles"], capture_output=True, text=True,
                            check=True).stdout.splitlines()[0]
    return header.split()[1:]


def features(gpgpu: str, profile: str | None, out_dir: Path) -> dict[str, tuple[str, str]]:
    args = [gpgpu] + (["--limits", profile] if profile else []) + ["info", "--features"]
    run = subprocess.run(args, capture_output=True, text=True)
    (out_dir / f"features-{profile or 'none'}.txt").write_text(
        "$ " + " ".join(args) + "\n" + run.stdout + run.stderr)
    found = {}
    in_table = False
    for line in run.stdout.splitlines():
        if line.startswith("features"):
            in_table = True
            continue
        m = FEATURE_LINE.match(line) if in_table else None
        if m:
            found[m.group(1)] = (m.group(2), m.group(3).strip())
    if not found:
        sys.exit(f"{' '.join(args)}: no feature lines (exit {run.returncode}): {run.stderr[-400:]}")
    return found


def cell(verdict: str, how: str) -> str:
    how = how.replace("|", "\\|")
    return f"**{verdict}**: {how}" if how else f"**{verdict}**"


def main() -> None:
    gpgpu, out_dir = sys.argv[1], Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    columns = [None] + profiles(gpgpu)
    results = {p: features(gpgpu, p, out_dir) for p in columns}
    names = list(results[None])
    print("| feature | " + " | ".join(p or "none (llvmpipe's own limits)" for p in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name in names:
        cells = []
        for p in columns:
            verdict, how = results[p].get(name, ("-", ""))
            cells.append(cell(verdict, how))
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
