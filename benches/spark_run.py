#!/usr/bin/env python3
"""The whole run in Spark (spark/samecore_run.py) beside `samecore run --mode allpairs`, on the
same generated archive and the same cores, one after the other: wall time from the command's
start to its end (the job's JVM, session and executors' start-up included) and peak memory,
summed over each side's processes (the job: the driver's JVM and Python, and per executor its
JVM and Python workers), sampled every 0.2 s from /proc. The outputs are then compared: the
same pages, pairs (scores to the bit) and clusters.

    python3 benches/spark_run.py --pages 100000 --samecore target/release/samecore

The archive is `samecore synth --seed 7 --pages N` (target/bench-data, shared with the Rust
benchmarks), split into --files archives by URL (every capture of a URL in one file, so
revisits resolve inside their file as they do in the one archive), since the job reads and
signs a task per archive. Both sides read the split files. The job runs on a standalone
cluster of --workers workers of one core each started here, as tests/spark.rs starts one;
needs pyspark, pyarrow, pandas and the samecore Python package (pip install ./python: a
release build for a fair measure).
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib

import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def generated(samecore, pages):
    """target/bench-data/synth-N.warc.gz, written once (as benches/common/mod.rs names it)."""
    data = os.path.join(ROOT, "target", "bench-data")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(data, f"synth-{pages}.warc.gz")
    if not os.path.exists(path):
        part = path.replace(".warc.gz", ".part.warc.gz")
        subprocess.run(
            [samecore, "synth", "--seed", "7", "--pages", str(pages), "--overwrite", "--out", part],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        os.rename(part, path)
    return path


def members(path):
    """The gzip members of a WARC written one member per record: (bytes, WARC-Target-URI)."""
    import mmap

    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = 0
        while at < len(data):
            d = zlib.decompressobj(31)
            head, pos = b"", at
            while not d.eof:
                chunk = data[pos:pos + 65536]
                if not chunk:
                    break
                text = d.decompress(chunk)
                if len(head) < 8192:
                    head += text[:8192]
                pos += len(chunk)
            end = pos - len(d.unused_data)
            uri = b""
            for line in head.split(b"\r\n"):
                if line.startswith(b"WARC-Target-URI:"):
                    uri = line.split(b":", 1)[1].strip()
                    break
            yield data[at:end], uri
            at = end


def split(path, files):
    """`path` split into `files` archives by URL (a stable hash), each record in its order."""
    out_dir = path.replace(".warc.gz", f"-split{files}")
    names = [os.path.join(out_dir, f"part-{i:03d}.warc.gz") for i in range(files)]
    if all(os.path.exists(n) for n in names):
        return names
    os.makedirs(out_dir, exist_ok=True)
    outs = [open(n + ".part", "wb") for n in names]
    for member, uri in members(path):
        outs[zlib.crc32(uri) % files if uri else 0].write(member)
    for o, n in zip(outs, names):
        o.close()
        os.rename(n + ".part", n)
    return names


class Sampler:
    """Peak resident memory of process groups, sampled from /proc: `groups()` maps a process
    to a group name, or None to leave it out."""

    def __init__(self, classify):
        self.classify = classify
        self.peaks = {}
        self.peak_total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._stop.is_set():
            sums = {}
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
                    with open(f"/proc/{pid}/statm") as f:
                        rss = int(f.read().split()[1]) * page
                    cwd = os.readlink(f"/proc/{pid}/cwd")
                except OSError:
                    continue
                group = self.classify(int(pid), cmd, cwd)
                if group:
                    sums[group] = sums.get(group, 0) + rss
            for g, v in sums.items():
                self.peaks[g] = max(self.peaks.get(g, 0), v)
            self.peak_total = max(self.peak_total, sum(sums.values()))
            self._stop.wait(0.2)


def spark_home():
    import pyspark

    return os.path.dirname(pyspark.__file__)


class Cluster:
    """A standalone master and `workers` workers of one core and `memory` each, on loopback."""

    def __init__(self, work, workers, memory):
        home = spark_home()
        self.env = dict(os.environ, SPARK_HOME=home, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
        port = free_port()
        self.master = f"spark://127.0.0.1:{port}"
        cls = os.path.join(home, "bin", "spark-class")
        log = open(os.path.join(work, "master.log"), "w")
        self.procs = [
            subprocess.Popen(
                [cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                 "--webui-port", str(free_port())],
                env=self.env, stdout=log, stderr=log,
            )
        ]
        self.work = []
        for w in range(workers):
            wd = os.path.join(work, f"worker{w}")
            shutil.rmtree(wd, ignore_errors=True)  # a --keep folder used before
            os.makedirs(wd)
            self.work.append(wd)
            self.procs.append(
                subprocess.Popen(
                    [cls, "org.apache.spark.deploy.worker.Worker", self.master, "--host", "127.0.0.1", "--cores", "1",
                     "--memory", memory, "--webui-port", str(free_port()), "--work-dir", wd],
                    env=self.env, stdout=log, stderr=log,
                )
            )
        deadline = time.time() + 120
        while open(os.path.join(work, "master.log")).read().count("Registering worker") < workers:
            if time.time() > deadline:
                raise SystemExit("the standalone cluster did not come up")
            time.sleep(0.5)

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def timed(cmd, classify, env=None, log=None):
    with Sampler(classify) as s:
        started = time.time()
        # spark-submit hands the driver's standard error (the job's progress) to its standard
        # output: both go to `log`.
        out = log or subprocess.DEVNULL
        result = subprocess.run(cmd, env=env, stdout=out, stderr=out)
        wall = time.time() - started
    if result.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({result.returncode})")
    return wall, s


def shuffle_bytes(events):
    """Shuffle bytes written and read over the job (Spark's event log), and the five stages
    that wrote most, by the line of the job that made them."""
    write = read = 0
    stages = {}
    logs = [os.path.join(root, n) for root, _, names in os.walk(events) for n in names if not n.startswith(".")]
    for path in logs:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if e.get("Event") != "SparkListenerStageCompleted":
                    continue
                info = e["Stage Info"]
                w = r = 0
                for acc in info.get("Accumulables", []):
                    if acc.get("Name") == "internal.metrics.shuffle.write.bytesWritten":
                        w = int(acc.get("Value", 0))
                    elif acc.get("Name") in (
                        "internal.metrics.shuffle.read.remoteBytesRead",
                        "internal.metrics.shuffle.read.localBytesRead",
                    ):
                        r += int(acc.get("Value", 0))
                write += w
                read += r
                stages[f"{info['Stage ID']}:{info['Stage Name'][:40]}"] = w
    top = sorted(stages.items(), key=lambda kv: -kv[1])[:5]
    return {"write": write, "read": read, "stages": [(k, round(v / (1 << 20), 1)) for k, v in top]}


def compare(job_out, clusters, pairs):
    jc = pd.read_parquet(os.path.join(job_out, "clusters.parquet"))
    lc = pd.read_parquet(clusters)
    jp = pd.read_parquet(os.path.join(job_out, "pairs.parquet"))
    lp = pd.read_parquet(pairs)

    def part(df):
        return sorted(tuple(sorted(g.key)) for _, g in df.groupby("cluster") if len(g) > 1)

    m = lc.merge(jc, on="key", suffixes=("_l", "_j"))
    same_rows = all(
        ((m[c + "_l"] == m[c + "_j"]) | (m[c + "_l"].isna() & m[c + "_j"].isna())).all()
        for c in ("doc", "cluster", "representative", "linked_through", "link_score", "story_title",
                  "first_publisher", "lag_seconds")
    )
    mm = lp.merge(jp, on=["a_key", "b_key"])
    return {
        "pages": (len(lc), len(jc)),
        "pairs": (len(lp), len(jp)),
        "pairs_equal": len(mm) == len(lp) == len(jp)
        and bool((mm.score_x.values.view(np.int64) == mm.score_y.values.view(np.int64)).all()),
        "clusters_equal": part(lc) == part(jc) and len(m) == len(lc) == len(jc) and same_rows
        and bool((m.offset_l == m.offset_j).all())
        and bool((m.file_l.map(os.path.abspath) == m.file_j.map(os.path.abspath)).all()),
        "clusters": len(part(lc)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=100000)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory", default="4g", help="each worker's memory (and the executors')")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--samecore", default=os.path.join(ROOT, "target", "release", "samecore"))
    ap.add_argument("--keep", help="keep the outputs in this folder")
    args = ap.parse_args()
    from samecore import _samecore

    if not getattr(_samecore, "optimized", False):
        raise SystemExit(
            "spark_run.py: the installed samecore package is a dev build (as .ci/run installs it), "
            "several times slower at signing than a user's: pip install --force-reinstall --no-deps ./python"
        )
    archive = generated(args.samecore, args.pages)
    files = split(archive, args.files)
    work = args.keep or tempfile.mkdtemp(prefix="spark-run-bench-")
    os.makedirs(work, exist_ok=True)

    c, p = os.path.join(work, "run-clusters.parquet"), os.path.join(work, "run-pairs.parquet")
    for f in (c, p):
        if os.path.exists(f):
            os.remove(f)
    run_wall, run_mem = timed(
        [args.samecore, "run", *files, "--mode", "allpairs", "--clusters", c, "--pairs", p],
        lambda pid, cmd, cwd: "run" if cmd.startswith(args.samecore + " run") else None,
    )

    cluster = Cluster(work, args.workers, args.memory)
    try:
        out = os.path.join(work, "job-out")
        shutil.rmtree(out, ignore_errors=True)
        job = os.path.join(ROOT, "spark", "samecore_run.py")

        def classify(pid, cmd, cwd):
            for i, wd in enumerate(cluster.work):
                if cwd.startswith(wd + "/app-"):
                    return f"executor {i}"
            if "SparkSubmit" in cmd or "samecore_run.py" in cmd:
                return "driver"
            return None

        with open(os.path.join(work, "job.log"), "w") as log:
            events = os.path.join(work, "events")
            shutil.rmtree(events, ignore_errors=True)
            os.makedirs(events)
            job_wall, job_mem = timed(
                [os.path.join(spark_home(), "bin", "spark-submit"), "--master", cluster.master,
                 "--driver-memory", args.driver_memory,
                 "--conf", f"spark.executor.memory={args.memory}",
                 "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.compress=false",
                 "--conf", f"spark.eventLog.dir=file://{events}",
                 job, "--archives", *files, "--out", out, "--partitions", str(2 * args.workers)],
                classify, env=cluster.env, log=log,
            )
    finally:
        cluster.stop()
    report = json.load(open(os.path.join(out, "run.json")))
    shuffled = shuffle_bytes(events)
    same = compare(out, c, p)
    mib = 1 << 20
    print(f"{args.pages} generated pages in {len(files)} archives, {args.workers} one-core workers")
    print(f"samecore run --mode allpairs: {run_wall:7.1f} s  peak {run_mem.peak_total / mib:7.0f} MiB")
    print(f"spark/samecore_run.py:        {job_wall:7.1f} s  peak {job_mem.peak_total / mib:7.0f} MiB over all processes")
    for g in sorted(job_mem.peaks):
        print(f"    {g:12s} peak {job_mem.peaks[g] / mib:7.0f} MiB")
    print(f"ratio (job / run, same cores): {job_wall / run_wall:.2f}")
    print(f"job's own seconds (run.json, after its session started): {report['seconds']}")
    print(f"shuffle written: {shuffled['write'] / mib:.0f} MiB, read {shuffled['read'] / mib:.0f} MiB; "
          f"largest stages (MiB written): {shuffled['stages']}")
    print("equal:", json.dumps(same))
    print("the job's progress lines (seconds since its driver started):")
    with open(os.path.join(work, "job.log")) as log:
        for line in log:
            if line.startswith("[samecore-run"):
                print("   ", line.rstrip())
    if not (same["pairs_equal"] and same["clusters_equal"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
