"""The Spark job against a brute-force reference of samecore's all-pairs SpotSigs.

Random shards (pyarrow) with near-duplicate groups, exact duplicates, signatures on most pages,
site frames, counts above 1, pages in two shards, pages below min_signatures or without any
signature, and pairs exactly at the threshold; the job in local mode; every pair compared with
the reference's direct multiset Jaccard over all pairs of pages (same pairs, same scores,
intersections and sizes) and every page's cluster with union-find components, at thresholds
0.12, 0.5 and 1.0, with and without the site frame and the IDF band.

    python3 spark/test_samecore_pairs.py        (or python3 -m pytest spark/)
"""

import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings
from collections import defaultdict

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import samecore_pairs as job  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "samecore_pairs.py")
FRAME = {"max_share": 0.9, "min_pages": 3}
COPIES = {"max_share": 0.9, "min_pages": 3, "copies": 0.8}
BAND = [0.2, 0.9]
CONFIGS = {
    "plain": (None, None),
    "frame": (FRAME, None),
    "copies": (COPIES, None),
    "idf": (None, BAND),
    "frame+idf": (FRAME, BAND),
}
THRESHOLDS = [0.12, 0.5, 1.0]


# ---------------------------------------------------------------------------------------------
# Test data


def random_collection(seed=7):
    """(pages, signatures): page rows as the two shards hold them ("one", "two"; some pages in
    both) and per page its multiset {signature: count}."""
    rng = random.Random(seed)
    used = set()

    def fresh():
        while True:
            x = rng.randrange(-(2**63), 2**63)
            if x not in used:
                used.add(x)
                return x

    sites = ["news.example", "blog.example", "shop.example", None]
    frame = {s: [fresh() for _ in range(4)] for s in sites[:3]}
    common = [fresh() for _ in range(6)]  # on about half of all pages: low IDF, a hot key
    vocab = [fresh() for _ in range(1500)] + [-(2**63), 2**63 - 1, 0, -1]
    multisets = []  # (site, {sig: count})

    def story(n):
        return {rng.choice(vocab): rng.choice([1, 1, 1, 2, 3]) for _ in range(n)}

    def dressed(site, core):
        m = dict(core)
        for s in frame.get(site, []):
            if site == "news.example" or rng.random() < 0.93:
                m[s] = m.get(s, 0) + 1
        for s in common:
            if rng.random() < 0.5:
                m[s] = m.get(s, 0) + rng.choice([1, 1, 2])
        return m

    # Near-duplicate groups: a story, copies with a few edits, on one or several sites.
    for _ in range(30):
        base = story(rng.randrange(6, 60))
        for _ in range(rng.randrange(2, 7)):
            copy = dict(base)
            for _ in range(rng.randrange(0, 4)):
                copy.pop(rng.choice(list(copy)), None)
            for _ in range(rng.randrange(0, 4)):
                copy[rng.choice(vocab)] = rng.choice([1, 2])
            site = rng.choice(sites)
            multisets.append((site, dressed(site, copy)))
    # Exact duplicates (threshold 1), with counts above 1.
    for _ in range(5):
        core = {rng.choice(vocab): rng.choice([1, 2, 4]) for _ in range(rng.randrange(4, 20))}
        for _ in range(rng.randrange(2, 4)):
            multisets.append((None, dict(core)))
    # Pairs exactly at a threshold (J = m/n with A inside B), and just below it.
    for m, n in [(6, 50), (9, 75), (4, 8), (5, 10), (7, 14), (13, 26), (6, 51), (4, 9)]:
        small = {fresh(): 1 for _ in range(m)}
        big = dict(small)
        big.update({fresh(): 1 for _ in range(n - m)})
        multisets += [(None, small), (None, big)]
    s, r = fresh(), fresh()
    multisets += [(None, {s: 2, r: 2, fresh(): 1, fresh(): 1}), (None, {s: 4, r: 4, fresh(): 1, fresh(): 1})]
    # Unrelated pages, short pages (below min_signatures), pages without signatures.
    for _ in range(90):
        site = rng.choice(sites)
        multisets.append((site, dressed(site, story(rng.randrange(3, 40)))))
    for _ in range(12):
        multisets.append((rng.choice(sites), story(rng.randrange(1, 4))))
    for _ in range(6):
        multisets.append((rng.choice(sites), {}))
    # A site of ten pages, one without signatures: a signature on nine of them is on exactly
    # max_share of the site (kept), one on all nine signed pages too when P counts all ten.
    nine = fresh()
    base = story(5)
    for i in range(9):
        core = dict(base) if i % 2 else story(5)
        multisets.append(("ten.example", {nine: 1, **core, fresh(): 1}))
    multisets.append(("ten.example", {}))
    # Sites of copies: twenty near-copies of one story and two other pages, a frame signature on
    # all (the story is on more than 0.9 of the pages, on one of three groups of copies); four
    # copies of one story and nothing else (one group).
    base, framed = story(30), fresh()
    for i in range(22):
        core = dict(base) if i < 20 else story(30)
        if i % 3 == 1:
            core.pop(next(iter(core)))
        multisets.append(("copies.example", {framed: 1, **core}))
    base = story(25)
    for i in range(4):
        multisets.append(("recaptures.example", {**base, fresh(): 1} if i else dict(base)))
    # A site of two pages sharing everything: too small for the frame.
    multisets += [("tiny.example", {common[0]: 1, **story(8)}), ("tiny.example", {common[0]: 1, **story(8)})]

    pages, signatures = [], {}
    ids = set()
    for i, (site, multiset) in enumerate(multisets):
        while True:
            page = rng.randrange(-(2**63), 2**63)
            if page not in ids:
                ids.add(page)
                break
        url = f"http://{site or 'unknown.example'}/story/{i}"
        key = f"2024{rng.randrange(10**10):010d} {url} sha1:{rng.randrange(16**8):08x}"
        row = {
            "page": page,
            "key": key,
            "record_id": f"<urn:uuid:{i}>" if i % 5 else None,
            "url": url if i % 7 else None,
            "timestamp": key[:14],
            "date": None if i % 3 == 0 else "2024-01-01T00:00:00Z",
            "offset": rng.randrange(10**6),
            "length": rng.randrange(100, 10**5),
            "digest": key.split()[-1],
            "site": site,
            "gold": f"g{i % 17}" if i % 2 else None,
            "signatures": sum(multiset.values()),
        }
        placements = {"one": ["one"], "two": ["two"], "both": ["one", "two"]}[
            rng.choices(["one", "two", "both"], [0.45, 0.45, 0.1])[0]
        ]
        for shard in placements:
            offset = row["offset"] + (0 if shard == "one" else 17)
            pages.append(dict(row, file=f"/archives/{shard}.warc.gz", offset=offset, shard=shard))
        signatures[page] = multiset
    return pages, signatures


PAGE_TYPES = {
    "page": pa.int64(),
    "key": pa.string(),
    "record_id": pa.string(),
    "url": pa.string(),
    "timestamp": pa.string(),
    "date": pa.string(),
    "file": pa.string(),
    "offset": pa.int64(),
    "length": pa.int64(),
    "digest": pa.string(),
    "site": pa.string(),
    "gold": pa.string(),
    "signatures": pa.int64(),
}


def write_shards(directory, pages, signatures, site_frame, idf_band, algo="spotsigs", version=1):
    """The two shards as `samecore sign` writes them."""
    os.makedirs(directory, exist_ok=True)
    params = {
        "min_signatures": 4,
        "idf_band": idf_band,
        "site_frame": site_frame,
        "tokens": "blocks",
        "antecedents": ["a", "the"],
        "chain": 3,
    }
    for shard in ("one", "two"):
        rows = [p for p in pages if p["shard"] == shard]
        table = pa.table({c: pa.array([r[c] for r in rows], t) for c, t in PAGE_TYPES.items()})
        pq.write_table(table, os.path.join(directory, f"{shard}.warc.gz.pages.parquet"))
        sig_rows = [(r["page"], s, c) for r in rows for s, c in sorted(signatures[r["page"]].items())]
        sig_table = pa.table(
            {
                "page": pa.array([x[0] for x in sig_rows], pa.int64()),
                "signature": pa.array([x[1] for x in sig_rows], pa.int64()),
                "count": pa.array([x[2] for x in sig_rows], pa.int32()),
            }
        )
        pq.write_table(sig_table, os.path.join(directory, f"{shard}.warc.gz.signatures.parquet"))
        manifest = {
            "format": "samecore-signatures",
            "version": version,
            "algo": algo,
            "input": f"/archives/{shard}.warc.gz",
            "pages": len(rows),
            "signature_rows": len(sig_rows),
            "params": params,
            "samecore": "test",
        }
        with open(os.path.join(directory, f"{shard}.warc.gz.sign.json"), "w") as f:
            json.dump(manifest, f, indent=2)


# ---------------------------------------------------------------------------------------------
# The reference: samecore's steps one page and one pair at a time.


def confirmed_by_groups(members, sets, candidates, site_frame):
    """The candidates on more than max_share of the site's groups of copies (pages at Jaccard >=
    copies of their distinct signatures, every pair compared, joined transitively)."""
    group = {page: page for page in members}

    def root(x):
        while group[x] != x:
            x = group[x]
        return x

    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            x, y = set(sets[a]), set(sets[b])
            union = len(x | y)
            if union == 0 or len(x & y) / union >= site_frame["copies"]:
                ra, rb = root(a), root(b)
                if ra != rb:
                    group[ra] = rb
    groups = {root(page) for page in members}
    if len(groups) < max(site_frame["min_pages"], 2):
        return set()
    held = defaultdict(set)
    for page in members:
        for s in sets[page]:
            held[s].add(root(page))
    return {s for s in candidates if len(held[s]) > site_frame["max_share"] * len(groups)}



def reference(pages, signatures, site_frame, idf_band, threshold, min_signatures=4, min_shared=None):
    if min_shared is None:
        min_shared = job.DEFAULT_MIN_SHARED
    rows = {}
    for p in pages:
        if p["page"] not in rows or (p["file"], p["offset"]) < (
            rows[p["page"]]["file"],
            rows[p["page"]]["offset"],
        ):
            rows[p["page"]] = p
    sets = {page: dict(signatures[page]) for page in rows}
    if site_frame is not None:
        by_site = defaultdict(list)
        for page, row in rows.items():
            if row["site"] is not None:
                by_site[row["site"]].append(page)
        for members in by_site.values():
            if len(members) < max(site_frame["min_pages"], 2):
                continue
            df = defaultdict(int)
            for page in members:
                for s in sets[page]:
                    df[s] += 1
            limit = site_frame["max_share"] * len(members)
            frame = {s for s, n in df.items() if n > limit}
            if site_frame.get("copies") is not None:
                frame = confirmed_by_groups(members, sets, frame, site_frame)
            for page in members:
                sets[page] = {s: c for s, c in sets[page].items() if s not in frame}
    if idf_band is not None:
        n = float(max(len(rows), 2))
        df = defaultdict(int)
        for m in sets.values():
            for s in m:
                df[s] += 1
        lo, hi = idf_band

        def keep(s):
            idf = math.log(n / df[s]) / math.log(n)
            return not (idf < lo - 1e-12 or idf > hi + 1e-12)

        sets = {page: {s: c for s, c in m.items() if keep(s)} for page, m in sets.items()}
    totals = {page: sum(m.values()) for page, m in sets.items()}
    signed = sorted(page for page, total in totals.items() if total >= max(min_signatures, 1))
    pairs = {}
    for i, a in enumerate(signed):
        for b in signed[i + 1 :]:
            ma, mb = sets[a], sets[b]
            inter = sum(min(c, mb[s]) for s, c in ma.items() if s in mb)
            union = sum(max(ma.get(s, 0), mb.get(s, 0)) for s in set(ma) | set(mb))
            score = inter / union
            if score >= threshold and inter >= min_shared:
                first, second = sorted((a, b), key=lambda p: rows[p]["key"])
                pairs[(rows[first]["key"], rows[second]["key"])] = (
                    first,
                    second,
                    score,
                    inter,
                    totals[first],
                    totals[second],
                )
    parent = {page: page for page in rows}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, *_ in pairs.values():
        parent[find(a)] = find(b)
    component = defaultdict(list)
    for page in rows:
        component[find(page)].append(page)
    members = sorted(component.values(), key=lambda ps: min(rows[p]["key"] for p in ps))
    clusters = {}
    for number, ps in enumerate(members):
        for p in ps:
            clusters[p] = (number, min(ps), len(ps), totals[p] if p in signed else 0)
    return rows, pairs, clusters


# ---------------------------------------------------------------------------------------------


def setUpModule():
    global SPARK, SCRATCH
    # py4j leaves sockets to the garbage collector; unittest would warn about each.
    warnings.filterwarnings("ignore", category=ResourceWarning)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    SPARK = job.session("local[2]", 4)
    SCRATCH = tempfile.mkdtemp(prefix="samecore-spark-test-")


def tearDownModule():
    SPARK.stop()
    shutil.rmtree(SCRATCH, ignore_errors=True)


def read_parquet_dir(path):
    return pq.read_table(path).to_pylist()


class JobEqualsReference(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages, cls.signatures = random_collection()
        cls.shards = {}
        for name, (frame, band) in CONFIGS.items():
            cls.shards[name] = os.path.join(SCRATCH, "shards-" + name)
            write_shards(cls.shards[name], cls.pages, cls.signatures, frame, band)

    def check(self, config, threshold, min_shared=job.DEFAULT_MIN_SHARED, join="auto", tag=""):
        frame, band = CONFIGS[config]
        out = os.path.join(SCRATCH, f"out-{config}-{threshold}-{min_shared}-{join}{tag}")
        report = job.run(SPARK, self.shards[config], out, threshold, min_shared=min_shared, join=join)
        rows, want_pairs, want_clusters = reference(
            self.pages, self.signatures, frame, band, threshold, min_shared=min_shared
        )
        where = f"{config} at {threshold} sharing {min_shared}, {join} join"
        self.assertEqual(report["join"], "broadcast" if join == "auto" else join, where)

        got_pairs = {}
        for p in read_parquet_dir(os.path.join(out, "pairs.parquet")):
            self.assertLess(p["a_key"], p["b_key"], where)
            self.assertNotIn((p["a_key"], p["b_key"]), got_pairs, f"{where}: a pair twice")
            got_pairs[(p["a_key"], p["b_key"])] = (
                p["a_page"],
                p["b_page"],
                p["score"],
                p["intersection"],
                p["a_signatures"],
                p["b_signatures"],
            )
        missing = sorted(set(want_pairs) - set(got_pairs))
        extra = sorted(set(got_pairs) - set(want_pairs))
        self.assertEqual(
            (missing[:3], extra[:3]), ([], []), f"{where}: {len(missing)} missing, {len(extra)} extra"
        )
        for k, want in want_pairs.items():
            got = got_pairs[k]
            self.assertEqual(got[:2] + got[3:], want[:2] + want[3:], f"{where}: {k}")
            self.assertAlmostEqual(got[2], want[2], delta=1e-12, msg=f"{where}: {k}")

        got_clusters = read_parquet_dir(os.path.join(out, "clusters.parquet"))
        self.assertEqual(sorted(r["page"] for r in got_clusters), sorted(rows), where)
        for r in got_clusters:
            expect = rows[r["page"]]
            for column in job.IDENTITY:
                self.assertEqual(r[column], expect[column], f"{where}: {column} of {r['key']}")
            self.assertEqual(
                (r["cluster"], r["cluster_page"], r["cluster_size"], r["signatures_kept"]),
                want_clusters[r["page"]],
                f"{where}: cluster of {r['key']}",
            )

        with open(os.path.join(out, "run.json")) as f:
            written = json.load(f)
        self.assertEqual(written, report)
        n_clusters = len({c[0] for c in want_clusters.values() if c[2] >= 2})
        self.assertEqual(
            (written["pages"], written["matched_pages"], written["pairs"], written["clusters"]),
            (len(rows), sum(1 for c in want_clusters.values() if c[3] > 0), len(want_pairs), n_clusters),
            where,
        )
        self.assertEqual(
            (written["format"], written["algo"], written["threshold"], written["min_shared"]),
            ("samecore-spark-run", "spotsigs", threshold, min_shared),
        )
        self.assertEqual(sorted(written["inputs"]), ["/archives/one.warc.gz", "/archives/two.warc.gz"])
        return want_pairs

    def test_every_threshold_and_filter(self):
        # The filters run before, and apart from, the threshold and the join (`filtered_rows`
        # knows neither): every filter at the default threshold and every threshold
        # with all the filters cover both. The joins differ only after the filters, so the
        # shuffle join is checked at every threshold with all the filters: 10 Spark runs instead
        # of the product's 30 (about ten seconds each on a 2-core machine).
        runs = [(config, THRESHOLDS[0], "broadcast") for config in CONFIGS]
        runs += [("frame+idf", threshold, "broadcast") for threshold in THRESHOLDS[1:]]
        runs += [("frame+idf", threshold, "shuffle") for threshold in THRESHOLDS]
        counts = {}
        for config, threshold, join in runs:
            with self.subTest(config=config, threshold=threshold, join=join):
                n = len(self.check(config, threshold, join=join))
                self.assertEqual(counts.setdefault((config, threshold), n), n, "the joins disagree")
        print(f"\npairs per (filters, threshold): {counts}", file=sys.stderr)
        # The data exercise what they should: pairs at every threshold, and filters that change them.
        self.assertTrue(all(n > 0 for n in counts.values()), counts)
        self.assertNotEqual(counts[("plain", 0.12)], counts[("frame", 0.12)])
        self.assertNotEqual(counts[("frame", 0.12)], counts[("copies", 0.12)])
        self.assertNotEqual(counts[("plain", 0.12)], counts[("idf", 0.12)])

    def test_pairs_must_share_min_shared_signatures(self):
        for join in ("broadcast", "shuffle"):
            counts = {m: len(self.check("plain", 0.12, min_shared=m, join=join)) for m in (1, 6)}
            print(f"\npairs at 0.12 per min_shared, {join} join: {counts}", file=sys.stderr)
            # The data have pairs at 0.12 that share fewer than 6 signatures: the option drops them.
            self.assertGreater(counts[1], counts[6])

    def test_auto_shuffles_past_the_broadcast_limit(self):
        out = os.path.join(SCRATCH, "out-auto-limit")
        report = job.run(SPARK, self.shards["frame"], out, 0.5, broadcast_rows=10)
        self.assertEqual(report["join"], "shuffle")
        _, want_pairs, _ = reference(self.pages, self.signatures, FRAME, None, 0.5)
        self.assertEqual(report["pairs"], len(want_pairs))

    def test_small_gather_batches_and_many_tasks_change_nothing(self):
        # A task gathers at most GATHER_BATCH postings at once (one page at least) and the work is
        # cut into tasks of at most CHUNK_POSTINGS postings: with both small, every page is a
        # batch and the work about 60 tasks (every page a task took 25 s more).
        want = self.check("frame", 0.12, join="broadcast", tag="-large")
        saved = job.GATHER_BATCH, job.CHUNK_POSTINGS
        job.GATHER_BATCH, job.CHUNK_POSTINGS = 1, 400
        try:
            self.assertEqual(self.check("frame", 0.12, join="broadcast", tag="-small"), want)
        finally:
            job.GATHER_BATCH, job.CHUNK_POSTINGS = saved

    def test_no_pair(self):
        rng = random.Random(5)
        disjoint = {page: {rng.randrange(2**62): 1 for _ in range(6)} for page in self.signatures}
        shards = os.path.join(SCRATCH, "shards-disjoint")
        write_shards(shards, self.pages, disjoint, FRAME, None)
        out = os.path.join(SCRATCH, "out-disjoint")
        report = job.run(SPARK, shards, out, 0.12)
        self.assertEqual((report["pairs"], report["clusters"], report["iterations"]), (0, 0, 0))
        self.assertEqual(read_parquet_dir(os.path.join(out, "pairs.parquet")), [])
        clusters = read_parquet_dir(os.path.join(out, "clusters.parquet"))
        by_key = sorted(clusters, key=lambda r: r["key"])
        self.assertEqual([r["cluster"] for r in by_key], list(range(len(clusters))))
        self.assertTrue(all(r["cluster_page"] == r["page"] and r["cluster_size"] == 1 for r in clusters))

    def test_overwrite(self):
        out = os.path.join(SCRATCH, "out-overwrite")
        os.makedirs(out)
        with self.assertRaisesRegex(job.JobError, "exists"):
            job.run(SPARK, self.shards["plain"], out, 0.5)
        job.run(SPARK, self.shards["plain"], out, 0.5, overwrite=True)
        first = read_parquet_dir(os.path.join(out, "pairs.parquet"))
        report = job.run(SPARK, self.shards["plain"], out, 1.0, overwrite=True)
        self.assertEqual(report["pairs"], len(read_parquet_dir(os.path.join(out, "pairs.parquet"))))
        self.assertLess(report["pairs"], len(first))


class RefusesBadInput(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages, cls.signatures = random_collection(seed=3)

    def shards(self, name, **kwargs):
        directory = os.path.join(SCRATCH, "bad-" + name)
        write_shards(directory, self.pages, self.signatures, FRAME, None, **kwargs)
        return directory

    def expect(self, shards, message, threshold=0.5):
        with self.assertRaisesRegex(job.JobError, message):
            job.run(SPARK, shards, os.path.join(SCRATCH, "never"), threshold)
        self.assertFalse(os.path.exists(os.path.join(SCRATCH, "never")))

    def test_no_shards(self):
        empty = os.path.join(SCRATCH, "empty")
        os.makedirs(empty, exist_ok=True)
        self.expect(empty, "no shards")
        self.expect(os.path.join(SCRATCH, "missing"), "no shards")

    def test_mixed_params(self):
        directory = self.shards("mixed")
        path = os.path.join(directory, "two.warc.gz.sign.json")
        with open(path) as f:
            manifest = json.load(f)
        manifest["params"]["idf_band"] = [0.1, 0.9]
        with open(path, "w") as f:
            json.dump(manifest, f)
        self.expect(directory, r"different parameters.*idf_band")

    def test_minhash_and_unknown_versions(self):
        self.expect(self.shards("minhash", algo="minhash"), "SpotSigs only")
        self.expect(self.shards("version", version=2), "unknown shard format")

    def test_missing_signatures_file(self):
        directory = self.shards("partial")
        os.remove(os.path.join(directory, "one.warc.gz.signatures.parquet"))
        self.expect(directory, "has no")

    def test_bad_threshold(self):
        directory = self.shards("threshold")
        for t in (0.0, -0.1, 1.5, float("nan")):
            self.expect(directory, "outside", threshold=t)

    def test_bad_join(self):
        directory = self.shards("join")
        for join, rows, message in (("sort", 10, "not one of"), ("auto", -1, "not a number")):
            with self.assertRaisesRegex(job.JobError, message):
                job.run(SPARK, directory, os.path.join(SCRATCH, "never"), 0.5, join=join, broadcast_rows=rows)


class CommandLine(unittest.TestCase):
    def test_bad_threshold_fails_before_spark(self):
        done = subprocess.run(
            [
                sys.executable,
                SCRIPT,
                "--shards",
                SCRATCH,
                "--out",
                os.path.join(SCRATCH, "x"),
                "--threshold",
                "0",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("outside (0, 1]", done.stderr)

    def test_a_run_from_the_command_line(self):
        pages, signatures = random_collection(seed=11)
        shards = os.path.join(SCRATCH, "cli-shards")
        write_shards(shards, pages, signatures, FRAME, None)
        out = os.path.join(SCRATCH, "cli-out")
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
        command = [
            sys.executable,
            SCRIPT,
            "--shards",
            shards,
            "--out",
            out,
            "--threshold",
            "0.5",
            "--partitions",
            "3",
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("pairs:", done.stderr)
        with open(os.path.join(out, "run.json")) as f:
            report = json.load(f)
        _, want_pairs, _ = reference(pages, signatures, FRAME, None, 0.5)
        self.assertEqual(report["pairs"], len(want_pairs))
        again = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        self.assertEqual(again.returncode, 2)
        self.assertIn("exists", again.stderr)


class IdfBand(unittest.TestCase):
    def test_the_bisected_interval_is_the_scanned_one(self):
        for n in (1, 2, 3, 10, 97, 1000, 4321):
            for lo, hi in ((0.2, 0.9), (0.0, 1.0), (0.5, 0.5), (0.3, 0.31), (0.9, 0.2)):
                nn = float(max(n, 2))
                kept = [
                    df
                    for df in range(1, n + 1)
                    if not (
                        math.log(nn / df) / math.log(nn) < lo - 1e-12
                        or math.log(nn / df) / math.log(nn) > hi + 1e-12
                    )
                ]
                first, last = job.idf_df_range(n, lo, hi)
                self.assertEqual(list(range(first, last + 1)), kept, (n, lo, hi))


if __name__ == "__main__":
    unittest.main(verbosity=2)
