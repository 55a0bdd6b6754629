"""The Python package's call against the command line, side by side in one run.

    cargo build --release && pip install ./python
    python3 benches/python_session.py [ARCHIVE] [--runs N]

Times, alternating so that both see the same machine, best and median of N:
  1. `samecore run ARCHIVE` (the release binary, a whole process) against
     `samecore.run(ARCHIVE)` (the call inside a Python that imported the package);
  2. `samecore run ARCHIVE --clusters F.parquet` against `samecore.run(ARCHIVE).clusters`
     (both read publication dates and make every page's row).
The target: the Python call within 1.2x the command's wall time. ARCHIVE defaults
to ../shared/data/goldset-dev.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import samecore

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(REPO.parent / "shared/data/goldset-dev"))
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--bin", default=str(REPO / "target/release/samecore"))
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp()) / "clusters.parquet"

    def command(*extra: str) -> float:
        started = time.perf_counter()
        subprocess.run([args.bin, "run", args.archive, *extra], check=True, capture_output=True)
        return time.perf_counter() - started

    def python(frame: bool) -> float:
        started = time.perf_counter()
        run = samecore.run(args.archive, progress=False)
        if frame:
            run.clusters
        return time.perf_counter() - started

    cases = {
        "command: samecore run": lambda: command(),
        "python: samecore.run()": lambda: python(False),
        "command: samecore run --clusters F.parquet": lambda: command("--clusters", str(out)),
        "python: samecore.run().clusters": lambda: python(True),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for name, case in cases.items():
        case()  # warm the page cache and the code
    for _ in range(args.runs):
        for name, case in cases.items():
            times[name].append(case())
    print(f"{args.archive}, {args.runs} runs each, alternating")
    for name, ts in times.items():
        print(f"  {name:45} best {min(ts) * 1000:7.1f} ms  median {statistics.median(ts) * 1000:7.1f} ms")
    names = list(cases)
    for cmd, py in ((names[0], names[1]), (names[2], names[3])):
        ratio = statistics.median(times[py]) / statistics.median(times[cmd])
        print(f"  {py} / {cmd}: {ratio:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
