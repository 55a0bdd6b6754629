#!/usr/bin/env python3
"""samecore MinHash-LSH vs datasketch MinHashLSH, side by side on the same tokens.

    python3 benches/datasketch_compare.py [ARCHIVE ...] [--gold FILE] [--threshold 0.4]
        [--k 4] [--perm 128] [--repeat 3]

Without ARCHIVE it uses ../shared/data/goldset-dev. Steps:

1. `cargo bench --bench minhash_lsh -- ARCHIVE --tokens-out T --pairs-out P` tokenizes the
   archive once (samecore's `text` tokenizer), writes the terms of every page (JSON lines) and
   times samecore's MinHash + LSH from the term strings to the verified pairs.
2. datasketch gets the same terms: per page the word k-shingles (terms joined by a space),
   `MinHash.bulk` (shared permutations), then `MinHashLSH(threshold, num_perm)` insert + query,
   and the same check as samecore (`MinHash.jaccard >= threshold`). Only this part is timed,
   like samecore's timed part; reading the JSON lines is not.
3. Both pair sets become clusters by transitive closure and are scored against the gold
   clusters (pairwise precision / recall / F1), when the archive has them.

The default threshold, 0.4, is where transitive clusters of either side score best on goldset-dev
(lower thresholds chain stories together). Prints one table; `--json` prints the numbers as
JSON. `--seeds N` repeats the comparison for N hash seeds and prints the F1 of each side (mean,
sd) and their paired difference with its standard error: one seed's F1 moves by a few
hundredths with the hash functions. Needs `pip install datasketch`.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_samecore(archives, args, tokens_out, pairs_out):
    if args.bench_bin:
        cmd = [args.bench_bin]
    else:
        cmd = ["cargo", "bench", "--quiet", "--no-default-features", "--bench", "minhash_lsh", "--"]
    cmd += archives
    if args.gold:
        cmd += ["--gold", args.gold]
    cmd += ["--threshold", str(args.threshold), "--k", str(args.k), "--perm", str(args.perm)]
    cmd += ["--repeat", str(args.repeat), "--seed", str(args.seed)]
    cmd += ["--tokens-out", tokens_out, "--pairs-out", pairs_out]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if not lines:
        sys.exit("minhash_lsh bench printed nothing (skipped?):\n" + out.stderr[-2000:])
    return json.loads(lines[-1])


def shingles(terms, k):
    if not terms:
        return []
    if len(terms) <= k:
        return [" ".join(terms).encode()]
    return [" ".join(terms[i:i + k]).encode() for i in range(len(terms) - k + 1)]


def run_datasketch(tokens_path, args):
    """datasketch's side, streaming the token file in batches so that 100k pages fit in memory:
    reading and parsing JSON is not timed; shingling, `MinHash.bulk` (which shares one set of
    permutations, datasketch's fastest way to build many MinHashes), LSH insert, query and the
    Jaccard check are."""
    from datasketch import MinHash, MinHashLSH

    timed = 0.0
    sigs = []
    batch = []

    def flush():
        nonlocal timed
        t0 = time.perf_counter()
        lists = [shingles(terms, args.k) for terms in batch]
        non_empty = [l for l in lists if l]
        built = iter(MinHash.bulk(non_empty, num_perm=args.perm, seed=args.seed)) if non_empty else iter(())
        sigs.extend(next(built) if l else None for l in lists)
        timed += time.perf_counter() - t0
        batch.clear()

    with open(tokens_path) as f:
        for line in f:
            batch.append(json.loads(line)["terms"])
            if len(batch) == 2000:
                flush()
    flush()
    t0 = time.perf_counter()
    lsh = MinHashLSH(threshold=args.threshold, num_perm=args.perm)
    for i, m in enumerate(sigs):
        if m is not None:
            lsh.insert(i, m)
    pairs = set()
    candidates = 0
    for i, m in enumerate(sigs):
        if m is None:
            continue
        for j in lsh.query(m):
            if j <= i:
                continue
            candidates += 1
            if m.jaccard(sigs[j]) >= args.threshold:
                pairs.add((i, j))
    timed += time.perf_counter() - t0
    return timed, pairs, candidates, (lsh.b, lsh.r)


def pairwise_prf(n, pairs, gold):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    clusters = {}
    for d in range(n):
        clusters.setdefault(find(d), []).append(d)
    # Counted per cluster, not enumerated: a chained cluster of thousands of pages has millions
    # of pairs.
    predicted = correct = 0
    for members in clusters.values():
        predicted += len(members) * (len(members) - 1) // 2
        labels = {}
        for d in members:
            if gold[d] is not None:
                labels[gold[d]] = labels.get(gold[d], 0) + 1
        correct += sum(c * (c - 1) // 2 for c in labels.values())
    by_gold = {}
    for d, g in enumerate(gold):
        if g is not None:
            by_gold[g] = by_gold.get(g, 0) + 1
    expected = sum(c * (c - 1) // 2 for c in by_gold.values())
    p = correct / predicted if predicted else 1.0
    r = correct / expected if expected else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def compare(archives, args):
    """One side-by-side run at `args.seed`: the result dictionary printed by `--json`."""
    with tempfile.TemporaryDirectory() as tmp:
        tokens_out = os.path.join(tmp, "tokens.jsonl")
        pairs_out = os.path.join(tmp, "pairs.tsv")
        ours = run_samecore(archives, args, tokens_out, pairs_out)
        gold = []
        with open(tokens_out) as f:
            for line in f:
                gold.append(json.loads(line)["gold"])
        our_pairs = set()
        with open(pairs_out) as f:
            for line in f:
                a, b, _ = line.split("\t")
                our_pairs.add((int(a), int(b)))
        times, ds = [], None
        for _ in range(max(1, args.repeat)):
            secs, pairs, candidates, bands = run_datasketch(tokens_out, args)
            times.append(secs)
            ds = (pairs, candidates, bands)
    ds_pairs, ds_candidates, ds_bands = ds
    n = len(gold)
    has_gold = any(g is not None for g in gold)
    our_prf = pairwise_prf(n, our_pairs, gold) if has_gold else (None,) * 3
    ds_prf = pairwise_prf(n, ds_pairs, gold) if has_gold else (None,) * 3
    ds_secs = statistics.median(times)
    our_secs = ours["minhash_lsh_seconds_median"]
    return {
        "pages": n,
        "threshold": args.threshold,
        "k": args.k,
        "perm": args.perm,
        "seed": args.seed,
        "samecore": {"seconds": our_secs, "threads": ours["threads"], "bands": [ours["bands"], ours["rows"]],
                     "candidates": ours["candidates"], "pairs": len(our_pairs),
                     "pair_p": our_prf[0], "pair_r": our_prf[1], "pair_f1": our_prf[2]},
        "datasketch": {"seconds": ds_secs, "threads": 1, "bands": list(ds_bands),
                       "candidates": ds_candidates, "pairs": len(ds_pairs),
                       "pair_p": ds_prf[0], "pair_r": ds_prf[1], "pair_f1": ds_prf[2]},
        "speedup": ds_secs / our_secs if our_secs > 0 else None,
    }


def print_table(result):
    print(f"{result['pages']} pages, threshold {result['threshold']}, word {result['k']}-shingles, "
          f"{result['perm']} permutations, seed {result['seed']}")
    print(f"{'':12}{'seconds':>10}{'threads':>8}{'b x r':>8}{'cands':>10}{'pairs':>9}{'P':>7}{'R':>7}{'F1':>7}")
    for name in ("samecore", "datasketch"):
        r = result[name]
        fmt = lambda v: f"{v:7.3f}" if v is not None else "      -"
        print(f"{name:12}{r['seconds']:10.3f}{r['threads']:8}{r['bands'][0]:>4}x{r['bands'][1]:<3}"
              f"{r['candidates']:10}{r['pairs']:9}{fmt(r['pair_p'])}{fmt(r['pair_r'])}{fmt(r['pair_f1'])}")
    print(f"samecore is {result['speedup']:.1f}x faster (wall time of MinHash + LSH + check)")


def print_summary(results):
    """Across seeds: F1 of each side (mean, sd), the paired difference (mean, standard error) and
    the speed-up. One seed's F1 moves by a few hundredths with the hash functions, so a single
    run cannot say which side is more accurate."""
    ours = [r["samecore"]["pair_f1"] for r in results]
    theirs = [r["datasketch"]["pair_f1"] for r in results]
    print(f"{len(results)} seeds, {results[0]['pages']} pages, threshold {results[0]['threshold']}")
    if None in ours or None in theirs:
        print("no gold: F1 not computed")
    else:
        diff = [a - b for a, b in zip(ours, theirs)]
        sd = lambda v: statistics.stdev(v) if len(v) > 1 else 0.0
        se = sd(diff) / len(diff) ** 0.5
        print(f"pair F1 samecore   {statistics.mean(ours):.3f} +- {sd(ours):.3f} (sd)")
        print(f"pair F1 datasketch {statistics.mean(theirs):.3f} +- {sd(theirs):.3f} (sd)")
        print(f"paired difference  {statistics.mean(diff):+.4f} +- {se:.4f} (standard error); "
              f"95% interval [{statistics.mean(diff) - 1.96 * se:+.4f}, {statistics.mean(diff) + 1.96 * se:+.4f}]")
    speedups = [r["speedup"] for r in results]
    print(f"speed-up median {statistics.median(speedups):.1f}x (min {min(speedups):.1f}x, max {max(speedups):.1f}x)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archives", nargs="*")
    ap.add_argument("--gold")
    ap.add_argument("--threshold", type=float, default=0.4)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--perm", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1, help="hash seed of both sides (datasketch's default is 1)")
    ap.add_argument("--seeds", type=int, default=1,
                    help="run seeds SEED .. SEED+N-1 and print F1 mean, sd and the paired difference")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--bench-bin", help="an already built minhash_lsh bench executable (skips cargo)")
    args = ap.parse_args()
    archives = [os.path.abspath(a) for a in args.archives] or [
        os.path.join(ROOT, "..", "shared", "data", "goldset-dev")
    ]
    if args.gold:
        args.gold = os.path.abspath(args.gold)
    first = args.seed
    results = []
    for seed in range(first, first + max(1, args.seeds)):
        args.seed = seed
        result = compare(archives, args)
        results.append(result)
        if args.json:
            print(json.dumps(result), flush=True)
        elif args.seeds == 1:
            print_table(result)
        else:
            r, d = result["samecore"], result["datasketch"]
            f1 = lambda v: f"{v:.3f}" if v is not None else "-"
            print(f"seed {seed}: F1 {f1(r['pair_f1'])} vs {f1(d['pair_f1'])}, "
                  f"{r['seconds']:.3f} s vs {d['seconds']:.3f} s ({result['speedup']:.1f}x)", flush=True)
    if args.seeds > 1 and not args.json:
        print_summary(results)


if __name__ == "__main__":
    main()
