"""samecore: find *same-core* near-duplicate pages in web archives.

The same story in a different frame of ads and navigation is one cluster, so a researcher
codes it once instead of every copy. This package is samecore's library (the one the
``samecore`` command and the workbench use) called from Python; tables come back as pandas
DataFrames, or as Arrow tables without a copy.

Start here::

    import samecore
    run = samecore.run("news.warc.gz")            # SpotSigs at its default threshold
    run.clusters                                  # every page with its cluster (DataFrame)
    run.pairs                                     # every scored pair
    run.metrics                                   # P/R/F1 when gold clusters are known

    session = samecore.Session(["a.warc.gz", "b.warc.gz"])   # read once ...
    spot = session.run("spotsigs")                           # ... run many detectors
    minhash = session.run("minhash", threshold=0.5)
    session.compare(key_a, key_b)                 # what two pages share

    project = samecore.Project("study.samecore")  # the workbench's project file
    project.pages(), project.labels(), project.codes

Work runs with the GIL released; Ctrl-C cancels it. ``progress=True`` (the default) draws a
tqdm bar where tqdm is installed; pass a function ``f(stage, done, total)`` for your own.
Errors of the library are raised as :class:`SamecoreError` with its message.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd
import pyarrow as pa

from . import _samecore
from ._samecore import ArrowTable, SamecoreError

__all__ = [
    "ArrowTable",
    "Comparison",
    "Package",
    "Project",
    "Run",
    "SamecoreError",
    "SamecoreWarning",
    "Session",
    "algorithms",
    "compare",
    "read",
    "run",
    "__version__",
]

__version__: str = _samecore.version()

PathLike = Union[str, "os.PathLike[str]"]
"""A path to a file or folder."""

ProgressCallback = Callable[[str, int, int], Any]


class SamecoreWarning(UserWarning):
    """Something reading found wrong and went past: a damaged record, a reused record id, a
    page over the size limit. The rest was read; :attr:`Session.reports` has them all."""
"""Called with ``(stage, done, total)`` about every 100 ms while work runs (total 0: unknown)."""

Progress = Union[bool, None, ProgressCallback]
"""``True``: a tqdm bar where tqdm is installed; ``False``/``None``: silent; or a callback."""


def _paths(paths: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


class _Tqdm:
    """One tqdm bar per stage of the work (reading, signatures, matching ...)."""

    def __init__(self, tqdm: Any) -> None:
        self._tqdm = tqdm
        self._bar: Any = None
        self._stage: Optional[str] = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self.close()
            self._stage = stage
            reading = stage.startswith("reading")
            self._bar = self._tqdm(
                desc=stage or "working",
                total=total or None,
                unit="B" if reading else "it",
                unit_scale=True,
                unit_divisor=1024 if reading else 1000,
                leave=False,
            )
        bar = self._bar
        if total and bar.total != total:
            bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _progress(progress: Progress) -> Optional[ProgressCallback]:
    if progress is None or progress is False:
        return None
    if progress is True:
        try:
            from tqdm import tqdm
        except ImportError:
            return None
        try:
            # Widgets in a notebook where ipywidgets is installed; text bars elsewhere.
            import ipywidgets  # noqa: F401
            from tqdm.auto import tqdm
        except ImportError:
            pass
        return _Tqdm(tqdm)
    if callable(progress):
        return progress
    raise TypeError(f"progress must be True, False, None or a callable, not {progress!r}")


def _call(progress: Progress, work: Callable[[Optional[ProgressCallback]], Any]) -> Any:
    callback = _progress(progress)
    try:
        return work(callback)
    finally:
        if isinstance(callback, _Tqdm):
            callback.close()


def _frame(table: ArrowTable) -> pd.DataFrame:
    return pa.table(table).to_pandas()


def _json(value: Optional[Dict[str, Any]]) -> Optional[str]:
    return None if value is None else json.dumps(value)


def algorithms() -> pd.DataFrame:
    """The detectors samecore runs: name, what each finds, what its score means, and its
    default threshold (chosen on the SpotSigs gold set) beside the paper's."""
    rows = _samecore.algorithms()
    return pd.DataFrame(
        rows,
        columns=["algo", "finds", "score", "default_threshold", "paper_threshold"],
    )


class Comparison(dict):
    """What two pages share: ``share_a`` / ``share_b`` (each page's share of its core found in
    the other), and a ``passages`` DataFrame (one aligned passage per row, with its text and
    byte offsets). Pages of a session also carry ``first`` (which was published first) and
    ``derivation`` (``wholly``, ``partially`` or ``non``) of the later page."""

    @property
    def passages(self) -> pd.DataFrame:
        return self["passages"]


def _comparison(raw: Dict[str, Any]) -> Comparison:
    out = Comparison(raw)
    passages = _frame(raw["passages"])
    # Two pages of a session compared by hand: no detector scored the pair.
    if "score" in passages.columns and len(passages) and passages["score"].isna().all():
        passages = passages.drop(columns="score")
    out["passages"] = passages
    return out


class Run:
    """One detector's run: its clusters, pairs and metrics. Made by :meth:`Session.run` or
    :func:`run`."""

    def __init__(self, native: Any, session: "Session") -> None:
        self._native = native
        self.session = session
        self._clusters: Optional[pd.DataFrame] = None
        self._pairs: Optional[pd.DataFrame] = None
        self._summary: Optional[Dict[str, Any]] = None

    @property
    def algo(self) -> str:
        """The detector's name."""
        return self._native.algo

    @property
    def threshold(self) -> float:
        """The similarity threshold it ran at."""
        return self._native.threshold

    @property
    def summary(self) -> Dict[str, Any]:
        """Spec, counts, metrics, per-language figures and seconds of the run."""
        if self._summary is None:
            self._summary = json.loads(self._native.summary())
        return self._summary

    @property
    def metrics(self) -> Optional[Dict[str, Any]]:
        """Pairwise, document-level and B-cubed precision/recall/F1 against the gold clusters
        (``None`` when the archives have no gold)."""
        return self.summary["metrics"]

    @property
    def clusters(self) -> pd.DataFrame:
        """Every page with its cluster (numbered from 0 by smallest member), whether it
        represents it, its identity (key, record id, URL, capture, file and offset, digest,
        site), title, publication date, and lag after its story's first publication."""
        if self._clusters is None:
            self._clusters = _frame(self._native.clusters())
        return self._clusters

    @property
    def pairs(self) -> pd.DataFrame:
        """Every scored pair at or above the threshold with both pages' identity."""
        if self._pairs is None:
            self._pairs = _frame(self._native.pairs())
        return self._pairs

    def clusters_arrow(self) -> pa.Table:
        """:attr:`clusters` as an Arrow table, handed over without a copy."""
        return pa.table(self._native.clusters())

    def pairs_arrow(self) -> pa.Table:
        """:attr:`pairs` as an Arrow table, handed over without a copy."""
        return pa.table(self._native.pairs())

    def groups(self, min_size: int = 2) -> pd.DataFrame:
        """The clusters of at least ``min_size`` pages, largest first: cluster, pages, sites,
        the representative's title, first publication."""
        c = self.clusters
        g = c.groupby("cluster").agg(
            pages=("doc", "size"),
            sites=("site", "nunique"),
            first_published=("published", "min"),
        )
        reps = c[c["representative"]].set_index("cluster")["title"]
        g["title"] = reps.reindex(g.index)
        g = g[g["pages"] >= min_size].sort_values(["pages", "sites"], ascending=False)
        return g.reset_index()

    def cluster(self, number: int) -> pd.DataFrame:
        """The members of cluster ``number``: the representative first, then by publication."""
        c = self.clusters
        members = c[c["cluster"] == number]
        return members.sort_values(["representative", "published"], ascending=[False, True])

    def at(self, threshold: float, *, progress: Progress = False) -> "Run":
        """The same detector at another threshold: matching again, nothing signed again."""
        native = _call(progress, lambda cb: self._native.at(threshold, progress=cb))
        return Run(native, self.session)

    def sweep(
        self, thresholds: Sequence[float], *, seeds: int = 1, progress: Progress = True
    ) -> pd.DataFrame:
        """Precision, recall and F1 (pairwise, document-level, B-cubed) against the gold at
        each threshold, one row per threshold: the matching runs again, nothing is signed
        again. Randomized procedures (seeded, incremental with first guess) average ``seeds``
        seeds; ``*_sd`` columns give the spread. Needs gold clusters."""
        if self.metrics is None:
            raise SamecoreError(
                "no gold clusters: a sweep needs them (folder names, or a gold file beside "
                "the archive or given as gold=)"
            )
        rows = json.loads(
            _call(
                progress,
                lambda cb: self._native.sweep(
                    [float(t) for t in thresholds], seeds=seeds, progress=cb
                ),
            )
        )
        out = []
        for row in rows:
            flat: Dict[str, Any] = {"threshold": row["threshold"], "runs": row["runs"]}
            for kind in ("pairwise", "document", "bcubed"):
                for name in ("precision", "recall", "f1"):
                    flat[f"{kind}_{name}"] = row["mean"][kind][name]
                    flat[f"{kind}_{name}_sd"] = row["sd"][kind][name]
            flat["groups"] = row["groups"]["mean"]
            flat["seconds"] = row["seconds"]["mean"]
            out.append(flat)
        return pd.DataFrame(out)

    def save(self, project: PathLike) -> int:
        """Store the run in a project file (created when missing), for the workbench and
        ``samecore sample``/``label``/``code``; its run number there."""
        return self._native.save(os.fspath(project))

    def __repr__(self) -> str:
        return repr(self._native)


class Session:
    """Archives read once, for any number of runs.

    ``paths``: WARC, ARC and WACZ files (gzipped or not), folders or zips of HTML pages.
    ``gold``: a ``doc,cluster`` file (TSV/CSV) of gold clusters; without it, folder names or
    a ``X.gold.tsv`` beside ``X.warc.gz`` are used when present. ``dates``: read each page's
    publication date. ``sign``: sign every page for SpotSigs while it is read (a SpotSigs run
    then reads nothing again). ``options``: detector options merged into the defaults, e.g.
    ``{"spotsigs": {"min_signatures": 3}}``.
    """

    def __init__(
        self,
        paths: Union[PathLike, Sequence[PathLike]],
        *,
        gold: Optional[PathLike] = None,
        dates: bool = True,
        sign: bool = True,
        options: Optional[Dict[str, Any]] = None,
        progress: Progress = True,
    ) -> None:
        self._options = options
        self._native = _call(
            progress,
            lambda cb: _samecore.Session(
                _paths(paths),
                gold=None if gold is None else os.fspath(gold),
                dates=dates,
                sign=sign,
                options=_json(options),
                progress=cb,
            ),
        )
        # What the command line prints on stderr, a notebook shows as warnings.
        for report in self.reports:
            for w in report.get("warnings", []):
                message = f"{w['message']} at offset {w['offset']}: {w['file']}"
                warnings.warn(message, SamecoreWarning, stacklevel=2)

    @property
    def documents(self) -> int:
        """Number of pages."""
        return self._native.documents

    @property
    def inputs(self) -> List[str]:
        """The inputs as given."""
        return self._native.inputs

    @property
    def gold_source(self) -> Optional[str]:
        """Where the gold clusters came from, when known."""
        return self._native.gold_source

    @property
    def reports(self) -> List[Dict[str, Any]]:
        """What each input held: format, records by type, pages, what was skipped, warnings."""
        return json.loads(self._native.reports())

    def pages(self) -> pd.DataFrame:
        """Every page: key, record id, URL, capture, file and offset, digest, status, MIME
        type, site, title, publication date (and where it was found), gold cluster."""
        return _frame(self._native.pages())

    def pages_arrow(self) -> pa.Table:
        """:meth:`pages` as an Arrow table, handed over without a copy."""
        return pa.table(self._native.pages())

    def run(
        self,
        algo: str = "spotsigs",
        *,
        threshold: Optional[float] = None,
        mode: Optional[str] = None,
        rule: Optional[str] = None,
        seed: Optional[int] = None,
        options: Optional[Dict[str, Any]] = None,
        spec: Optional[Dict[str, Any]] = None,
        progress: Progress = True,
    ) -> Run:
        """Run a detector (see :func:`algorithms`) at ``threshold`` (default: the
        detector's). ``mode``: incremental (default), seeded, full or allpairs; ``rule``:
        representative (default), transitive, average or centre; ``seed``: of the random
        document order. ``options`` default to the session's. ``spec`` sets any other run
        setting by the library's names, e.g. ``{"matching": {"common": "off"}}`` (the
        common-signature limit: ``"auto"``, ``"off"`` or ``{"pages": 500}``)."""
        if options is None:
            options = self._options
        native = _call(
            progress,
            lambda cb: self._native.run(
                algo,
                threshold=threshold,
                mode=mode,
                rule=rule,
                seed=seed,
                spec=_json(spec),
                options=_json(options),
                progress=cb,
            ),
        )
        return Run(native, self)

    def compare(
        self, a: str, b: str, *, wholly: float = 0.8, partially: float = 0.2
    ) -> Comparison:
        """What pages ``a`` and ``b`` (key, record id or URL) share without their sites'
        frames: aligned passages, each page's reuse share, which was published first and
        whether the later derives wholly (share >= ``wholly``), partially or not."""
        return _comparison(self._native.compare(a, b, wholly=wholly, partially=partially))

    def text(self, page: str) -> str:
        """A page's decoded HTML, read again from its archive."""
        return self._native.text(page)

    def __repr__(self) -> str:
        return repr(self._native)


def read(
    paths: Union[PathLike, Sequence[PathLike]],
    *,
    gold: Optional[PathLike] = None,
    dates: bool = True,
    progress: Progress = True,
) -> pd.DataFrame:
    """Every HTML page of the archives as a DataFrame (see :meth:`Session.pages`)."""
    return Session(paths, gold=gold, dates=dates, sign=False, progress=progress).pages()


def run(
    paths: Union[PathLike, Sequence[PathLike]],
    algo: str = "spotsigs",
    *,
    threshold: Optional[float] = None,
    mode: Optional[str] = None,
    rule: Optional[str] = None,
    seed: Optional[int] = None,
    gold: Optional[PathLike] = None,
    options: Optional[Dict[str, Any]] = None,
    spec: Optional[Dict[str, Any]] = None,
    dates: bool = True,
    progress: Progress = True,
) -> Run:
    """Read the archives and run one detector: ``samecore run`` from Python. The result's
    ``clusters`` and ``pairs`` are DataFrames; ``metrics`` is set when gold is known.
    ``spec``: other run settings, as :meth:`Session.run` takes them."""
    session = Session(
        paths,
        gold=gold,
        dates=dates,
        sign=algo == "spotsigs",
        options=options,
        progress=progress,
    )
    return session.run(
        algo,
        threshold=threshold,
        mode=mode,
        rule=rule,
        seed=seed,
        spec=spec,
        progress=progress,
    )


def compare(a: str, b: str, *, options: Optional[Dict[str, Any]] = None) -> Comparison:
    """Compare two pages given as HTML text (or as paths to HTML files): their SpotSigs
    similarity (``spotsigs``), each page's number of spot signatures, and what they share
    (``share_a``, ``share_b``, ``passages``)."""

    def text(x: str) -> str:
        if len(x) < 4096 and "<" not in x and os.path.isfile(x):
            with open(x, "rb") as f:
                return f.read().decode("utf-8", errors="replace")
        return x

    return _comparison(_samecore.compare_html(text(a), text(b), options=_json(options)))


class Project:
    """A samecore project file (``.samecore``, SQLite): the runs stored by ``samecore run
    --project``, :meth:`Run.save` or the workbench, with their samples, labels and codes.
    Reading never creates or changes the file."""

    def __init__(self, path: PathLike) -> None:
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise SamecoreError(f"no project file at {self.path}")

    def _table(self, name: str, **kw: Any) -> pd.DataFrame:
        return _frame(_samecore.project_table(self.path, name, **kw))

    @property
    def runs(self) -> pd.DataFrame:
        """Every run: number, detector, parameters (JSON), seed, version, when, time, pairs and clusters."""
        return self._table("runs")

    def pages(self, run: Optional[int] = None) -> pd.DataFrame:
        """Every page with its cluster in ``run`` (default: the latest, after hand edits), its
        codes (a JSON array) and gold cluster."""
        return self._table("pages", run=run)

    @property
    def samples(self) -> pd.DataFrame:
        """Every sample of pairs drawn for labelling."""
        return self._table("samples")

    def labels(self, sample: Optional[str] = None) -> pd.DataFrame:
        """Every sampled pair with each annotator's label and its settlement (one row per
        label), of ``sample`` or of every sample."""
        return self._table("labels", sample=sample)

    @property
    def codes(self) -> pd.DataFrame:
        """Every code decision on a page, with who made it and when."""
        return self._table("codes")

    @property
    def derivations(self) -> pd.DataFrame:
        """Coders' derivation classes of pairs (wholly, partially, non)."""
        return self._table("derivations")

    @property
    def codebook(self) -> Dict[str, Any]:
        """The codebook of variables at its latest version: ``{"version": n, "variables":
        [{"name", "question", "level", "kind", "unit", "values": [{"code", "label"}], ...}]}``
        (the tag codes are the variable ``codes``, see :attr:`codes`)."""
        return json.loads(_samecore.project_codebook(self.path))

    def values(self) -> pd.DataFrame:
        """Every coded value, long: one row per unit, variable, coder and role (``coder`` or
        ``final``), with its label and the codebook version it was coded under."""
        return self._table("values")

    def dataset(self) -> pd.DataFrame:
        """The data set, wide: one row per story or page, a column per variable (the final
        value, else the one its coders agree on) and its ``_label`` column; ``disagreements``
        names the variables still in dispute."""
        return self._table("dataset")

    def reliability(self) -> pd.DataFrame:
        """The coders' values as tidycomm's ``test_icr`` takes them: one row per unit and
        coder, a column per scored variable (each option of a several-values variable its own
        0/1 column); pass it to ``test_icr(data, unit, coder)`` in R."""
        return self._table("reliability")

    def write_dataset(self, path: PathLike) -> int:
        """Write :meth:`dataset` for SPSS (``.sav``) or Stata (``.dta``) through pyreadstat
        (ReadStat, the library R's haven uses), with each variable's question as its variable
        label and its numbered values as value labels ("not applicable" and "cannot code"
        among them; in SPSS they are also declared missing). The ``_label`` text columns are
        left out: the value labels say the same. The number of rows.

        CSV, TSV, JSON Lines and Parquet are written by ``samecore export dataset``."""
        try:
            import pyreadstat  # type: ignore[import-not-found]
        except ImportError as e:  # pragma: no cover - said to the user
            raise SamecoreError("writing .sav or .dta needs pyreadstat: pip install pyreadstat") from e
        target = os.fspath(path)
        kind = os.path.splitext(target)[1].lower()
        if kind not in (".sav", ".dta"):
            raise SamecoreError(f"{target}: write_dataset writes .sav or .dta")
        data = self.dataset()
        data = data[[c for c in data.columns if not c.endswith("_label")]]
        labels: Dict[str, str] = {"unit": "story (run, cluster) or page key", "unit_kind":
                                  "story or page", "run": "run", "cluster": "cluster",
                                  "disagreements": "variables the coders disagree on"}
        value_labels: Dict[str, Dict[float, str]] = {}
        missing: Dict[str, List[float]] = {}
        for var in self.codebook["variables"]:
            name = var["name"]
            labels[name] = (var.get("question") or name)[:80]
            if var["kind"] != "one":
                continue
            codes = {float(v["code"]): v["label"] for v in var.get("values", [])}
            for key, said in (("not_applicable", "not applicable"), ("cannot_code", "cannot code")):
                if var.get(key) is not None:
                    codes[float(var[key])] = said
                    missing.setdefault(name, []).append(float(var[key]))
            value_labels[name] = codes
        column_labels = [labels.get(c, c) for c in data.columns]
        if kind == ".sav":
            pyreadstat.write_sav(data, target, column_labels=column_labels,
                                 variable_value_labels=value_labels,
                                 missing_ranges={k: v for k, v in missing.items()})
        else:
            pyreadstat.write_dta(data, target, column_labels=column_labels,
                                 variable_value_labels=value_labels)
        return len(data)

    def agreement(self, *, resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
        """Krippendorff's alpha per variable at its level, with the bootstrap interval
        (``low``, ``high``), q(alpha < 0.667 / 0.8), percent agreement and Cohen's / Fleiss'
        kappa."""
        rows = json.loads(_samecore.project_agreement(self.path, resamples=resamples, seed=seed))
        return pd.DataFrame(rows)

    def code(self, page: str, code: str, *, by: str, applied: bool = True) -> None:
        """Apply code ``code`` to ``page`` (key, record id or URL) as coder ``by`` (a new
        code joins the codebook); ``applied=False`` withdraws it."""
        _samecore.project_code(self.path, page, code, by=by, applied=applied)

    def sample(
        self,
        *,
        run: Optional[int] = None,
        size: Optional[int] = None,
        bands: Optional[Sequence[float]] = None,
        per_stratum: int = 50,
        split_site: bool = False,
        seed: int = 0,
        name: Optional[str] = None,
        blind: bool = False,
    ) -> str:
        """Draw a sample of a run's pairs (default: the latest run) for labelling: ``size``
        pairs uniformly, or up to ``per_stratum`` pairs of every similarity band between the
        ascending edges ``bands`` (and with ``split_site`` of same-site and different-site pairs
        apart). ``blind``: reviewers see neither score, stratum nor detector. Its name."""
        return _samecore.project_sample(
            self.path,
            run=run,
            size=size,
            bands=None if bands is None else [float(b) for b in bands],
            per_stratum=per_stratum,
            split_site=split_site,
            seed=seed,
            name=name,
            blind=blind,
        )

    def label(
        self,
        sample: str,
        position: int,
        verdict: str,
        *,
        by: str,
        reason: Optional[str] = None,
        note: str = "",
    ) -> None:
        """Record annotator ``by``'s ``verdict`` (``correct``, ``incorrect`` or ``undecided``) on
        the pair at 1-based ``position`` of ``sample``, with an optional reason (``url_only``,
        ``time_stamp``, ``session_id``, ``prefilled_form``, ``different_minor_item``,
        ``cannot_evaluate``, ``other`` ...) and note. A relabel supersedes the earlier label."""
        _samecore.project_label(
            self.path, sample, position, verdict, by=by, reason=reason, note=note
        )

    def assign(
        self,
        round: Optional[str] = None,
        *,
        sample: Optional[str] = None,
        out: Optional[PathLike] = None,
        coders: Optional[Sequence[str]] = None,
        by: str = "lead",
    ) -> List[Dict[str, Any]]:
        """Write one package per coder of reliability round ``round`` (or only ``coders``)
        into ``out`` (default: the project's folder), as ``samecore assign`` does: a single
        file each with the stories, their texts and the codebook, coded without the archive.
        With ``sample=`` instead, one package per coder in ``coders`` with the sample's pairs
        to judge (both pages and their sites' frames). One dict per package: coder, file,
        units, carried, bytes."""
        return json.loads(
            _samecore.project_assign(
                self.path,
                round,
                sample=sample,
                out=None if out is None else os.fspath(out),
                coders=None if coders is None else list(coders),
                by=by,
            )
        )

    def merge(self, packages: Sequence[PathLike], *, by: str = "lead") -> Dict[str, Any]:
        """Bring coders' packages into the project, as ``samecore merge`` does (all checked
        first, then one transaction; a package merged again adds nothing). The report: per
        package its coder, stories coded, values in, already there, conflicts."""
        return json.loads(
            _samecore.project_merge(self.path, [os.fspath(p) for p in packages], by=by)
        )

    def search(
        self,
        query: str,
        *,
        run: Optional[int] = None,
        by_page: bool = False,
        whole_text: bool = False,
        sort: str = "relevance",
        limit: Optional[int] = None,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """The stories whose pages' cores match ``query``, one row per story (the clusters of
        ``run``, default the latest; ``by_page=True``: one row per page), best first or by
        ``sort`` (``relevance``, ``first`` publication, ``size``). Columns: rank, cluster, pages
        (the matching members' keys, best first), matches, size, score, title, first, last,
        first_site, codes, snippet, highlights (character ranges of the hits in the snippet),
        snippet_in_core. ``whole_text=True`` searches all of each page's visible text, its
        frame included. The query language is ``samecore search``'s: words, "phrases",
        AND/OR/NOT, prefix*, site: lang: title: url: code:, variable:value,
        published:[2015-09-01 TO 2015-12-31], captured:[...]; a malformed query raises
        :class:`SamecoreError` with a caret under the mistake. ``df.attrs`` holds the counts
        of all matching stories and pages (``story_count``, ``page_count``).

        The index beside the project (``P.samecore.search/``) is built the first time (with
        progress) and brought up to date when the project's pages changed; the stories, codes
        and values are read again when the project was written since the last search."""
        key = (run, by_page)
        cache = getattr(self, "_searches", None)
        if cache is None:
            cache = self._searches = {}
        found = cache.get(key)
        if found is None:
            found = _call(
                progress,
                lambda cb: _samecore.Search(self.path, run=run, by_page=by_page, progress=cb),
            )
            cache[key] = found
        table, stories, pages = found.query(query, whole_text=whole_text, sort=sort, limit=limit)
        frame = _frame(table)
        frame.attrs["story_count"] = stories
        frame.attrs["page_count"] = pages
        frame.attrs["query"] = query
        return frame

    def __repr__(self) -> str:
        return f"Project({self.path!r})"


class Package:
    """A coder's package (from :meth:`Project.assign`): its stories and the coder's values,
    coded without the archive or the project; every answer is saved at once."""

    def __init__(self, path: PathLike) -> None:
        self.path = os.fspath(path)
        self.info: Dict[str, Any] = json.loads(_samecore.package_info(self.path))

    @property
    def coder(self) -> str:
        return str(self.info["coder"])

    def stories(self, *, with_view: bool = False) -> pd.DataFrame:
        """One row per story: cluster, pages, title, URL, sites, dates and core text (and,
        ``with_view``, the page as a safe self-contained HTML file)."""
        return pd.DataFrame(
            json.loads(_samecore.package_stories(self.path, with_view=with_view))
        )

    def values(self) -> pd.DataFrame:
        """The coder's values as they stand: cluster, page (the page's key for a page
        variable, else none), variable, answer, value, version, at."""
        return pd.DataFrame(
            json.loads(_samecore.package_values(self.path)),
            columns=["cluster", "page", "variable", "answer", "value", "version", "at"],
        )

    def pages(self, cluster: int) -> pd.DataFrame:
        """The pages of the story of ``cluster`` (key, title, url, site, published,
        captured, core), carried when the codebook has page variables."""
        return pd.DataFrame(
            json.loads(_samecore.package_pages(self.path, int(cluster))),
            columns=["position", "key", "title", "url", "site", "published", "captured", "core"],
        )

    def code(self, cluster: int, variable: str, value: Any, *, page: Optional[str] = None) -> None:
        """Give ``variable`` the answer ``value`` on the story of ``cluster`` (checked against
        the package's codebook); a page variable on the story's ``page`` (key or URL)."""
        _samecore.package_code(self.path, int(cluster), variable, str(value), page=page)

    def undo(self) -> Optional[Tuple[str, int]]:
        """Take back the latest value; the variable and cluster it was on, if any."""
        return _samecore.package_undo(self.path)

    def progress(self) -> Tuple[int, int]:
        """Stories with every scored variable answered, of all (a package of pairs: pairs
        labelled, of all)."""
        info = json.loads(_samecore.package_info(self.path))
        if info.get("kind") == "sample":
            return int(info["labelled"]), int(info["pairs"])
        return int(info["done"]), int(info["stories"])

    def pairs(self) -> pd.DataFrame:
        """A package of pairs: one row per pair (position from 1; a_/b_ key, title, url, site,
        published, captured, core; score and stratum unless blind; the coder's verdict,
        reason and note)."""
        return pd.DataFrame(json.loads(_samecore.package_pairs(self.path)))

    def label(
        self, position: int, verdict: str, *, reason: Optional[str] = None, note: str = ""
    ) -> None:
        """Judge pair ``position`` (from 1): ``correct``, ``incorrect`` or ``undecided``, with
        an optional reason and note; saved in the package at once."""
        _samecore.package_label(self.path, int(position), verdict, reason=reason, note=note)

    def undo_label(self) -> Optional[int]:
        """Take back the latest label; the pair it was on, if any."""
        return _samecore.package_undo_label(self.path)

    def __repr__(self) -> str:
        return f"Package({self.path!r}, coder={self.coder!r})"
