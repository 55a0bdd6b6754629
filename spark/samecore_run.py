#!/usr/bin/env python3
"""The whole SpotSigs run in Apache Spark, from archives to the clusters a coder gets: the
pages, pairs and clusters of `samecore run --mode allpairs` on the same archives.

    spark-submit spark/samecore_run.py --archives 'hdfs:///crawl/*.warc.gz' --out OUT
    python3 spark/samecore_run.py --archives 'a.warc.gz' 'b.warc.gz' --out OUT   # local[*]

Every step runs samecore's own code, through the Python package's extension
(`samecore._samecore`, src/detectors/distributed.rs), on the executors where it is parallel:

1. Read and sign, one task per archive (a file, a folder or zip of pages): the archive's pages
   with their raw spot signatures packed into one binary value a page (`spark_sign`), as
   Arrow batches (mapInArrow); no page text reaches Python. From here to the broadcast a
   page's signatures move as that one value: Spark shuffles a row a page, not a row a
   signature.
2. One page per capture (of a capture in two archives, the record of the archive given
   first, as `run` keeps it), numbered in capture order as `run` numbers them (the capture
   key's bytes): the columns that decide it (key, archive, file, offset and the row's place)
   range partitioned by capture key, each range sorted and a capture's rows ranked by a
   window over the key (no second shuffle), the first kept; the numbers from the ranges'
   sizes, joined to the kept signed rows (a broadcast join: the wide rows do not move).
3. The collection-wide filters: the site frame by site (the pages shuffled by site once,
   `spark_site_frame`: samecore's `drop_site_frame` on each task's sites); with an IDF band
   set, the band by one aggregation by signature as `samecore_pairs.py` applies it (the
   signatures unpacked to rows and packed again); the minimum of signatures.
4. Pairs: the filtered pages go to every executor once (a broadcast); each Python worker
   builds samecore's all-pairs index of all pages once (`AllPairsIndex.packed`, kept for its
   next tasks) and each task walks every k-th page of it on the task's cores
   (`AllPairsIndex.pairs`), as `run` walks them all.
5. Declarations (src/matching/mod.rs `declarations_from_pairs`): every pair goes to the
   tasks of both its pages once; each page's best score (for the link share) and the pages
   left alone are found by those tasks and broadcast as arrays of the pages with the
   processing ranks; each task then gives its pages' matches, a page's best link to a page
   earlier in the processing order.
6. Thin bridges (src/matching/bridges.rs), by tree of declarations (the trees' parents and
   links shuffled by tree, `spark_cut_tree` on each of a task's trees): a link is judged by the
   pages and links of its own tree only.
7. On the driver (`spark_finish`): the representative clusters of the declarations left and
   the identical pages joined (src/detectors/exact.rs). It holds every page's declaration and
   the groups of identical pages, about 40 bytes a page, never the pairs.
8. Linked through: a declared page its match in its cluster, any other page of a cluster its
   strongest pair in it; the executors find each undeclared page's strongest pair in their
   pairs against the pages' clusters (broadcast), the driver the strongest of those.
9. The stories (src/headline.rs, src/dates/spread.rs): every page's headline by a task per
   range of sites (`spark_headlines`: what a site repeats in its titles is learnt from its own
   pages), then each cluster's story title, first publishers and lags by a task per range of
   clusters (`spark_stories`).
10. The outputs: every page's cluster columns put together by joins of a few columns a page,
   the wide page rows joined to them once and sorted once for both pages and clusters files.

Writes OUT/pages.parquet (every page: shard columns, doc number, kept signatures),
OUT/pairs.parquet (`run --pairs`'s columns and the `samecore_pairs.py` columns
`samecore import-pairs` reads), OUT/clusters.parquet (`run --clusters`'s columns) and OUT/run.json.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import pyarrow as pa
from pyspark.sql import functions as F
from pyspark.sql import types as T

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import samecore_pairs as sp  # noqa: E402  the filters, the file system, dense numbering

RUN_FORMAT = sp.RUN_FORMAT
# The run.json of this job: version 2 says its clusters are `run`'s (representative, with the
# link rules and identical pages joined), not connected components.
RUN_VERSION = 2

# What `spark_sign` gives per page (src/export/shard.rs ShardPage and PageMore).
PAGE_FIELDS = sp.PAGES_SCHEMA.fields + [
    T.StructField("doc", T.StringType()),
    T.StructField("payload_check", T.LongType()),
    T.StructField("language", T.StringType()),
    T.StructField("title", T.StringType()),
    T.StructField("published_day", T.StringType()),
    T.StructField("published", T.StringType()),
    T.StructField("published_source", T.StringType()),
    T.StructField("title_site", T.StringType()),
]
# A revisit whose original is not in its own archive: what finds the original elsewhere
# (src/archive/mod.rs UnresolvedRevisit), tried in this order.
REVISIT_FIELDS = [
    T.StructField("refers_to", T.StringType()),
    T.StructField("refers_to_url", T.StringType()),
    T.StructField("refers_to_date", T.StringType()),
    T.StructField("ref_digest", T.StringType()),
]
# A page's signatures as the job moves them from step to step: one binary value a page, its
# (hash, count) entries packed (python/src/spark.rs `pack`: 12 bytes an entry), and their
# number. Spark then shuffles a row a page, not a row a signature.
PACKED_FIELDS = [T.StructField("packed", T.BinaryType()), T.StructField("total", T.LongType())]
# What `spark_sign` gives, in one stream: `kind` 0 is a page, 2 a revisit left unresolved;
# `input` the archive the task read.
SIGNED_SCHEMA = T.StructType(
    [T.StructField("kind", T.ByteType()), T.StructField("input", T.StringType())]
    + PAGE_FIELDS
    + PACKED_FIELDS
    + REVISIT_FIELDS
)
PAGE_COLUMNS = [f.name for f in PAGE_FIELDS]
# Up to this many pages, their numbers reach the page rows in a broadcast join (16 bytes a
# page, 320 MiB at the limit); beyond it Spark joins them by shuffling the page rows.
BROADCAST_NUMBERS = 20_000_000


class JobError(sp.JobError):
    """A problem with the input or the command line, reported without a traceback."""


_started = time.time()


def log(message):
    """A progress line on standard error."""
    print(f"[samecore-run {time.time() - _started:7.1f}s] {message}", file=sys.stderr, flush=True)


def extension():
    """The Python package's extension, on the driver or an executor."""
    try:
        from samecore import _samecore
    except ImportError as e:
        raise JobError(
            "the samecore Python package is not installed where this runs "
            f"({e}): pip install it on the driver and ship it to the executors (spark/README.md)"
        ) from e
    return _samecore


def local_copy(uri, scratch):
    """A local path for archive `uri`: itself when it is a local file or folder, else a copy in
    `scratch` made with pyarrow's file systems (S3, GCS, HDFS through libhdfs)."""
    if uri.startswith("file:"):
        path = uri[len("file:"):]
        while path.startswith("//"):
            path = path[1:]
        return path, False
    if "://" not in uri:
        return uri, False
    from pyarrow import fs

    filesystem, path = fs.FileSystem.from_uri(uri)
    target = os.path.join(scratch, os.path.basename(path.rstrip("/")))
    with filesystem.open_input_stream(path) as src, open(target, "wb") as dst:
        while True:
            chunk = src.read(1 << 24)
            if not chunk:
                break
            dst.write(chunk)
    return target, True


def sign_inputs(groups, options):
    """The mapInArrow function of step 1: each row's group (`id`, its position in the
    broadcast `groups`: archives read together and the position of the one whose pages are
    kept) read and signed together by samecore, and the pages of the kept one handed on with
    their signatures and the revisits none of them resolves."""
    schema = sp_to_arrow(SIGNED_SCHEMA)

    def sign(batches):
        import tempfile

        import pyarrow.compute as pc

        native = extension()
        for batch in batches:
            for at in batch.column("id").to_pylist():
                uris, own = groups.value[at]
                with tempfile.TemporaryDirectory(prefix="samecore-") as scratch:
                    local = [local_copy(u, scratch) for u in uris]
                    pages, unresolved, warnings = native.spark_sign([p for p, _ in local], options)
                pages, unresolved = pa.table(pages), pa.table(unresolved)
                pages = pages.filter(pc.equal(pages.column("input"), own)).drop_columns(["input"])
                unresolved = unresolved.filter(pc.equal(unresolved.column("input"), own))
                unresolved = unresolved.rename_columns(
                    ["ref_input" if c == "input" else "ref_digest" if c == "digest" else c for c in unresolved.column_names]
                )
                # Archives copied from remote storage are named as given, not by their copy.
                for (path, copied), uri in zip(local, uris):
                    if copied:
                        at = pages.schema.get_field_index("file")
                        named = pc.if_else(pc.equal(pages.column("file"), os.path.abspath(path)), uri, pages.column("file"))
                        pages = pages.set_column(at, "file", named)
                for w in warnings[:10]:
                    print(f"warning: {w}", file=sys.stderr)
                uri = uris[own]
                yield from stream(pages, 0, uri, schema)
                yield from stream(unresolved, 2, uri, schema)

    return sign


def signed_archives(spark, groups, options):
    """Step 1 over `groups`: (archives read together, the position of the one whose pages are
    kept), a task each."""
    # A range of one id a partition: a task a group, with no shuffle to spread them; the groups
    # reach the executors once each (a broadcast), not inside every task.
    ids = spark.range(0, len(groups), 1, max(len(groups), 1))
    shipped = spark.sparkContext.broadcast([(list(g), own) for g, own in groups])
    return ids.mapInArrow(sign_inputs(shipped, options), SIGNED_SCHEMA)


def with_revisits_resolved(spark, signed, inputs, options):
    """Step 1's second pass: an archive with revisits whose originals are in other archives
    (a crawl deduplicated against an earlier one) is read again together with the archives
    that may hold them — every one with a page of the record id, the capture or the payload
    digest a revisit refers to — in the order given, so samecore resolves them exactly as when
    it reads every archive together. Its pages of the first pass are replaced."""
    refs = signed.where(F.col("kind") == 2).select("input", *[f.name for f in REVISIT_FIELDS])
    # One job over the kind column (limit(1) scans the partitions in growing rounds).
    if refs.count() == 0:
        return signed, 0
    pages = signed.where(F.col("kind") == 0).select(F.col("input").alias("holder"), "record_id", "url", "date", "digest")
    by = [
        refs.join(pages, refs.refers_to == pages.record_id),
        refs.join(pages, (refs.refers_to_url == pages.url) & (refs.refers_to_date == pages.date)),
        refs.join(pages, refs.ref_digest == pages.digest),
    ]
    holders = by[0].select("input", "holder")
    for b in by[1:]:
        holders = holders.unionByName(b.select("input", "holder"))
    found = {}
    for row in holders.where(F.col("input") != F.col("holder")).distinct().collect():
        found.setdefault(row["input"], set()).add(row["holder"])
    if not found:
        return signed, 0
    position = {uri: i for i, uri in enumerate(inputs)}
    groups = []
    for uri, others in sorted(found.items(), key=lambda kv: position[kv[0]]):
        together = sorted(others | {uri}, key=position.get)
        groups.append((together, together.index(uri)))
    log(f"revisits: {len(groups)} archive(s) read again with the archives holding their originals")
    again = signed_archives(spark, groups, options)
    return signed.where(~F.col("input").isin(list(found))).unionByName(again), len(groups)


def sp_to_arrow(schema):
    """The Arrow schema of a Spark struct type of the few types used here."""
    types = {
        T.ByteType(): pa.int8(),
        T.StringType(): pa.string(),
        T.LongType(): pa.int64(),
        T.IntegerType(): pa.int32(),
        T.BinaryType(): pa.binary(),
    }
    return pa.schema([pa.field(f.name, types[f.dataType]) for f in schema.fields])


def stream(table, kind, uri, schema, rows=1 << 16):
    """`table`'s rows in `schema` (its missing columns null), `kind` and `input` set, as
    batches of at most `rows` rows."""
    n = len(table)
    columns = []
    for field in schema:
        if field.name == "kind":
            columns.append(pa.array(np.full(n, kind, np.int8)))
        elif field.name == "input":
            columns.append(pa.array([uri] * n, pa.string()))
        elif field.name in table.column_names:
            columns.append(table.column(field.name).cast(field.type))
        else:
            columns.append(pa.nulls(n, field.type))
    yield from pa.Table.from_arrays(columns, schema=schema).to_batches(rows)


def list_archives(files, patterns):
    """Every archive the patterns name (Hadoop globs: a file, a folder of pages, a zip), by
    qualified path, each once, in the order given (a glob's by name): the order `samecore run`
    reads them in, which decides which of two originals of a revisit is taken."""
    found, seen = [], set()
    for pattern in patterns:
        matched = files.glob(pattern)
        if not matched:
            raise JobError(f"{pattern}: no archive there")
        for path, _ in matched:
            if path not in seen:
                seen.add(path)
                found.append(path)
    return found


def one_per_capture(spark, pages, inputs):
    """Step 2's pages (with the `input` each came from), one row per capture, in capture order
    partition after partition: of a capture in two archives, its row of the archive given
    first (then the first in the archive), as `run` keeps the first it reads. A range
    partitioning by capture key, each partition sorted by key and a capture's rows ranked in
    it (a window by key: the range partitioning already holds each key's rows together, so it
    adds no shuffle), the first of each kept; in Spark's own rows, not through Python."""
    from pyspark.sql.window import Window

    given = spark.createDataFrame([(uri, i) for i, uri in enumerate(inputs)], "input string, given long")
    pages = pages.join(F.broadcast(given), "input").drop("input")
    first = F.row_number().over(Window.partitionBy("key").orderBy("given", "file", "offset"))
    return (
        pages.repartitionByRange("key")
        .withColumn("_first", first)
        .where(F.col("_first") == 1)
        .drop("_first", "given")
    )


def site_frame_by_site(pages, frame):
    """Step 3's site frame: samecore's `drop_site_frame` on the pages of each site together (a
    site with fewer pages than the frame's minimum keeps everything; every page of the site
    counts, signed or not), the pages shuffled by site once and each task's sites framed in
    one call (`spark_site_frame`). `pages` has `doc`, `site`, `packed` and `total`; so has the
    result, without `site`."""
    frame_json = json.dumps(frame)

    def framed(batches):
        table = whole_partition(batches)
        if table is not None:
            table = table.select(["doc", "site", "packed"])
            yield from pa.table(extension().spark_site_frame(table, frame_json)).to_batches()

    return (
        pages.select("doc", "site", "packed")
        .repartition("site")
        .sortWithinPartitions("site", "doc")
        .mapInArrow(framed, "doc long, packed binary, total long")
    )


def idf_band(spark, pages, n, params):
    """Step 3's IDF band (when one is set) and the minimum of signatures: the packed signatures
    as rows (`spark_unpack`), the band by one aggregation by signature and the minimum by one by
    page (`samecore_pairs.filtered_rows`), then packed again a task per range of pages
    (`spark_pack`)."""

    def unpack(batches):
        native = extension()
        for batch in batches:
            yield from pa.table(native.spark_unpack(batch)).to_batches()

    def pack(batches):
        table = whole_partition(batches)
        if table is not None:
            yield from pa.table(extension().spark_pack(table.select(["doc", "signature", "count"]))).to_batches()

    rows = pages.select("doc", "packed").mapInArrow(unpack, "doc long, signature long, count int")
    kept = sp.filtered_rows(rows.withColumnRenamed("doc", "page"), n, params).withColumnRenamed("page", "doc")
    return (
        kept.select("doc", "signature", "count")
        .repartition("doc")
        .sortWithinPartitions("doc")
        .mapInArrow(pack, "doc long, packed binary, total long")
    )


def index_pairs(spark, rows, n, spec, tasks):
    """Step 4: every pair of the filtered pages (doc, packed), found by `tasks` tasks, each
    walking every tasks-th page of samecore's all-pairs index."""
    table = rows.select(F.col("doc").cast("int"), "packed").toArrow()
    packed = table.column("packed").combine_chunks().cast(pa.large_binary())
    _, offsets, data = packed.buffers()
    offsets = np.frombuffer(offsets, "<i8")[packed.offset : packed.offset + len(packed) + 1]
    arrays = (
        table.column("doc").to_numpy().astype("<u4").tobytes(),
        offsets.tobytes(),
        data.to_pybytes() if data is not None else b"",
    )
    log(f"index: {len(table)} pages, {sum(len(a) for a in arrays) >> 20} MiB broadcast")
    del table, packed, data
    shipped = spark.sparkContext.broadcast(arrays)
    spec_text = json.dumps(spec)
    # What names this index in a worker's cache (the broadcast's own id is the JVM's).
    name = f"{os.getpid()}-{time.time_ns()}"

    def walk(batches):
        native = extension()
        cache = worker_cache()
        held = cache.get(name)
        if held is None:
            cache.clear()
            docs, offsets, data = shipped.value
            held = cache[name] = native.AllPairsIndex.packed(n, docs, offsets, data, spec_text)
        cores = task_cores()
        for batch in batches:
            for k in batch.column("id").to_pylist():
                yield from pa.table(held.pairs(k, tasks, cores)).cast(PAIRS_ARROW).to_batches()

    return spark.range(0, tasks, 1, tasks).mapInArrow(walk, "a int, b int, score double"), shipped


def task_cores():
    """The cores Spark gives a task (`spark.task.cpus`): a walk of the index runs on that many
    threads, not on every core of the machine. An executor runs a task on each of its cores,
    and a pool of every core in each task made the walks of two one-core workers on two cores
    run four threads over two copies of the index: at a million pages a part's walk took
    50 s on two threads and 42 s on one."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.cpus() if context is not None else None


def worker_cache():
    """The index a Python worker built, by broadcast id, in a module of its own so it outlives
    the task (a task's functions arrive by value, with globals of their own): the worker's next
    tasks of the same job reuse it (Spark reuses Python workers, spark.python.worker.reuse)."""
    import types

    name = "samecore_run_worker_cache"
    return sys.modules.setdefault(name, types.ModuleType(name)).__dict__.setdefault("indexes", {})


PAIRS_ARROW = pa.schema([("a", pa.int32()), ("b", pa.int32()), ("score", pa.float64())])


def declarations(spark, pairs, n, ranks, rules, materialize):
    """Step 5: each page's declared match (d, x, score) from the pairs, as
    `declarations_from_pairs` makes them with duplicates added to the index, and the links
    (d, x) with d < x that the link rules keep, for the thin bridges. Every pair goes to the
    tasks of both its pages once (one shuffle); each page's best score, the pages refused
    that stay alone and the processing ranks then reach every task as arrays of the pages,
    and each task decides for its own pages."""
    both = pairs.select(F.col("a").alias("d"), F.col("b").alias("x"), "score").unionByName(
        pairs.select(F.col("b").alias("d"), F.col("a").alias("x"), "score")
    )
    by_page = materialize(both.repartition("d"))
    share = float(rules["share"])

    def columns(table):
        return (
            table.column("d").to_numpy().astype(np.int64),
            table.column("x").to_numpy().astype(np.int64),
            table.column("score").to_numpy().astype(np.float64),
        )

    def per_page(values, d):
        """The pages of rows `d` once each, and each one's maximum of `values` over its rows."""
        mine, at = np.unique(d, return_inverse=True)
        top = np.full(len(mine), -np.inf)
        np.maximum.at(top, at, values)
        return mine, top

    def linked(d, x, score, b):
        """Which rows keep the link share: a pair within `share` of both its pages' best."""
        return (score >= share * b[d]) & (score >= share * b[x])

    best = alone = None
    if share > 0:
        # Each page's best score, by the tasks holding its rows.
        def best_of(batches):
            table = whole_partition(batches)
            if table is None:
                return
            d, _, score = columns(table)
            mine, top = per_page(score, d)
            yield pa.record_batch({"d": mine, "best": top})

        table = by_page.mapInArrow(best_of, "d long, best double").toArrow()
        best_np = np.full(n, -np.inf)
        best_np[table.column("d").to_numpy()] = table.column("best").to_numpy()
        best = spark.sparkContext.broadcast(best_np)
        if rules["refused_stays_alone"]:
            # A page whose best pair fails the link share stays alone.
            def alone_of(batches):
                table = whole_partition(batches)
                if table is None:
                    return
                d, x, score = columns(table)
                b = best.value
                mine, best_link = per_page(np.where(linked(d, x, score, b), score, -np.inf), d)
                yield pa.record_batch({"d": mine[best_link < b[mine]]})

            table = by_page.mapInArrow(alone_of, "d long").toArrow()
            alone_np = np.zeros(n, bool)
            alone_np[table.column("d").to_numpy()] = True
            alone = spark.sparkContext.broadcast(alone_np)
    shipped_ranks = spark.sparkContext.broadcast(ranks)

    def declare(batches):
        """A task's pages' declarations (kind 0: d, x, score) and their links with d < x
        (kind 1)."""
        table = whole_partition(batches)
        if table is None:
            return
        d, x, score = columns(table)
        link = np.ones(len(d), bool)
        if best is not None:
            link = linked(d, x, score, best.value)
            if alone is not None:
                link &= ~alone.value[d] & ~alone.value[x]
        d, x, score = d[link], x[link], score[link]
        rank = shipped_ranks.value
        earlier = rank[x] < rank[d]
        ed, ex, es = d[earlier], x[earlier], score[earlier]
        # Guess::Best: the highest score, then the page processed first.
        order = np.lexsort((rank[ex], -es, ed))
        ed, ex, es = ed[order], ex[order], es[order]
        first = np.ones(len(ed), bool)
        first[1:] = ed[1:] != ed[:-1]
        kinds = [np.zeros(int(first.sum()), np.int8)]
        ds, xs, ss = [ed[first]], [ex[first]], [es[first]]
        up = d < x
        kinds.append(np.ones(int(up.sum()), np.int8))
        ds.append(d[up])
        xs.append(x[up])
        ss.append(score[up])
        yield pa.record_batch(
            {"kind": np.concatenate(kinds), "d": np.concatenate(ds), "x": np.concatenate(xs),
             "score": np.concatenate(ss)}
        )

    decided = materialize(by_page.mapInArrow(declare, "kind byte, d long, x long, score double"))
    by_page.unpersist()
    declared = decided.where(F.col("kind") == 0).select("d", "x", "score")
    links = decided.where(F.col("kind") == 1).select("d", "x")
    return declared, links, [b for b in (best, alone, shipped_ranks) if b is not None]


def trees_of(declared, n):
    """Each page's tree of declarations (its root) and the size of each, on the driver from the
    declarations (d, x): NumPy pointer doubling over one array of the pages."""
    parent = np.arange(n, dtype=np.int64)
    parent[declared["d"]] = declared["x"]
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            break
        parent = grand
    return parent


def cut_bridges(spark, links, declared, root, fraction, n):
    """Step 6: the pages whose declaration a thin bridge cuts, by tree (a task judges its trees
    one by one). Only trees of at least twice `MIN_SIDE` (2) pages have a link to judge."""
    sizes = np.bincount(root, minlength=n)
    big = sizes[root] >= 4
    docs = np.nonzero(big)[0]
    if len(docs) == 0 or fraction <= 0:
        return np.zeros(0, np.int64), 0
    order = np.lexsort((docs, root[docs]))
    docs = docs[order]
    trees = root[docs]
    starts = np.searchsorted(trees, trees)  # first position of each page's tree
    local = np.arange(len(docs)) - starts
    local_of = np.full(n, -1, np.int64)
    local_of[docs] = local
    parent_doc = np.full(n, -1, np.int64)
    parent_doc[declared["d"]] = declared["x"]
    parent_local = np.where(parent_doc[docs] >= 0, local_of[np.maximum(parent_doc[docs], 0)], -1)
    members = spark.createDataFrame(
        pa.table({"doc": docs.astype(np.int32), "tree": trees.astype(np.int32), "local": local.astype(np.int32)})
    )
    parents = spark.createDataFrame(
        pa.table(
            {
                "tree": trees.astype(np.int32),
                "kind": np.zeros(len(docs), np.int8),
                "p": local.astype(np.int32),
                "q": parent_local.astype(np.int32),
            }
        )
    )
    a = members.select(F.col("doc").alias("d"), F.col("tree"), F.col("local").alias("p"))
    b = members.select(F.col("doc").alias("x"), F.col("tree").alias("x_tree"), F.col("local").alias("q"))
    inside = (
        links.where(F.col("d") < F.col("x"))
        .join(a, "d")
        .join(b, "x")
        .where(F.col("tree") == F.col("x_tree"))
        .select("tree", F.lit(1).cast("byte").alias("kind"), "p", "q")
    )

    def judge(batches):
        """The cut pages of a task's trees, tree by tree: one call into samecore a tree, not
        one Arrow batch a tree (a million pages: 96k trees)."""
        table = whole_partition(batches)
        if table is None:
            return
        native = extension()
        order = np.argsort(table.column("tree").to_numpy(), kind="stable")
        tree, kind, p, q = (table.column(c).to_numpy()[order] for c in ("tree", "kind", "p", "q"))
        starts = np.flatnonzero(np.r_[True, tree[1:] != tree[:-1]])
        trees, cuts = [], []
        for start, end in zip(starts, np.r_[starts[1:], len(tree)]):
            is_parent = kind[start:end] == 0
            tp, tq = p[start:end], q[start:end]
            parents = np.full(int(is_parent.sum()), -1, np.int64)
            parents[tp[is_parent]] = tq[is_parent]
            cut = native.spark_cut_tree(
                parents.astype("<i8").tobytes(),
                tp[~is_parent].astype("<u4").tobytes(),
                tq[~is_parent].astype("<u4").tobytes(),
                fraction,
            )
            cut = np.frombuffer(cut, "<u4").astype(np.int32)
            trees.append(np.full(len(cut), tree[start], np.int32))
            cuts.append(cut)
        if cuts:
            yield pa.record_batch({"tree": np.concatenate(trees), "local": np.concatenate(cuts)})

    cut = (
        parents.unionByName(inside)
        .repartition("tree")
        .mapInArrow(judge, "tree int, local int")
        .join(members, ["tree", "local"])
        .select("doc")
        .toArrow()
    )
    return cut.column("doc").to_numpy().astype(np.int64), int(np.count_nonzero(sizes >= 4))


def whole_partition(batches):
    """The Arrow batches of a partition as one table (None when it has none)."""
    batches = list(batches)
    return pa.Table.from_batches(batches) if batches else None


def stories(pages, clusters, tasks):
    """Step 9: each page's cluster's story title, and whether it is among its story's first
    publishers and its lag after them (`run --clusters`'s `story_title`, `first_publisher`,
    `lag_seconds`): every page's headline by a task per range of sites (what a site repeats in
    its titles is learnt from its own pages, `spark_headlines`), then each cluster's story by a
    task per range of clusters (`spark_stories`). Two shuffles of a row of titles per page,
    each into `tasks` tasks (named, so Spark does not merge them into fewer: the work is the
    titles', not the bytes')."""

    def headlines(batches):
        table = whole_partition(batches)
        if table is None:
            return
        found = pa.table(extension().spark_headlines(table.select(["title_site", "title"])))
        yield from pa.table(
            {"doc_number": table.column("doc_number"), "headline": found.column("headline"),
             "on_site": found.column("on_site").cast(pa.int64())}
        ).to_batches()

    headed = (
        pages.select("doc_number", "title_site", "title")
        .repartition(tasks, "title_site")
        .sortWithinPartitions("title_site")
        .mapInArrow(headlines, "doc_number long, headline string, on_site long")
    )
    columns = ["cluster", "representative", "title_site", "title", "headline", "on_site", "site",
               "published", "published_source", "date"]

    def story(batches):
        table = whole_partition(batches)
        if table is None:
            return
        told = pa.table(extension().spark_stories(table.select(columns)))
        yield from pa.table(
            {"doc_number": table.column("doc_number"), "story_title": told.column("story_title"),
             "first_publisher": told.column("first_publisher"), "lag_seconds": told.column("lag_seconds")}
        ).to_batches()

    members = (
        clusters.select(F.col("doc").cast("long").alias("doc_number"), F.col("cluster").cast("long"), "representative")
        .join(pages.select("doc_number", "title_site", "title", "site", "published", "published_source", "date"), "doc_number")
        .join(headed, "doc_number")
    )
    return (
        members.repartition(tasks, "cluster")
        .sortWithinPartitions("cluster", "doc_number")
        .mapInArrow(story, "doc_number long, story_title string, first_publisher boolean, lag_seconds long")
    )


def strongest_of_each(d, y, a, b, score):
    """Of rows (page `d`, its other page `y`, the pair `a`, `b`, `score`), each page's strongest:
    the highest score, then the smallest a, then the smallest b; as columns."""
    order = np.lexsort((b, a, -score, d))
    d, y, a, b, score = d[order], y[order], a[order], b[order], score[order]
    first = np.ones(len(d), bool)
    first[1:] = d[1:] != d[:-1]
    return {"d": d[first], "y": y[first], "a": a[first], "b": b[first], "score": score[first]}


def linked_through(spark, all_pairs, clusters, threshold):
    """Step 8: `clusters` (doc, cluster, representative, declared_to, declared_score; a row a
    page in doc order, as `spark_finish` gives them, on the driver) with every page's `link_doc` and `link_raw`, as
    `run --clusters` gives them: a declared page its match when the match is in its cluster; a
    page of a cluster declared to no page its strongest pair at or above `threshold` inside its
    cluster (the highest score, then the smallest a, then the smallest b). The pages' clusters
    and whether each is declared go to every task (4 and 1 bytes a page); a task gives each
    undeclared page of its pairs its strongest one, and the driver keeps the strongest of those."""
    cluster = clusters.column("cluster").to_numpy().astype(np.int32)
    declared_to = clusters.column("declared_to")
    undeclared = declared_to.is_null().to_numpy(zero_copy_only=False)
    shipped = spark.sparkContext.broadcast((cluster, undeclared))

    def strongest(batches):
        c, free = shipped.value
        for batch in batches:
            a = batch.column("a").to_numpy().astype(np.int64)
            b = batch.column("b").to_numpy().astype(np.int64)
            score = batch.column("score").to_numpy().astype(np.float64)
            inside = (c[a] == c[b]) & (score >= threshold)
            a, b, score = a[inside], b[inside], score[inside]
            d = np.concatenate([a, b])
            y = np.concatenate([b, a])
            aa, bb, ss = np.concatenate([a, a]), np.concatenate([b, b]), np.concatenate([score, score])
            mine = free[d]
            yield pa.record_batch(strongest_of_each(d[mine], y[mine], aa[mine], bb[mine], ss[mine]))

    found = all_pairs.select("a", "b", "score").mapInArrow(
        strongest, "d long, y long, a long, b long, score double").toArrow()
    shipped.unpersist()
    best = strongest_of_each(*(found.column(c).to_numpy() for c in ("d", "y", "a", "b", "score")))
    n = len(cluster)
    strong_to = np.full(n, -1, np.int64)
    strong_score = np.zeros(n)
    strong_to[best["d"]] = best["y"]
    strong_score[best["d"]] = best["score"]
    to = declared_to.fill_null(-1).to_numpy().astype(np.int64)
    in_cluster = (to >= 0) & (cluster[np.maximum(to, 0)] == cluster)
    link_doc = np.where(in_cluster, to, np.where(undeclared, strong_to, -1))
    declared_score = clusters.column("declared_score").fill_null(0.0).to_numpy()
    link_raw = np.where(in_cluster, declared_score, strong_score)
    none = link_doc < 0
    return pa.table({
        "doc": clusters.column("doc"),
        "cluster": clusters.column("cluster"),
        "representative": clusters.column("representative"),
        "link_doc": pa.array(link_doc, pa.int64(), mask=none),
        "link_raw": pa.array(link_raw, pa.float64(), mask=none),
    })


def ship_by_value():
    """Imported rather than run (the tests), the job's functions go to the executors by value,
    with this module's code."""
    if __name__ != "__main__":
        from pyspark import cloudpickle

        cloudpickle.register_pickle_by_value(sys.modules[__name__])


def run(
    spark,
    archives,
    out,
    threshold=None,
    overwrite=False,
    options=None,
    tasks=None,
    checkpoint_dir=None,
):
    """The job: read `archives` (patterns), write `out`; the run.json written, as a dict."""
    native = extension()
    ship_by_value()
    started = time.time()
    files = sp.Files(spark)
    inputs = list_archives(files, archives)
    if checkpoint_dir:
        spark.sparkContext.setCheckpointDir(checkpoint_dir)

    def materialize(df):
        """`df` computed once and kept: checkpointed to `checkpoint_dir` when given, else
        cached, its lineage kept so a lost executor's part is computed again."""
        if checkpoint_dir:
            return df.checkpoint(eager=True)
        df = df.persist()
        df.count()
        return df

    if files.exists(out) and not files.is_dir(out):
        raise JobError(f"{out} is a file, not a folder of outputs: nothing was written; give another --out")
    if files.exists(out):
        if not overwrite:
            raise JobError(f"{out} exists: give --overwrite to replace its outputs, or another --out")
        for part in ("run.json", "pages.parquet", "pairs.parquet", "clusters.parquet"):
            files.delete(out.rstrip("/") + "/" + part)
    spec = json.loads(native.spark_default_spec())
    matching = spec["matching"]
    if threshold is not None:
        sp.check_threshold(threshold)
        matching["threshold"] = threshold
    threshold = matching["threshold"]
    params = json.loads(native.spark_sign_params(options))
    parallelism = spark.sparkContext.defaultParallelism
    tasks = tasks or 2 * parallelism
    # The executors import samecore_pairs for the site frame's copy groups.
    spark.sparkContext.addPyFile(sp.__file__)
    log(f"{len(inputs)} archive(s), {parallelism} core(s); threshold {threshold}; filters "
        + json.dumps({k: params[k] for k in ("min_signatures", "idf_band", "site_frame")}, sort_keys=True))

    # 1. Read and sign, a task per archive; then the archives whose revisits refer to others.
    signed = materialize(signed_archives(spark, [([i], 0) for i in inputs], options))
    first, (signed, reread) = signed, with_revisits_resolved(spark, signed, inputs, options)
    if reread:
        signed = materialize(signed)
        first.unpersist()
    # Each signed page named by its place in the kept frame (its partition and row there).
    raw_pages = (
        signed.where(F.col("kind") == 0)
        .select("input", *PAGE_COLUMNS, "packed", "total")
        .withColumn("_signed", F.monotonically_increasing_id())
    )

    # 2. Pages: one per capture (a capture in two archives: its row of the archive given
    #    first), numbered in capture order. Only the columns that decide it are shuffled and
    #    sorted; the numbers reach the wide rows where they are kept (a broadcast join while
    #    the numbers are few enough, 16 bytes a page).
    once = one_per_capture(spark, raw_pages.select("_signed", "input", "key", "file", "offset"), inputs)
    numbered_rows, kept_numbers = sp.numbered_in_order(spark, once, "doc_number", materialize)
    numbers = numbered_rows.select("_signed", "doc_number")
    n = kept_numbers.count()
    if n <= BROADCAST_NUMBERS:
        numbers = F.broadcast(numbers)
    numbered = raw_pages.drop("input").join(numbers, "_signed").drop("_signed")
    pages = numbered.drop("packed", "total")
    log(f"read and signed: {n} pages")
    if n == 0:
        raise JobError("the archives hold no page")

    # 3. The collection-wide filters: the site frame, the IDF band, the minimum of signatures.
    rows = numbered.select(F.col("doc_number").alias("doc"), "site", "packed", "total")
    if params["site_frame"] is not None:
        rows = site_frame_by_site(rows, params["site_frame"])
    if params["idf_band"] is not None:
        rows = idf_band(spark, rows, n, params)
    else:
        rows = rows.where(F.col("total") >= max(int(params["min_signatures"]), 1))
    rows = materialize(rows.select("doc", "packed", "total"))
    kept = rows.select("doc", "total")

    # 4. Pairs.
    found, shipped = index_pairs(spark, rows, n, spec, tasks)
    found = materialize(found)
    n_found = found.count()
    shipped.unpersist()
    log(f"pairs: {n_found} at {threshold} ({tasks} task(s) walking the index)")

    # 5. Declarations.
    ranks = np.frombuffer(native.spark_processing_ranks(n, int(matching["seed"])), "<u4")
    rules = {
        "share": matching["link_share"],
        "refused_stays_alone": matching["refused_stays_alone"],
        "cross_links": matching["cross_links"],
    }
    declared, links, arrays = declarations(spark, found, n, ranks, rules, materialize)
    table = declared.toArrow()
    for shipped_array in arrays:
        shipped_array.unpersist()
    declared_np = {
        "d": table.column("d").to_numpy().astype(np.int64),
        "x": table.column("x").to_numpy().astype(np.int64),
        "score": table.column("score").to_numpy().astype(np.float64),
    }
    log(f"declarations: {len(table)} pages declared duplicates")

    # 6. Thin bridges.
    root = trees_of(declared_np, n)
    cut, n_trees = cut_bridges(spark, links, declared_np, root, float(rules["cross_links"]), n)
    keep = ~np.isin(declared_np["d"], cut)
    log(f"thin bridges: {len(cut)} declaration(s) cut in {n_trees} tree(s) of 4+ pages")

    # 7. Clusters, identical pages joined.
    groups = (
        pages.where(F.col("digest").isNotNull())
        .groupBy("digest", "payload_check")
        .agg(F.collect_list("doc_number").alias("docs"))
        .where(F.size("docs") > 1)
        .select("docs")
        .toArrow()
    )
    members = groups.column("docs").combine_chunks()
    group_docs = members.flatten().to_numpy().astype("<u4")
    group_sizes = np.diff(members.offsets.to_numpy()).astype("<u4")
    clusters_table, extra = native.spark_finish(
        n,
        declared_np["d"][keep].astype("<u4").tobytes(),
        declared_np["x"][keep].astype("<u4").tobytes(),
        declared_np["score"][keep].astype("<f8").tobytes(),
        group_docs.tobytes(),
        group_sizes.tobytes(),
        json.dumps(spec),
    )
    clusters_table = pa.table(clusters_table).cast(
        pa.schema([("doc", pa.int32()), ("cluster", pa.int32()), ("representative", pa.bool_()),
                   ("declared_to", pa.int32()), ("declared_score", pa.float64())]))
    extra = pa.table(extra).cast(PAIRS_ARROW)
    log(f"identical pages: {len(group_sizes)} group(s), {len(extra)} pair(s) of 1")
    all_pairs = found.withColumn("matched", F.lit(True))
    if len(extra):
        ones = spark.createDataFrame(extra).withColumn("matched", F.lit(False))
        all_pairs = (
            all_pairs.unionByName(ones)
            .groupBy("a", "b")
            .agg(F.max("score").alias("score"), F.max("matched").alias("matched"))
        )
    all_pairs = materialize(all_pairs)

    # Linked through: a declared page its match, in its cluster; any other page of a cluster its
    # strongest pair in the cluster (the first in (a, b) order of equal ones): each task's
    # strongest pairs of such pages, one a page, collected and reduced on the driver; every
    # page's link then put beside its cluster there.
    clusters = materialize(spark.createDataFrame(linked_through(spark, all_pairs, clusters_table, threshold)))
    # Outputs. Every page's cluster columns put together by narrow joins of a few columns a
    # page; the wide page rows joined to them once, sorted once, and kept: the pages and
    # clusters files are made from them, and so are the pages' names beside each pair.
    out_dir = out.rstrip("/")
    mode = "overwrite" if overwrite else "errorifexists"
    linked_key = pages.select(F.col("doc_number").alias("link_doc"), F.col("doc").alias("linked_through"))
    per_page = (
        clusters.withColumn("doc_number", F.col("doc").cast("long"))
        .join(stories(pages, clusters, 4 * parallelism), "doc_number")
        .join(kept.select(F.col("doc").alias("doc_number"), F.col("total").alias("signatures_kept")), "doc_number", "left")
        .join(linked_key, "link_doc", "left")
        .select(
            "doc_number", "cluster", "representative", "linked_through",
            (F.round(F.col("link_raw") * 1e6) / 1e6).alias("link_score"),
            "story_title", "first_publisher", "lag_seconds",
            F.coalesce("signatures_kept", F.lit(0).cast("long")).alias("signatures_kept"),
        )
    )
    every = materialize(pages.join(per_page, "doc_number").orderBy("doc_number"))
    page_columns = ["doc_number"] + [c for c in pages.columns if c != "doc_number"] + ["signatures_kept"]
    every.select(*page_columns).write.mode(mode).parquet(out_dir + "/pages.parquet")
    cluster_rows = every.select(
        "doc", "cluster", "representative", "key", "record_id", "url",
        F.col("timestamp").alias("capture_timestamp"), "file", "offset", "length", "digest",
        F.coalesce("site", F.lit("")).alias("site"), "linked_through", "link_score",
        "language", "title", "story_title", "published_day", "published", "published_source",
        "first_publisher", "lag_seconds", "doc_number", F.col("page"), "gold", "signatures_kept",
    )
    cluster_rows.write.mode(mode).parquet(out_dir + "/clusters.parquet")
    named = ("doc_number", "doc", "key", "url", "timestamp", "record_id", "page", "signatures_kept")

    def side(s):
        return every.select(*[F.col(c).alias(f"{s}_{c}") for c in named])

    pair_rows = (
        all_pairs.join(side("a"), F.col("a") == F.col("a_doc_number"))
        .join(side("b"), F.col("b") == F.col("b_doc_number"))
        .select(
            "a_doc", "b_doc", "score", "a_key", "b_key", "a_url", "b_url", "a_timestamp", "b_timestamp",
            "a_record_id", "b_record_id", "a_page", "b_page",
            F.col("a_signatures_kept").alias("a_signatures"), F.col("b_signatures_kept").alias("b_signatures"),
            "matched", F.col("a").alias("a_doc_number"), F.col("b").alias("b_doc_number"),
        )
    )
    pair_rows.orderBy("a_doc_number", "b_doc_number").write.mode(mode).parquet(out_dir + "/pairs.parquet")
    n_pairs = all_pairs.count()
    n_clusters = clusters.groupBy("cluster").count().where(F.col("count") >= 2).count()
    report = {
        "format": RUN_FORMAT,
        "version": RUN_VERSION,
        "algo": "spotsigs",
        "threshold": threshold,
        "min_shared": matching["min_shared"],
        "spec": spec,
        "params": params,
        # Local archives by their paths, as `samecore import-pairs` opens them.
        "inputs": [local_copy(i, None)[0] if i.startswith("file:") else i for i in inputs],
        "shards": [],
        "pages": n,
        "matched_pages": kept.count(),
        "pairs": n_pairs,
        "matching_pairs": n_found,
        "identical_pairs": len(extra),
        "clusters": n_clusters,
        "rule": "representative",
        "cut": int(len(cut)),
        "read_again": reread,
        "tasks": tasks,
        "join": "index",
        "seconds": round(time.time() - started, 3),
        "spark_version": spark.version,
    }
    files.write_text(out_dir + "/run.json", json.dumps(report, indent=2) + "\n")
    every.unpersist()
    kept_numbers.unpersist()
    signed.unpersist()
    rows.unpersist()
    clusters.unpersist()
    log(f"done in {report['seconds']} s: {n} pages, {n_pairs} pairs, {n_clusters} clusters of 2+ -> {out_dir}")
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="samecore_run.py",
        description="The whole SpotSigs run of `samecore run --mode allpairs` in Spark: archives to clusters.",
    )
    parser.add_argument("--archives", required=True, nargs="+", help="archives: files, folders of pages or Hadoop globs")
    parser.add_argument("--out", required=True, help="output directory (pages, pairs, clusters .parquet, run.json)")
    parser.add_argument("--threshold", type=float, help="multiset Jaccard threshold in (0, 1] (default: run's, 0.12)")
    parser.add_argument("--options", help="detector options as JSON, as the Python package takes them")
    parser.add_argument("--tasks", type=int, help="matching tasks (default: twice the cores)")
    parser.add_argument("--partitions", type=int, help="shuffle partitions (default: 2 x cores in local mode)")
    parser.add_argument("--overwrite", action="store_true", help="replace the outputs in an existing --out")
    parser.add_argument("--checkpoint-dir", help="reliable checkpoints there (default: cached, recomputed when lost)")
    parser.add_argument("--master", help="Spark master when not run by spark-submit (default: SPARK_MASTER or local[*])")
    args = parser.parse_args(argv)
    try:
        if args.threshold is not None:
            sp.check_threshold(args.threshold)
        for flag, value in (("--tasks", args.tasks), ("--partitions", args.partitions)):
            if value is not None and value < 1:
                raise JobError(f"{flag} {value} is not a positive number")
        extension()
        spark = sp.session(args.master, args.partitions, app="samecore-run")
        try:
            run(
                spark,
                args.archives,
                args.out,
                args.threshold,
                args.overwrite,
                args.options,
                args.tasks,
                args.checkpoint_dir,
            )
        finally:
            spark.stop()
    except sp.JobError as e:
        print(f"samecore_run.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
