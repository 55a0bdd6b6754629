#!/usr/bin/env python3
"""SpotSigs all-pairs matching in Apache Spark, equal to `samecore run --mode allpairs`.

Reads the shards `samecore sign ARCHIVE... --out DIR` writes (per archive NAME:
NAME.pages.parquet, NAME.signatures.parquet, NAME.sign.json), finds every pair of pages whose
multiset Jaccard reaches the threshold, clusters the pairs into connected components, and writes
OUT/pairs.parquet, OUT/clusters.parquet and OUT/run.json.

    spark-submit spark/samecore_pairs.py --shards DIR --out OUT --threshold 0.12
    python3 spark/samecore_pairs.py --shards DIR --out OUT --threshold 0.12   # local[*]

The steps, each the one samecore takes on one machine (see spark/README.md):

1. Site frame (src/signature/frame.rs): on a site of P >= max(min_pages, 2) pages, a signature
   held by more than max_share * P of them is dropped from them. With `copies` (a Jaccard), the
   site's pages at that similarity or more (transitively) are one group of copies; such a
   signature then goes only if the site has at least max(min_pages, 2) groups and it is on more
   than max_share of them.
2. IDF band (Theobald, Siddharth, Paepcke, "SpotSigs", SIGIR 2008, section 5): a signature whose
   normalised IDF ln(N/df)/ln(N) lies outside [lo, hi] is dropped.
3. Pages left with fewer than min_signatures occurrences take no part in matching.
4. Pairs at or above the threshold, by the multiset Jaccard (SIGIR 2008 section 3), that share
   at least --min-shared signatures (samecore's --min-shared, default 2). Two ways (--join):
   - broadcast (default while the index fits): every executor holds the inverted index of all
     pages in (size, page) order; each task probes it with its pages' signatures, reads only the
     postings of partners within SpotSigs' length bound (SIGIR 2008 section 4), and sums
     min(count) per partner in place, as samecore's all-pairs matching does on one machine;
   - shuffle: candidates by prefix filtering (Vernica, Carey, Li, "Efficient parallel
     set-similarity joins using MapReduce", SIGMOD 2010, section 3) within length partitions
     (SIGIR 2008 section 4), each candidate then verified exactly.
5. Clusters: connected components by alternating large-star and small-star (Kiveris et al.,
   "Connected Components in MapReduce and Beyond", SoCC 2014, section 2).

The shuffle join uses only the DataFrame API and Spark SQL functions; the broadcast join runs
NumPy in the Python workers (mapInArrow), vectorised over batches of postings.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

SIGN_FORMAT = "samecore-signatures"
SIGN_VERSION = 1
RUN_FORMAT = "samecore-spark-run"
RUN_VERSION = 1

# The columns of NAME.pages.parquet and NAME.signatures.parquet (src/export/shard.rs). Read with
# these schemas, a shard of no page, or a file missing an optional column, reads as nulls.
PAGES_SCHEMA = T.StructType(
    [
        T.StructField("page", T.LongType()),
        T.StructField("key", T.StringType()),
        T.StructField("record_id", T.StringType()),
        T.StructField("url", T.StringType()),
        T.StructField("timestamp", T.StringType()),
        T.StructField("date", T.StringType()),
        T.StructField("file", T.StringType()),
        T.StructField("offset", T.LongType()),
        T.StructField("length", T.LongType()),
        T.StructField("digest", T.StringType()),
        T.StructField("site", T.StringType()),
        T.StructField("gold", T.StringType()),
        T.StructField("signatures", T.LongType()),
    ]
)
SIGNATURES_SCHEMA = T.StructType(
    [
        T.StructField("page", T.LongType()),
        T.StructField("signature", T.LongType()),
        T.StructField("count", T.IntegerType()),
    ]
)
# A page's identity, as clusters.parquet repeats it.
IDENTITY = [f.name for f in PAGES_SCHEMA.fields if f.name != "signatures"]

# Slack on float bounds derived from the threshold: a bound is only ever loosened by it, so a
# pair the exact verification would accept is never filtered out (see `signed_pages`).
SLACK = 1e-9

# Signatures a pair must share besides the threshold: samecore's default (--min-shared,
# src/matching/mod.rs DEFAULT_MIN_SHARED).
DEFAULT_MIN_SHARED = 2

# Ways to find the pairs (--join). "broadcast": the join on signatures runs map-side against an
# inverted index every executor holds, and each task counts its pages' intersections in place
# (`BroadcastIndex`). "shuffle": the prefix self-join and the verification joins, which hold
# nothing in memory but shuffle every candidate (`candidate_pairs`, `verified_pairs`). "auto":
# broadcast while the index has at most --broadcast-rows signature rows.
JOINS = ("auto", "broadcast", "shuffle")
# 200 million rows: an index of about 4 GB in each executor's Python worker and on the driver.
DEFAULT_BROADCAST_ROWS = 200_000_000
# Postings a task gathers at once (then counts, filters and writes): bounds a task's memory to
# about 60 bytes a posting, 250 MB, whatever its pages.
GATHER_BATCH = 4_000_000
# Postings a task reads in all, at most: the work is cut into chunks of about equal postings,
# and into at least 4 chunks a core.
CHUNK_POSTINGS = 50_000_000


class JobError(Exception):
    """A problem with the input or the command line, reported without a traceback."""


_started = time.time()


def log(message):
    """A progress line on standard error."""
    print(f"[samecore-pairs {time.time() - _started:7.1f}s] {message}", file=sys.stderr, flush=True)


def check_min_shared(min_shared):
    if not isinstance(min_shared, int) or min_shared < 1:
        raise JobError(f"--min-shared {min_shared} is not a positive number")


def check_join(join, broadcast_rows):
    if join not in JOINS:
        raise JobError(f"--join {join!r} is not one of {', '.join(JOINS)}")
    if not isinstance(broadcast_rows, int) or broadcast_rows < 0:
        raise JobError(f"--broadcast-rows {broadcast_rows} is not a number of rows")


def check_threshold(threshold):
    if not 0.0 < threshold <= 1.0:  # also refuses NaN
        raise JobError(f"threshold {threshold} is outside (0, 1]")


class Files:
    """The few file operations Spark's readers and writers do not do, on any Hadoop file system
    (local, HDFS, S3...): listing the manifests, reading them, checking and clearing OUT,
    writing run.json."""

    def __init__(self, spark):
        self._jvm = spark._jvm
        self._conf = spark._jsc.hadoopConfiguration()

    def _resolve(self, path):
        p = self._jvm.org.apache.hadoop.fs.Path(path)
        return p.getFileSystem(self._conf), p

    def exists(self, path):
        fs, p = self._resolve(path)
        return fs.exists(p)

    def glob(self, pattern):
        """(qualified path, file name) of every file matching `pattern`, sorted by name."""
        fs, p = self._resolve(pattern)
        found = fs.globStatus(p) or []
        return sorted((s.getPath().toString(), s.getPath().getName()) for s in found)

    def is_dir(self, path):
        fs, p = self._resolve(path)
        return fs.exists(p) and fs.getFileStatus(p).isDirectory()

    def read_text(self, path):
        fs, p = self._resolve(path)
        stream = fs.open(p)
        try:
            return bytes(stream.readAllBytes()).decode("utf-8")
        finally:
            stream.close()

    def write_text(self, path, text):
        fs, p = self._resolve(path)
        stream = fs.create(p, True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def delete(self, path):
        fs, p = self._resolve(path)
        fs.delete(p, True)


def read_shards(spark, files, shards):
    """The shards of directory `shards`: (pages, signature rows, manifest summary). Every shard
    must be a SpotSigs shard of this layout, and all of them signed with equal parameters."""
    manifests = files.glob(shards.rstrip("/") + "/*.sign.json")
    if not manifests:
        raise JobError(
            f"no shards in {shards}: no NAME.sign.json there "
            f"(write them with `samecore sign ARCHIVE... --out {shards}`)"
        )
    first = None
    pages_paths, signature_paths, inputs, names = [], [], [], []
    for path, name in manifests:
        try:
            manifest = json.loads(files.read_text(path))
        except ValueError as e:
            raise JobError(f"{path} is not JSON: {e}") from e
        if not isinstance(manifest, dict) or (manifest.get("format"), manifest.get("version")) != (
            SIGN_FORMAT,
            SIGN_VERSION,
        ):
            got = (manifest.get("format"), manifest.get("version")) if isinstance(manifest, dict) else None
            raise JobError(
                f"{path}: unknown shard format/version {got} "
                f"(this job reads format {SIGN_FORMAT!r} version {SIGN_VERSION})"
            )
        if first is None:
            first = (name, manifest)
        elif manifest.get("algo") != first[1].get("algo"):
            raise JobError(
                f"shards of different algorithms: {first[0]} is {first[1].get('algo')!r}, "
                f"{name} is {manifest.get('algo')!r}"
            )
        elif manifest.get("params") != first[1].get("params"):
            a, b = first[1].get("params") or {}, manifest.get("params") or {}
            differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            raise JobError(
                f"shards signed with different parameters: {first[0]} and {name} differ in {differ}; "
                "sign every archive with the same options"
            )
        stem = path[: -len(".sign.json")]
        for part, paths in ((".pages.parquet", pages_paths), (".signatures.parquet", signature_paths)):
            if not files.exists(stem + part):
                raise JobError(f"shard {name[: -len('.sign.json')]} has no {stem + part}")
            paths.append(stem + part)
        inputs.append(manifest.get("input"))
        names.append(name[: -len(".sign.json")])
    algo, params = first[1].get("algo"), first[1].get("params")
    if algo != "spotsigs":
        raise JobError(
            f"the shards hold {algo!r} signatures; this job matches SpotSigs only "
            "(sign with `samecore sign --algo spotsigs`)"
        )
    if not isinstance(params, dict) or not {"min_signatures", "idf_band", "site_frame"} <= set(params):
        raise JobError(f"{manifests[0][0]}: params lack min_signatures, idf_band or site_frame")
    pages = spark.read.schema(PAGES_SCHEMA).parquet(*pages_paths)
    signatures = spark.read.schema(SIGNATURES_SCHEMA).parquet(*signature_paths)
    summary = {"algo": algo, "params": params, "inputs": inputs, "shards": names}
    return pages, signatures, summary


def distinct_pages(raw):
    """One row per page id: a capture in two archives is one page, its row the one of the
    smallest (file, offset)."""
    rest = [c for c in PAGES_SCHEMA.fieldNames() if c not in ("page", "file", "offset")]
    smallest = F.min(F.struct("file", "offset", *rest)).alias("row")
    return raw.groupBy("page").agg(smallest).select("page", "row.*")


def drop_site_frame(signatures, pages, frame):
    """Step 1 (src/signature/frame.rs): on each site of P >= max(min_pages, 2) pages (every page
    of the site counts, signed or not), drop the signatures held by more than max_share * P of
    its pages and, when frame["copies"] is set, by more than max_share of its groups of copies
    too (none when the site has fewer than max(min_pages, 2) groups). Pages of no site are left
    alone."""
    max_share, min_pages = float(frame["max_share"]), max(int(frame["min_pages"]), 2)
    sites = (
        pages.where(F.col("site").isNotNull())
        .groupBy("site")
        .agg(F.count("*").alias("site_pages"))
        .where(F.col("site_pages") >= min_pages)
    )
    located = signatures.join(pages.select("page", "site").join(sites, "site"), "page", "left")
    frame_rows = (
        located.where(F.col("site").isNotNull())
        .groupBy("site", "signature")
        .agg(F.count("*").alias("df"), F.max("site_pages").alias("site_pages"))
        # Kept when float(df) <= max_share * float(P), as samecore compares.
        .where(F.col("df").cast("double") > F.lit(max_share) * F.col("site_pages").cast("double"))
        .select("site", "signature")
    )
    if frame.get("copies") is not None:
        frame_rows = frame_of_groups(located, pages, frame_rows, max_share, min_pages, float(frame["copies"]))
    return located.join(frame_rows, ["site", "signature"], "left_anti").select("page", "signature", "count")


def frame_of_groups(located, pages, candidates, max_share, min_pages, t):
    """The candidates (site, signature) on more than max_share of their site's groups of copies,
    in sites of at least min_pages groups. Groups are found per site in a Python worker
    (copy_groups), only for sites with a candidate."""
    candidate_sites = candidates.select("site").distinct()
    members = pages.select("page", "site").join(candidate_sites, "site")
    sets = (
        located.join(candidate_sites, "site")
        .groupBy("page")
        .agg(F.sort_array(F.collect_set("signature")).alias("signatures"))
    )
    site_pages = members.join(sets, "page", "left").select("site", "page", "signatures")
    schema = T.StructType(
        [
            T.StructField("page", T.LongType(), False),
            T.StructField("group", T.LongType(), False),
            T.StructField("groups", T.LongType(), False),
        ]
    )

    def groups_of_site(rows):
        rows = sorted(rows, key=lambda r: r[0])
        group, n = copy_groups([r[1] or [] for r in rows], t)
        return [(page, g, n) for (page, _), g in zip(rows, group)]

    grouped = site_pages.sparkSession.createDataFrame(
        site_pages.rdd.map(lambda r: (r["site"], (r["page"], r["signatures"])))
        .groupByKey()
        .flatMap(lambda kv: groups_of_site(kv[1])),
        schema,
    )
    return (
        located.join(candidates, ["site", "signature"])
        .join(grouped, "page")
        .where(F.col("groups") >= min_pages)
        .groupBy("site", "signature")
        .agg(F.countDistinct("group").alias("gdf"), F.max("groups").alias("groups"))
        .where(F.col("gdf").cast("double") > F.lit(max_share) * F.col("groups").cast("double"))
        .select("site", "signature")
    )


def copy_groups(sets, t):
    """Groups of copies among one site's pages (`sets`: each page's distinct signatures): pages
    at Jaccard >= t joined, transitively; identical sets (empty ones among them) are one group.
    Returns each page's group number (0.. in page order) and the number of groups: the
    components src/signature/frame.rs copy_groups finds, by the same prefix filtering."""
    sets = [sorted(set(sigs)) for sigs in sets]
    parent = list(range(len(sets)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    first = {}
    reps = []
    for i, sigs in enumerate(sets):
        key = tuple(sigs)
        if key in first:
            union(i, first[key])
        else:
            first[key] = i
            reps.append(i)
    df = {}
    for sigs in sets:
        for h in sigs:
            df[h] = df.get(h, 0) + 1
    reps.sort(key=lambda i: (len(sets[i]), i))
    ordered = [sorted((df[h], h) for h in sets[i]) for i in reps]
    held = [set(sets[i]) for i in reps]

    def prefix_len(n, share):
        return min(max(n + 2 - math.ceil(share * n), 0), n)

    def at_least(r, o):
        x, y = held[r], held[o]
        small, big = min(len(x), len(y)), max(len(x), len(y))
        if big == 0 or small < t * big:
            return big == 0
        shared = len(x & y)
        return shared / (len(x) + len(y) - shared) >= t

    index = {}
    asked = [-1] * len(reps)
    for r, x in enumerate(ordered):
        for _, h in x[: prefix_len(len(x), t)]:
            for o in index.get(h, ()):
                if asked[o] != r:
                    asked[o] = r
                    if at_least(r, o):
                        union(reps[r], reps[o])
        for _, h in x[: prefix_len(len(x), 2.0 * t / (1.0 + t))]:
            index.setdefault(h, []).append(r)
    number = {}
    group = [number.setdefault(find(i), len(number)) for i in range(len(sets))]
    return group, len(number)


def idf_df_range(n_pages, lo, hi):
    """Step 2: the document frequencies a signature may have to stay in the IDF band [lo, hi],
    as an interval [first, last] of integers (empty when first > last).

    idf(df) = ln(N/df)/ln(N) with N = max(pages, 2), kept unless idf < lo - 1e-12 or
    idf > hi + 1e-12 (src/signature/set.rs). idf falls as df grows, so the kept frequencies are
    an interval, found by bisection with the C library's log (what samecore's f64::ln calls), so
    the band is decided as on the single machine and Spark only compares integers."""
    n = float(max(n_pages, 2))

    def idf(df):
        return math.log(n / float(df)) / math.log(n)

    def first_true(pred):
        """The smallest df in [1, n_pages + 1] where `pred` holds, for a `pred` false then true."""
        a, b = 1, n_pages + 1
        while a < b:
            mid = (a + b) // 2
            if pred(mid):
                b = mid
            else:
                a = mid + 1
        return a

    first = first_true(lambda df: not idf(df) > hi + 1e-12)
    last = first_true(lambda df: idf(df) < lo - 1e-12) - 1
    return first, last


def signed_pages(rows, threshold, min_shared):
    """What the shuffle join needs of each page that takes part in matching, one row per page,
    from the rows of `filtered_rows`:

    - total: its multiset size after the filters;
    - levels: levels[k-1] = its signatures held at least k times. The multiset intersection
      sum_s min(a_s, b_s) equals sum_k |A_k & B_k|, so sizes of array_intersect of plain long
      arrays give it exactly;
    - need: ceil(threshold * total), loosened by SLACK, and at least min_shared: the fewest
      signatures a partner must share with the page, and the smallest partner size
      (J(A,B) <= min/max, SIGIR 2008 s.4);
    - prefix: the first total - need + 1 elements of the page in the global order (SIGMOD 2010
      s.3.1). The multiset is the set of elements (signature, k), k = 1..count, so multiset
      Jaccard is set Jaccard on them; elements are ordered by how many pages hold them
      (ascending), ties by value. Two pages with J >= t share an element of their prefixes.

    Why SLACK keeps every pair: a pair passes when the double inter/union >= t, so the real
    quotient is >= t(1 - 2^-52), hence inter >= t(1 - 2^-52) * total on either side; the
    computed ceil(total * t * (1 - 1e-9)) is at most that, so the prefix is long enough and the
    partner-size bound loose enough."""
    # Per signature: freq[k-1], the matched pages holding it k or more times (any order the
    # whole collection shares makes valid prefixes; this one puts frequent elements last).
    histogram = rows.groupBy("signature", "count").agg(F.count("*").alias("pages"))
    zero = F.lit(0).cast("long")
    stats = (
        histogram.groupBy("signature")
        .agg(F.collect_list(F.struct("count", "pages")).alias("h"))
        .select(
            "signature",
            F.transform(
                F.sequence(F.lit(1), F.array_max(F.transform("h", lambda x: x["count"]))),
                lambda k: F.aggregate(
                    F.filter("h", lambda x: x["count"] >= k), zero, lambda acc, x: acc + x["pages"]
                ),
            ).alias("freq"),
        )
    )
    pages = (
        rows.join(stats, "signature")
        .groupBy("page")
        .agg(
            F.first("total").alias("total"),
            F.collect_list(F.struct(F.col("signature").alias("s"), F.col("count").alias("c"), "freq")).alias(
                "sigs"
            ),
        )
    )
    need = F.greatest(
        F.ceil(F.col("total").cast("double") * F.lit(threshold) * F.lit(1.0 - SLACK)),
        F.lit(min_shared).cast("long"),
    )
    elements = F.flatten(
        F.transform(
            "sigs",
            lambda x: F.transform(
                F.sequence(F.lit(1), x["c"]),
                lambda k: F.struct(F.element_at(x["freq"], k).alias("f"), x["s"].alias("s"), k.alias("k")),
            ),
        )
    )
    levels = F.transform(
        F.sequence(F.lit(1), F.array_max(F.transform("sigs", lambda x: x["c"]))),
        lambda k: F.transform(F.filter("sigs", lambda x: x["c"] >= k), lambda x: x["s"]),
    )
    return pages.select("page", "total", need.alias("need"), "sigs").select(
        "page",
        "total",
        "need",
        levels.alias("levels"),
        F.slice(
            F.array_sort(elements), 1, F.greatest(F.col("total") - F.col("need") + 1, F.lit(0)).cast("int")
        ).alias("prefix"),
    )


def length_bucket(size, threshold):
    """Length partition of a multiset size (SIGIR 2008 s.4): floor(ln(size) / ln(1/t)), so pages
    whose sizes are within a factor t lie in the same or adjacent partitions (one partition per
    size at t = 1). Spark's ln is StrictMath.log, the same monotone function on every executor,
    which is all the join below relies on."""
    if threshold == 1.0:
        return size.cast("long")
    return F.floor(F.ln(size.cast("double")) / F.lit(-math.log(threshold)) + F.lit(SLACK))


def candidate_pairs(vectors, threshold):
    """Distinct (a, b) pairs that share a prefix element (SIGMOD 2010 s.3.2, the self-join on
    prefix tokens) and pass the length filter.

    The join key is (element, length partition): every page indexes its prefix under its own
    partition; the page of the pair with the larger (total, page) probes every partition from
    that of its smallest possible partner size (`need`) to its own, one or two partitions in
    practice. Pages two partitions apart never meet, and a frequent element is split across
    partitions.

    Each pair is kept only where the join meets it at its *first* shared prefix element, so no
    pair is written twice and nothing is left to deduplicate: near-duplicates share most of
    their prefixes, and keeping every meeting wrote many rows per candidate (on 300k generated
    pages at threshold 0.5, 662 million rows, 8 GB of shuffle and 7.8 GB spilled by half of the
    join's tasks, before the disk filled). Each side carries
    the signatures of its prefix elements before the meeting element e, and the row is dropped
    when those overlap. Exact: if both hold elements (s, ka) and (s, kb) before e, both hold
    (s, min(ka, kb)), which is one of the two, so before e in the global order and in both
    prefixes; so sharing a signature before e is sharing an element before e.

    Meeting first at positions i and j (0-based, in the global order) also bounds the overlap:
    every shared element lies at or after them, so it is at most min(total_a - i, total_b - j),
    and J >= t needs an overlap of t / (1 + t) * (total_a + total_b) (positional filtering of
    PPJoin, Xiao, Wang, Lin, Yu, WWW 2008 s.4). Rows whose first meeting lies too deep in
    either prefix cannot make a pair and are dropped in the join: on generated news, pages that
    first meet on a frequent phrase near the end of their prefixes (the loosened bound, like
    the others, never drops a pair that reaches t)."""
    elements = vectors.select(
        "page",
        "total",
        "need",
        F.transform("prefix", lambda e: e["s"]).alias("signatures"),
        F.posexplode("prefix").alias("position", "e"),
    ).withColumn("before", F.slice("signatures", 1, F.col("position")))
    index = elements.select(
        F.col("e.s").alias("s"),
        F.col("e.k").alias("k"),
        length_bucket(F.col("total"), threshold).alias("bucket"),
        F.col("page").alias("a"),
        F.col("total").alias("a_total"),
        F.col("position").alias("a_position"),
        F.col("before").alias("a_before"),
    )
    probes = elements.select(
        F.col("e.s").alias("s"),
        F.col("e.k").alias("k"),
        F.explode(
            F.sequence(length_bucket(F.col("need"), threshold), length_bucket(F.col("total"), threshold))
        ).alias("bucket"),
        F.col("page").alias("b"),
        F.col("total").alias("b_total"),
        F.col("need").alias("b_need"),
        F.col("position").alias("b_position"),
        F.col("before").alias("b_before"),
    )
    smaller = (F.col("a_total") < F.col("b_total")) | (
        (F.col("a_total") == F.col("b_total")) & (F.col("a") < F.col("b"))
    )
    first_meeting = ~F.arrays_overlap("a_before", "b_before")
    overlap_needed = (
        (F.col("a_total") + F.col("b_total")).cast("double") * F.lit(threshold / (1.0 + threshold) * (1.0 - SLACK))
    )
    overlap_left = F.least(F.col("a_total") - F.col("a_position"), F.col("b_total") - F.col("b_position"))
    return (
        index.join(probes, ["s", "k", "bucket"])
        .where(
            smaller
            & (F.col("a_total") >= F.col("b_need"))
            & (overlap_left.cast("double") >= overlap_needed)
            & first_meeting
        )
        .select("a", "b")
    )


def verified_pairs(candidates, vectors, threshold, min_shared):
    """Each candidate's exact multiset intersection and Jaccard, kept when >= the threshold and
    the pages share at least min_shared signatures (samecore's --min-shared)
    (the record join of SIGMOD 2010 s.3.3, with the verification done there). The score is
    inter / (total_a + total_b - inter) in doubles, as samecore computes it.

    Verifying in the prefix join's own rows instead (each side carrying its page's `levels`)
    spares these two joins' shuffles, but makes every row the join meets heavy: on 300k
    generated pages at 0.5 that join did not finish a task in 12 minutes, where with bare rows
    it wrote its 287 million candidates in about two."""

    def side(name):
        return vectors.select(
            F.col("page").alias(name),
            F.col("total").alias(name + "_total"),
            F.col("levels").alias(name + "_levels"),
        )

    la, lb = F.col("a_levels"), F.col("b_levels")
    intersection = F.aggregate(
        F.transform(
            F.sequence(F.lit(1), F.least(F.size(la), F.size(lb))),
            lambda i: F.size(F.array_intersect(F.element_at(la, i), F.element_at(lb, i))),
        ),
        F.lit(0).cast("long"),
        lambda acc, x: acc + x,
    )
    union = F.col("a_total") + F.col("b_total") - F.col("intersection")
    return (
        candidates.join(side("a"), "a")
        .join(side("b"), "b")
        .select("a", "b", "a_total", "b_total", intersection.alias("intersection"))
        .withColumn("score", F.col("intersection").cast("double") / union.cast("double"))
        .where((F.col("score") >= F.lit(threshold)) & (F.col("intersection") >= F.lit(min_shared)))
    )


def filtered_rows(signatures, n_pages, params):
    """Steps 2-3: rows (page, signature, count, total) of the pages that take part in matching,
    `total` being the page's multiset size after the filters; what both joins start from. A
    signature's df counts the pages holding it after the site frame."""
    rows = signatures
    if params["idf_band"] is not None:
        lo, hi = (float(x) for x in params["idf_band"])
        first, last = idf_df_range(n_pages, lo, hi)
        log(f"idf band [{lo}, {hi}] over {max(n_pages, 2)} pages keeps signatures on {first}..{last} pages")
        kept = signatures.groupBy("signature").agg(F.count("*").alias("df")).where(F.col("df").between(first, last))
        rows = signatures.join(kept.select("signature"), "signature")
    min_signatures = max(int(params["min_signatures"]), 1)
    totals = rows.groupBy("page").agg(F.sum("count").alias("total")).where(F.col("total") >= min_signatures)
    return rows.join(totals, "page").select("page", "signature", "count", "total")


class BroadcastIndex:
    """The inverted index of every page that takes part in matching, as NumPy arrays small
    enough to broadcast (about 20 bytes a signature row, 8 more a page), and the pairs of a
    range of pages found by probing it.

    Pages are numbered 0..n-1 in (total, page id) order. A posting is the 64-bit key
    signature_rank * n + page_number with the page's count beside it, and the postings are
    sorted by key, so a signature's postings are one run of the array in page order. A page i
    with `need` = max(ceil(t * total * (1 - SLACK)), min_shared) meets, for each of its
    signatures, the postings of that signature from the first page of total >= need up to
    itself: every page before it in the order that could reach t with it (J <= min/max, SIGIR
    2008 s.4) and shares that signature; no other page and no pair twice. It reads them for
    its prefix signatures only (see `suffix` below); summing min(count_i, count_j) over them
    per partner j, plus the suffix signatures looked up for the partners that can still reach
    t, is the multiset intersection, exactly; the score is then inter / (total_i + total_j -
    inter) in doubles, as samecore and the shuffle join compute it."""

    def __init__(self, table, threshold, min_shared):
        page = table.column("page").to_numpy()
        signature = table.column("signature").to_numpy()
        count = table.column("count").to_numpy().astype(np.int32)
        total = table.column("total").to_numpy().astype(np.int64)
        del table
        pages, page_of_row = np.unique(page, return_inverse=True)
        n = len(pages)
        totals = np.zeros(n, np.int64)
        totals[page_of_row] = total
        order = np.lexsort((pages, totals))  # by total, then page id
        number = np.empty(n, np.int64)
        number[order] = np.arange(n)
        idx = number[page_of_row]
        del page, total, page_of_row, number
        _, rank = np.unique(signature, return_inverse=True)
        del signature
        keys = rank.astype(np.int64) * max(n, 1) + idx
        del rank
        by_key = np.argsort(keys, kind="stable")
        self.n = n
        self.rows = len(keys)
        self.threshold = threshold
        self.min_shared = min_shared
        self.keys = keys[by_key]
        self.counts = count[by_key]
        del keys, count
        # A page's rows, as positions in the sorted keys, page after page.
        self.own = np.argsort(idx[by_key], kind="stable")
        del idx, by_key
        self.start = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(self.keys % max(n, 1), minlength=n), out=self.start[1:])
        self.page = pages[order]
        self.total = totals[order]
        need = np.ceil(self.total.astype(np.float64) * threshold * (1.0 - SLACK)).astype(np.int64)
        need = np.maximum(need, min_shared)
        # The first page of total >= need: the smallest partner a page may have.
        self.first = np.searchsorted(self.total, need, side="left")
        # A page's suffix: of its signatures, those with the most postings to read, as many as
        # hold at most need - 1 occurrences in all. A partner that shares none of the other
        # signatures (its prefix) shares at most need - 1 occurrences: too few. So only the
        # prefix's postings are read, which finds every partner that can reach t, and each
        # suffix signature is looked up for the partners found (WWW 2008 s.3, prefix filtering
        # with a per-page order: any order is exact for the page that probes).
        rows = self.own
        owner = np.repeat(np.arange(n), np.diff(self.start))
        reads = np.maximum(rows - self._low(rows, owner), 0)
        by_reads = np.lexsort((-reads, owner))
        held = np.cumsum(self.counts[rows[by_reads]])
        held -= np.concatenate(([0], held))[self.start[owner[by_reads]]]
        self.suffix = np.zeros(len(rows), bool)
        self.suffix[by_reads] = held <= need[owner[by_reads]] - 1
        del by_reads, held
        # Postings each page reads, and their running sum: the work of a range of pages.
        self.work = np.zeros(n + 1, np.int64)
        prefix_reads = np.where(self.suffix, 0, reads)
        np.cumsum(np.bincount(owner, weights=prefix_reads, minlength=n).astype(np.int64), out=self.work[1:])

    def _low(self, rows, owner):
        """For postings at `rows` of pages `owner`: where the postings of the same signature
        from the page's smallest partner on begin."""
        return np.searchsorted(self.keys, self.keys[rows] - owner + self.first[owner], side="left")

    def chunks(self, at_least):
        """Bounds of ranges of pages of about equal postings: at least `at_least` ranges (fewer
        only when there are fewer pages) and none above CHUNK_POSTINGS postings."""
        total_work = int(self.work[-1])
        k = max(at_least, -(-total_work // CHUNK_POSTINGS), 1)
        cuts = np.searchsorted(self.work, np.linspace(0, total_work, k + 1)[1:-1], side="left")
        return sorted({0, self.n, *(int(c) for c in cuts)})

    def pairs(self, lo, hi):
        """Record batches of the pairs (a, b, a_total, b_total, intersection, score) whose later
        page lies in pages lo..hi-1, a the earlier page: those at or above the threshold whose
        intersection holds at least min_shared signatures (samecore counts occurrences)."""
        n = max(self.n, 1)
        i = lo
        while i < hi:
            # As many pages as keep the postings read at once near GATHER_BATCH (one at least).
            j = int(np.searchsorted(self.work, self.work[i] + GATHER_BATCH, side="right")) - 1
            j = min(max(j, i + 1), hi)
            batch = self._pairs(i, j, n)
            if batch.num_rows:
                yield batch
            i = j

    def _pairs(self, i, j, n):
        rows = self.own[self.start[i] : self.start[j]]
        suffix = self.suffix[self.start[i] : self.start[j]]
        owner = np.repeat(np.arange(i, j), np.diff(self.start[i : j + 1]))
        base = self.keys[rows] - owner  # signature_rank * n
        low = self._low(rows, owner)
        reads = np.where(suffix, 0, np.maximum(rows - low, 0))
        total = int(reads.sum())
        if total == 0:
            return pa.record_batch([pa.array([], pa.int64())] * 5 + [pa.array([], pa.float64())], names=PAIR_COLUMNS)
        # The prefix's postings: every partner, and the occurrences it shares there.
        ends = np.cumsum(reads)
        at = np.arange(total) + np.repeat(low - (ends - reads), reads)
        partner = self.keys[at] - np.repeat(base, reads)
        shared = np.minimum(self.counts[at], np.repeat(self.counts[rows], reads))
        del at
        pair, which = np.unique(np.repeat(owner, reads) * n + partner, return_inverse=True)
        del partner
        inter = np.bincount(which, weights=shared).astype(np.int64)
        del which, shared
        later, earlier = pair // n, pair % n
        a_total, b_total = self.total[earlier], self.total[later]
        # At most the suffix's occurrences more: pairs that cannot reach t even so are dropped
        # unverified. IEEE division is monotone, so the bound's score >= the pair's.
        s_rows, s_owner = rows[suffix], owner[suffix]
        s_held = np.bincount(s_owner - i, weights=self.counts[s_rows], minlength=j - i).astype(np.int64)
        most = np.minimum(inter + s_held[later - i], a_total)
        hopeful = (most.astype(np.float64) / (a_total + b_total - most).astype(np.float64) >= self.threshold) & (
            most >= self.min_shared
        )
        later, earlier, a_total, b_total, inter = (x[hopeful] for x in (later, earlier, a_total, b_total, inter))
        # Each suffix signature of the later page, looked up among the earlier page's postings.
        s_first = np.searchsorted(s_owner, np.arange(i, j + 1))
        looks = s_first[later - i + 1] - s_first[later - i]
        k = int(looks.sum())
        if k:
            ends = np.cumsum(looks)
            row = np.arange(k) + np.repeat(s_first[later - i] - (ends - looks), looks)
            query = (self.keys[s_rows[row]] - s_owner[row]) + np.repeat(earlier, looks)
            found = np.minimum(np.searchsorted(self.keys, query), len(self.keys) - 1)
            hit = self.keys[found] == query
            extra = np.where(hit, np.minimum(self.counts[found], self.counts[s_rows[row]]), 0)
            inter = inter + np.bincount(np.repeat(np.arange(len(later)), looks), weights=extra, minlength=len(later)).astype(np.int64)
        score = inter.astype(np.float64) / (a_total + b_total - inter).astype(np.float64)
        keep = (score >= self.threshold) & (inter >= self.min_shared)
        columns = [self.page[earlier], self.page[later], a_total, b_total, inter, score]
        return pa.record_batch([pa.array(c[keep]) for c in columns], names=PAIR_COLUMNS)


PAIR_COLUMNS = ["a", "b", "a_total", "b_total", "intersection", "score"]
PAIR_SCHEMA = "a long, b long, a_total long, b_total long, intersection long, score double"


def broadcast_pairs(spark, index):
    """The pairs of `index`, found by one task per range of pages of about equal work, each
    probing the broadcast index in a Python worker (mapInArrow). The index goes out as a dict
    of arrays; this module's code goes with the task, by value."""
    if __name__ != "__main__":  # imported (tests): ship the module's code with the closure
        from pyspark import cloudpickle

        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    shipped = spark.sparkContext.broadcast(dict(index.__dict__))
    bounds = index.chunks(4 * spark.sparkContext.defaultParallelism)
    tasks = len(bounds) - 1

    def probe(batches):
        held = BroadcastIndex.__new__(BroadcastIndex)
        held.__dict__.update(shipped.value)
        for batch in batches:
            for task in batch.column("id").to_pylist():
                yield from held.pairs(bounds[task], bounds[task + 1])

    log(
        f"broadcast join: index of {index.rows} signature rows over {index.n} pages, "
        f"{int(index.work[-1])} postings to read in {tasks} tasks"
    )
    return spark.range(0, tasks, 1, max(tasks, 1)).mapInArrow(probe, PAIR_SCHEMA)


def large_star(edges):
    """Kiveris et al. s.2, Large-Star: each node u links every larger neighbour to the smallest
    node of its neighbourhood including itself. Edges are (src, dst) with src > dst."""
    both = edges.select(F.col("src").alias("u"), F.col("dst").alias("v")).union(
        edges.select(F.col("dst").alias("u"), F.col("src").alias("v"))
    )
    smallest = both.groupBy("u").agg(F.min("v").alias("m"))
    return (
        both.join(smallest, "u")
        .where(F.col("v") > F.col("u"))
        .select(F.col("v").alias("src"), F.least("u", "m").alias("dst"))
        .distinct()
    )


def small_star(edges):
    """Kiveris et al. s.2, Small-Star: each node u links itself and its smaller neighbours to the
    smallest of them."""
    smallest = edges.groupBy("src").agg(F.min("dst").alias("m"))
    leaves = (
        edges.join(smallest, "src")
        .where(F.col("dst") != F.col("m"))
        .select(F.col("dst").alias("src"), F.col("m").alias("dst"))
    )
    return leaves.union(smallest.select("src", F.col("m").alias("dst"))).distinct()


def is_star_forest(edges):
    """Whether every node has at most one parent and no parent has a parent: then each star is
    a connected component (both steps keep components) and its centre is its smallest node."""
    two_parents = edges.groupBy("src").count().where(F.col("count") > 1)
    chained = edges.join(edges.select(F.col("src").alias("dst")), "dst", "left_semi")
    return two_parents.isEmpty() and chained.isEmpty()


def connected_components(pairs, materialize):
    """(page, label) for every page of a pair, label the smallest page id of its component:
    Large-Star then Small-Star until the graph is a forest of stars (Kiveris et al. s.2, the
    alternating algorithm, O(log^2 n) rounds). Each round is materialized to cut its lineage.
    Returns the labels and the number of rounds."""
    edges = materialize(
        pairs.select(
            F.greatest("a_page", "b_page").alias("src"), F.least("a_page", "b_page").alias("dst")
        ).distinct()
    )
    rounds = 0
    while not is_star_forest(edges):
        edges = materialize(small_star(large_star(edges)))
        rounds += 1
        log(f"components: round {rounds}, {edges.count()} edges")
    labels = edges.select(F.col("src").alias("page"), F.col("dst").alias("label")).union(
        edges.select(F.col("dst").alias("page"), F.col("dst").alias("label"))
    )
    return labels.distinct(), rounds


def dense_index(spark, df, order, name, materialize, ordered=False):
    """`df` with `name`: each row's 0-based position in the order of its unique column `order`,
    without moving all rows to one task: a range-partitioned sort (unless `ordered`: `df` is
    sorted already, partition after partition), then each partition's offset from the row
    counts of the partitions before it."""
    return numbered_in_order(spark, df if ordered else df.sort(order), name, materialize)[0]


def numbered_in_order(spark, df, name, materialize):
    """`df`, sorted partition after partition, with `name`: each row's 0-based position; and
    the frame `materialize` kept to number it (unpersist it when done). The numbers are a
    projection of that one kept frame: its rows with their partition and place in it
    (monotonically_increasing_id puts the partition in the upper 31 bits, the row within it
    in the lower 33), joined to the partitions' offsets, a table of a row a partition."""
    ordered = materialize(df.withColumn("_row", F.monotonically_increasing_id()))
    part = F.shiftright("_row", 33)
    sizes = sorted(tuple(r) for r in ordered.groupBy(part.alias("_part")).count().collect())
    offsets, at = [], 0
    for p, n in sizes:
        offsets.append((p, at))
        at += n
    table = spark.createDataFrame(offsets, "_part long, _offset long")
    position = F.col("_offset") + F.col("_row").bitwiseAND((1 << 33) - 1)
    numbered = (
        ordered.withColumn("_part", part)
        .join(F.broadcast(table), "_part")
        .withColumn(name, position)
        .drop("_part", "_offset", "_row")
    )
    return numbered, ordered


def run(
    spark,
    shards,
    out,
    threshold,
    overwrite=False,
    checkpoint_dir=None,
    min_shared=DEFAULT_MIN_SHARED,
    join="auto",
    broadcast_rows=DEFAULT_BROADCAST_ROWS,
):
    """The job: read `shards`, write `out`; the run.json written, as a dict."""
    check_threshold(threshold)
    check_min_shared(min_shared)
    check_join(join, broadcast_rows)
    started = time.time()
    files = Files(spark)
    raw_pages, raw_signatures, summary = read_shards(spark, files, shards)
    if files.exists(out):
        if not overwrite:
            raise JobError(f"{out} exists: give --overwrite to replace its outputs, or another --out")
        for part in ("run.json", "pairs.parquet", "clusters.parquet"):
            files.delete(out.rstrip("/") + "/" + part)
    if checkpoint_dir:
        spark.sparkContext.setCheckpointDir(checkpoint_dir)

    def materialize(df):
        return df.checkpoint(eager=True) if checkpoint_dir else df.localCheckpoint(eager=True)

    params = summary["params"]
    log(
        f"{len(summary['shards'])} shard(s) of {summary['algo']}; filters "
        + json.dumps({k: params[k] for k in ("min_signatures", "idf_band", "site_frame")}, sort_keys=True)
    )

    pages = distinct_pages(raw_pages).persist()
    n_pages = pages.count()
    log(f"pages: {n_pages} distinct")
    # count >= 1 always in samecore's shards; a row of 0 would be no occurrence.
    signatures = raw_signatures.where(F.col("count") >= 1).distinct()
    if params["site_frame"] is not None:
        signatures = drop_site_frame(signatures, pages, params["site_frame"])
        log(f"site frame {json.dumps(params['site_frame'], sort_keys=True)}")
    rows = filtered_rows(signatures, n_pages, params).persist()
    if join == "auto":
        n_rows = rows.count()
        join = "broadcast" if n_rows <= broadcast_rows else "shuffle"
        if join == "shuffle":
            log(f"{n_rows} signature rows are more than --broadcast-rows {broadcast_rows}: shuffle join")
    if join == "broadcast":
        index = BroadcastIndex(rows.select("page", "signature", "count", "total").toArrow(), threshold, min_shared)
        # Materialized before the rows go: computed later, it would run the filters again.
        kept = held = materialize(rows.select("page", "total").distinct())
        rows.unpersist()
        n_signed = index.n
        log(f"signed pages: {n_signed} take part in matching (min_signatures {params['min_signatures']})")
        pairs = broadcast_pairs(spark, index)
        del index
    else:
        vectors = signed_pages(rows, threshold, min_shared).persist()
        n_signed = vectors.count()
        rows.unpersist()
        log(f"signed pages: {n_signed} take part in matching (min_signatures {params['min_signatures']})")
        kept = vectors.select("page", "total")
        held = vectors
        pairs = verified_pairs(candidate_pairs(vectors, threshold), vectors, threshold, min_shared)
    keys = pages.select("page", "key")
    pairs = pairs.join(keys.select(F.col("page").alias("a"), F.col("key").alias("a_key0")), "a").join(
        keys.select(F.col("page").alias("b"), F.col("key").alias("b_key0")), "b"
    )
    swap = F.col("a_key0") > F.col("b_key0")

    def ordered(first, second):
        return F.when(swap, F.col(second)).otherwise(F.col(first))

    pairs = pairs.select(
        ordered("a_key0", "b_key0").alias("a_key"),
        ordered("b_key0", "a_key0").alias("b_key"),
        ordered("a", "b").alias("a_page"),
        ordered("b", "a").alias("b_page"),
        "score",
        "intersection",
        ordered("a_total", "b_total").alias("a_signatures"),
        ordered("b_total", "a_total").alias("b_signatures"),
    )
    pairs_path = out.rstrip("/") + "/pairs.parquet"
    pairs.write.mode("overwrite" if overwrite else "errorifexists").parquet(pairs_path)
    # Read back: the written pairs are the components' input, with no lineage to recompute.
    written = spark.read.parquet(pairs_path)
    n_pairs = written.count()
    log(f"pairs: {n_pairs} at threshold {threshold} sharing >= {min_shared} signature(s) -> {pairs_path}")

    labels, rounds = connected_components(written, materialize)
    members = (
        pages.join(kept.select("page", F.col("total").alias("kept")), "page", "left")
        .join(labels, "page", "left")
        .select(
            *IDENTITY,
            F.coalesce("label", "page").alias("cluster_page"),
            F.coalesce("kept", F.lit(0).cast("long")).alias("signatures_kept"),
        )
    )
    members = materialize(members)
    components = members.groupBy("cluster_page").agg(
        F.min("key").alias("first_key"), F.count("*").alias("cluster_size")
    )
    components = dense_index(spark, components, "first_key", "cluster", materialize)
    n_clusters = components.where(F.col("cluster_size") >= 2).count()
    clusters = members.join(components.drop("first_key"), "cluster_page").select(
        *IDENTITY, "cluster", "cluster_page", "cluster_size", "signatures_kept"
    )
    clusters_path = out.rstrip("/") + "/clusters.parquet"
    clusters.write.mode("overwrite" if overwrite else "errorifexists").parquet(clusters_path)
    log(f"clusters: {n_clusters} of 2+ pages after {rounds} round(s) -> {clusters_path}")
    log("clusters are connected components, which chain at low thresholds; "
        "`samecore import-pairs` clusters the pairs without chaining")
    pages.unpersist()
    held.unpersist()

    report = {
        "format": RUN_FORMAT,
        "version": RUN_VERSION,
        "algo": summary["algo"],
        "threshold": threshold,
        "min_shared": min_shared,
        "params": params,
        "inputs": summary["inputs"],
        "shards": summary["shards"],
        "pages": n_pages,
        "matched_pages": n_signed,
        "pairs": n_pairs,
        "clusters": n_clusters,
        "iterations": rounds,
        "join": join,
        "seconds": round(time.time() - started, 3),
        "spark_version": spark.version,
    }
    files.write_text(out.rstrip("/") + "/run.json", json.dumps(report, indent=2) + "\n")
    log(f"done in {report['seconds']} s -> {out}/run.json")
    return report


def default_driver_memory():
    """The driver's memory when the job starts its own JVM (`python3 job.py`, not spark-submit)
    and nothing set it: half of this machine's memory, between 1 and 16 GiB. In local mode the
    driver's JVM is the executor too, and Spark's default of 1 GiB cannot collect the
    broadcast index of a large collection ("Not enough memory to build and broadcast the
    table")."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return "4g"
    return f"{max(1, min(16, total // 2 // (1 << 30)))}g"


def session(master=None, partitions=None, app="samecore-pairs"):
    """The Spark session: spark-submit's master, else --master or SPARK_MASTER, else local[*].
    Shuffles get `partitions` partitions, by default twice the cores in local mode (Spark's
    default on a cluster). Started by python3, the driver gets `default_driver_memory()` unless
    PYSPARK_SUBMIT_ARGS says otherwise."""
    # The job prints its own progress lines; Spark's progress bars would garble them.
    builder = SparkSession.builder.appName(app).config("spark.ui.showConsoleProgress", "false")
    master = master or os.environ.get("SPARK_MASTER")
    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    if master:
        builder = builder.master(master)
    elif not under_submit:
        builder = builder.master("local[*]")
    if not under_submit and "driver-memory" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        builder = builder.config("spark.driver.memory", default_driver_memory())
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    if partitions is None and spark.sparkContext.master.startswith("local"):
        partitions = 2 * (os.cpu_count() or 1)
    if partitions is not None:
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    return spark


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="samecore_pairs.py",
        description="SpotSigs all-pairs matching and connected components over `samecore sign` shards.",
    )
    parser.add_argument(
        "--shards", required=True, help="directory of NAME.{pages,signatures}.parquet and NAME.sign.json"
    )
    parser.add_argument(
        "--out", required=True, help="output directory (pairs.parquet, clusters.parquet, run.json)"
    )
    parser.add_argument("--threshold", required=True, type=float, help="multiset Jaccard threshold in (0, 1]")
    parser.add_argument(
        "--min-shared",
        type=int,
        default=DEFAULT_MIN_SHARED,
        help=f"signatures a pair must share besides the threshold, as samecore's --min-shared (default {DEFAULT_MIN_SHARED})",
    )
    parser.add_argument(
        "--partitions", type=int, help="shuffle partitions (default: 2 x cores in local mode)"
    )
    parser.add_argument(
        "--join",
        choices=JOINS,
        default="auto",
        help="broadcast: probe an inverted index every executor holds; shuffle: prefix self-join, "
        "nothing held (default auto: broadcast up to --broadcast-rows signature rows)",
    )
    parser.add_argument(
        "--broadcast-rows",
        type=int,
        default=DEFAULT_BROADCAST_ROWS,
        help=f"most signature rows --join auto broadcasts (default {DEFAULT_BROADCAST_ROWS}, about 20 bytes each)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace the outputs in an existing --out")
    parser.add_argument(
        "--master", help="Spark master when not run by spark-submit (default: SPARK_MASTER or local[*])"
    )
    parser.add_argument("--checkpoint-dir", help="reliable checkpoints there (default: local checkpoints)")
    args = parser.parse_args(argv)
    try:
        check_threshold(args.threshold)
        check_min_shared(args.min_shared)
        check_join(args.join, args.broadcast_rows)
        if args.partitions is not None and args.partitions < 1:
            raise JobError(f"--partitions {args.partitions} is not a positive number")
        spark = session(args.master, args.partitions)
        try:
            run(
                spark,
                args.shards,
                args.out,
                args.threshold,
                args.overwrite,
                args.checkpoint_dir,
                args.min_shared,
                args.join,
                args.broadcast_rows,
            )
        finally:
            spark.stop()
    except JobError as e:
        print(f"samecore_pairs.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
