"""MinHash signatures + LSH + verification: samecore against rensa, on identical shingles.

    pip install rensa
    python3 benches/rensa_compare.py [--threshold 0.4] [--perm 128] [--bands 32] [--repeat 5]

Both start from the same pages' text terms (goldset-dev's, written by
`cargo bench --bench minhash_lsh -- --tokens-out`), cut into the same word 4-shingles:
  - rensa 0.5 (pip), called as its README shows: one `RMinHash` a page, `update` with the
    page's shingles (UTF-8 bytes made before the timer, as `datasketch_compare.py` makes them),
    `RMinHashLSH` with the same bands, a query per page, and the Jaccard estimate checked
    against the threshold; one thread.
  - samecore's bench (`cargo bench --bench minhash_lsh`), whose timed part starts from the
    term strings: term hashing, shingling, the min-values, LSH with the same bands, the
    candidates' estimates checked; run with one thread and with every core.
Each prints its best and median of `--repeat` and the pairwise P/R/F1 of the clusters its
pairs make (connected components) against goldset-dev's gold.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# The same shingles and the same pairwise scoring as the datasketch comparison beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from datasketch_compare import pairwise_prf, shingles  # noqa: E402


def samecore_bench(args: argparse.Namespace, threads: int, tokens: Path | None) -> dict:
    command = [
        "cargo", "bench", "-q", "--bench", "minhash_lsh", "--",
        "--threshold", str(args.threshold), "--perm", str(args.perm),
        "--bands", str(args.bands), "--repeat", str(args.repeat),
    ]
    if tokens is not None:
        command += ["--tokens-out", str(tokens)]
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rensa_run(docs: list[list[str]], args: argparse.Namespace) -> tuple[list[float], list[float], set]:
    """Total times, the MinHash part's times, and the pairs."""
    from rensa import RMinHash, RMinHashLSH

    times, minhash, pairs = [], [], set()
    for _ in range(args.repeat):
        started = time.perf_counter()
        hashes = []
        for s in docs:
            m = RMinHash(num_perm=args.perm, seed=0)
            m.update(s)
            hashes.append(m)
        minhash.append(time.perf_counter() - started)
        lsh = RMinHashLSH(threshold=args.threshold, num_perm=args.perm, num_bands=args.bands)
        for i, m in enumerate(hashes):
            lsh.insert(i, m)
        found = set()
        for i, m in enumerate(hashes):
            for j in lsh.query(m):
                if j > i and hashes[i].jaccard(hashes[j]) >= args.threshold:
                    found.add((i, j))
        times.append(time.perf_counter() - started)
        pairs = found
    return times, minhash, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=0.4)
    parser.add_argument("--perm", type=int, default=128)
    parser.add_argument("--bands", type=int, default=32)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    tokens = Path(tempfile.mkdtemp()) / "terms.jsonl"
    ours_all = samecore_bench(args, os.cpu_count() or 1, tokens)
    ours_one = samecore_bench(args, 1, None)
    rows = [json.loads(line) for line in tokens.open()]
    gold = [r["gold"] for r in rows]
    docs = [shingles(r["terms"], args.k) for r in rows]
    theirs, theirs_minhash, pairs = rensa_run(docs, args)
    p, r, f1 = pairwise_prf(len(gold), pairs, gold)

    print(f"goldset-dev: {len(docs)} pages, {sum(map(len, docs)):,} shingles; "
          f"{args.perm} permutations, {args.bands} bands, threshold {args.threshold}")
    print(f"{'':40} {'best':>9} {'median':>9} {'pairs':>7} {'P':>6} {'R':>6} {'F1':>6}")
    for name, o in (("samecore, 1 thread", ours_one), (f"samecore, {ours_all['threads']} threads", ours_all)):
        for start, key in (("shingles", "from_shingles_seconds_all"), ("terms", "minhash_lsh_seconds_all")):
            ts = o[key]
            label = f"{name}, from {start}"
            print(f"{label:40} {min(ts) * 1000:7.1f}ms {statistics.median(ts) * 1000:7.1f}ms "
                  f"{o['pairs']:7} {o['pair_p']:6.3f} {o['pair_r']:6.3f} {o['pair_f1']:6.3f}")
    print(f"{'rensa, 1 thread, from shingles':40} "
          f"{min(theirs) * 1000:7.1f}ms {statistics.median(theirs) * 1000:7.1f}ms "
          f"{len(pairs):7} {p:6.3f} {r:6.3f} {f1:6.3f}")
    stages = ours_one["from_shingles_stage_medians"]
    ours_minhash = stages["minhash"]
    print(f"medians, one thread: samecore's min-values {ours_minhash * 1000:.1f}ms, LSH + verification "
          f"{(stages['lsh_candidates'] + stages['verification']) * 1000:.1f}ms; rensa's RMinHash "
          f"{statistics.median(theirs_minhash) * 1000:.1f}ms, LSH + verification "
          f"{(statistics.median(theirs) - statistics.median(theirs_minhash)) * 1000:.1f}ms")
    for start, key in (("shingles", "from_shingles_seconds_all"), ("terms", "minhash_lsh_seconds_all")):
        ratio = statistics.median(ours_one[key]) / statistics.median(theirs)
        print(f"samecore from {start} / rensa, one thread each, medians: {ratio:.2f}x")


if __name__ == "__main__":
    main()
