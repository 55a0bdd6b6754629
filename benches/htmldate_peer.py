#!/usr/bin/env python3
"""Run htmldate.find_date over the pages listed in truth.tsv and score it.

The peer of `cargo bench --bench dates` (which runs it with `--peer`): htmldate on the same
pages as samecore's publication dates, side by side. Needs `pip install htmldate warcio`.

Usage: python3 benches/htmldate_peer.py [--repeat N] [--truth benches/dates_truth.tsv]
       [--data ../shared/data] [--out predictions.tsv]

* Loose files (goldset-dev, frames-dev): the file's bytes decoded as UTF-8,
  falling back to cp1252 (errors='replace') when they are not valid UTF-8.
* WARC records: the HTTP payload of the response record with the given
  WARC-Record-ID, decoded by the charset in its Content-Type header, else
  UTF-8 with errors='replace'.  (ipwb__5mementos.warc reuses one record ID for
  all of its records, so the record is matched on record ID + target URI +
  WARC-Date; for every other file the record ID alone is unique.)
* Two modes: extensive_search=True ("extensive") and False ("fast"), both with
  original_date=True, outputformat='%Y-%m-%d', url=<url or None> and, for WARC
  records, max_date=<YYYY-MM-DD of the WARC-Date>.
* Only the find_date calls are timed (time.perf_counter), in a single process.
  htmldate's own LRU caches are reset (htmldate.meta.reset_caches) before each
  timed pass, outside the timed region, so that repeats do not just measure
  warm caches.  With --repeat N each mode is timed N times and the best
  (fastest) pass is reported; predictions come from the first pass.
"""
import argparse
import csv
import logging
import os
import re
import sys
import time

import htmldate
from htmldate import find_date
from htmldate.meta import reset_caches
from warcio.archiveiterator import ArchiveIterator

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data")


def decode_loose(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def decode_payload(raw: bytes, content_type: str) -> str:
    m = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", content_type or "", re.I)
    if m:
        try:
            return raw.decode(m.group(1), errors="replace")
        except LookupError:
            pass
    return raw.decode("utf-8", errors="replace")


def load_warc_payloads(path, wanted):
    """Return {(record_id, uri, warc_date): html} for the wanted keys of one WARC file."""
    out = {}
    ids = {k[0] for k in wanted}
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response":
                continue
            rid = rec.rec_headers.get_header("WARC-Record-ID")
            if rid not in ids:
                continue
            key = (rid, rec.rec_headers.get_header("WARC-Target-URI") or "",
                   rec.rec_headers.get_header("WARC-Date") or "")
            if key not in wanted:
                continue
            ctype = rec.http_headers.get_header("Content-Type") if rec.http_headers else ""
            out[key] = decode_payload(rec.content_stream().read(), ctype)
    return out


def load_pages(rows):
    pages = [None] * len(rows)
    by_warc = {}
    for i, r in enumerate(rows):
        if r["record_id"]:
            by_warc.setdefault(r["input"], []).append(i)
        else:
            with open(os.path.join(DATA, r["input"]), "rb") as fh:
                pages[i] = decode_loose(fh.read())
    for inp, idxs in by_warc.items():
        wanted = {(rows[i]["record_id"], rows[i]["url"], rows[i]["capture"]) for i in idxs}
        payloads = load_warc_payloads(os.path.join(DATA, inp), wanted)
        for i in idxs:
            key = (rows[i]["record_id"], rows[i]["url"], rows[i]["capture"])
            if key not in payloads:
                sys.exit(f"record not found: {inp} {key}")
            pages[i] = payloads[key]
    return pages


def make_kwargs(row, extensive):
    kw = dict(url=row["url"] or None, original_date=True,
              extensive_search=extensive, outputformat="%Y-%m-%d")
    if row["capture"]:
        kw["max_date"] = row["capture"][:10]
    return kw


def run_pass(rows, pages, extensive):
    kwargs = [make_kwargs(r, extensive) for r in rows]
    reset_caches()
    preds = []
    total = 0.0
    for html, kw in zip(pages, kwargs):
        t0 = time.perf_counter()
        try:
            res = find_date(html, **kw)
        except Exception as err:  # count a crash as "no date"
            res = None
            logging.getLogger("runner").warning("find_date failed: %s", err)
        total += time.perf_counter() - t0
        preds.append(res)
    return preds, total


def score(rows, preds, subset=None):
    idx = [i for i in range(len(rows)) if subset is None or subset(rows[i])]
    ok = sum(1 for i in idx if (preds[i] or "none") == rows[i]["published"])
    dated = [i for i in idx if rows[i]["published"] != "none"]
    ok_d = sum(1 for i in dated if preds[i] == rows[i]["published"])
    undated = [i for i in idx if rows[i]["published"] == "none"]
    ok_u = sum(1 for i in undated if preds[i] is None)
    return len(idx), ok, len(dated), ok_d, len(undated), ok_u


def part_of(row):
    return row["input"].split("/")[0]


def main():
    global DATA
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--truth", default=os.path.join(HERE, "dates_truth.tsv"))
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    DATA = args.data
    logging.disable(logging.CRITICAL)  # htmldate logs nothing we need here

    with open(args.truth, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    pages = load_pages(rows)
    print(f"htmldate {htmldate.__version__}, {len(rows)} pages, repeat={args.repeat}")

    results = {}
    for mode, extensive in (("extensive", True), ("fast", False)):
        times = []
        preds = None
        for rep in range(max(1, args.repeat)):
            p, t = run_pass(rows, pages, extensive)
            times.append(t)
            if preds is None:
                preds = p
            elif p != preds:
                print(f"warning: {mode} predictions differ between repeats", file=sys.stderr)
        results[mode] = (preds, min(times), times)

    for mode in ("extensive", "fast"):
        preds, best, times = results[mode]
        n, ok, nd, okd, nu, oku = score(rows, preds)
        print(f"\n[{mode}] extensive_search={mode == 'extensive'}")
        print(f"  pages: {n}")
        print(f"  accuracy: {ok}/{n} = {ok / n:.3f}")
        print(f"  accuracy on pages with a date: {okd}/{nd} = {okd / nd:.3f}")
        print(f"  correct 'none' on undated pages: {oku}/{nu} = {oku / nu:.3f}")
        print(f"  time in find_date: best {best:.3f} s of {len(times)} "
              f"(all: {', '.join(f'{t:.3f}' for t in times)}); pages/s: {n / best:.1f}")
        for part in ("goldset-dev", "frames-dev", "warc"):
            n, ok, nd, okd, nu, oku = score(rows, preds, lambda r, p=part: part_of(r) == p)
            print(f"    {part:12s} pages {n:3d}  acc {ok / n:.3f}  "
                  f"dated {okd}/{nd}  none {oku}/{nu}")

    if args.out is None:
        return
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        fh.write("input\trecord_id\textensive\tfast\n")
        for r, pe, pf in zip(rows, results["extensive"][0], results["fast"][0]):
            fh.write(f"{r['input']}\t{r['record_id']}\t{pe or 'none'}\t{pf or 'none'}\n")
    print(f"\npredictions written to {args.out}")


if __name__ == "__main__":
    main()
