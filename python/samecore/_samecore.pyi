"""Type hints of the native module (python/src/lib.rs); use the package `samecore` instead."""

from typing import Any, Callable, List, Optional, Tuple

_Callback = Optional[Callable[[str, int, int], Any]]

class SamecoreError(Exception): ...

class ArrowTable:
    """A table handed to pyarrow without a copy: ``pyarrow.table(t)``."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __len__(self) -> int: ...
    @property
    def columns(self) -> List[str]: ...

class Session:
    def __init__(
        self,
        paths: List[str],
        *,
        gold: Optional[str] = None,
        dates: bool = True,
        sign: bool = True,
        options: Optional[str] = None,
        progress: _Callback = None,
    ) -> None: ...
    @property
    def documents(self) -> int: ...
    @property
    def inputs(self) -> List[str]: ...
    @property
    def gold_source(self) -> Optional[str]: ...
    @property
    def read_seconds(self) -> float: ...
    def pages(self) -> ArrowTable: ...
    def reports(self) -> str: ...
    def run(
        self,
        algo: str,
        *,
        threshold: Optional[float] = None,
        mode: Optional[str] = None,
        rule: Optional[str] = None,
        seed: Optional[int] = None,
        spec: Optional[str] = None,
        options: Optional[str] = None,
        progress: _Callback = None,
    ) -> Run: ...
    def compare(
        self, a: str, b: str, *, wholly: float = 0.8, partially: float = 0.2
    ) -> dict: ...
    def text(self, page: str) -> str: ...

class Run:
    @property
    def algo(self) -> str: ...
    @property
    def threshold(self) -> float: ...
    def clusters(self) -> ArrowTable: ...
    def pairs(self) -> ArrowTable: ...
    def summary(self) -> str: ...
    def at(self, threshold: float, *, progress: _Callback = None) -> Run: ...
    def sweep(
        self, thresholds: List[float], *, seeds: int = 1, progress: _Callback = None
    ) -> str: ...
    def save(self, path: str) -> int: ...

class Search:
    def __init__(
        self,
        path: str,
        *,
        run: Optional[int] = None,
        by_page: bool = False,
        progress: _Callback = None,
    ) -> None: ...
    @property
    def report(self) -> str: ...
    @property
    def run(self) -> Optional[int]: ...
    def query(
        self,
        query: str,
        *,
        whole_text: bool = False,
        sort: str = "relevance",
        limit: Optional[int] = None,
    ) -> Tuple[ArrowTable, int, int]: ...

def project_table(
    path: str, table: str, *, run: Optional[int] = None, sample: Optional[str] = None
) -> ArrowTable: ...
def project_code(
    path: str, page: str, code: str, *, by: str, applied: bool = True
) -> None: ...
def project_codebook(path: str) -> str: ...
def project_agreement(path: str, *, resamples: int = 10_000, seed: int = 0) -> str: ...
def project_sample(
    path: str,
    *,
    run: Optional[int] = None,
    size: Optional[int] = None,
    bands: Optional[List[float]] = None,
    per_stratum: int = 50,
    split_site: bool = False,
    seed: int = 0,
    name: Optional[str] = None,
    blind: bool = False,
) -> str: ...
def project_label(
    path: str,
    sample: str,
    position: int,
    verdict: str,
    *,
    by: str,
    reason: Optional[str] = None,
    note: str = "",
) -> None: ...
def compare_html(a: str, b: str, *, options: Optional[str] = None) -> dict: ...
def algorithms() -> List[Tuple[str, str, str, float, float]]: ...
def version() -> str: ...

# True for a release build of this extension, False for the dev profile's.
optimized: bool

# What the Spark job spark/samecore_run.py calls (python/src/spark.rs); numbers cross as bytes
# of little-endian values, tables as Arrow.
def spark_sign(
    paths: List[str], options: Optional[str] = None
) -> Tuple[ArrowTable, ArrowTable, List[str]]: ...
def spark_sign_params(options: Optional[str] = None) -> str: ...
def spark_default_spec() -> str: ...
def spark_site_frame(table: Any, frame: str) -> ArrowTable: ...  # doc, site, packed
def spark_processing_ranks(n: int, seed: int) -> bytes: ...
def spark_cut_tree(parents: bytes, a: bytes, b: bytes, fraction: float) -> bytes: ...
def spark_finish(
    n: int,
    docs: bytes,
    to: bytes,
    scores: bytes,
    group_docs: bytes,
    group_sizes: bytes,
    spec: str,
) -> Tuple[ArrowTable, ArrowTable]: ...
def spark_headlines(table: Any) -> ArrowTable: ...
def spark_stories(table: Any) -> ArrowTable: ...

class AllPairsIndex:
    def __init__(
        self, pages: int, docs: bytes, signatures: bytes, counts: bytes, spec: str
    ) -> None: ...
    def pairs(self, k: int, of: int, threads: Optional[int] = None) -> ArrowTable: ...
    @property
    def pages(self) -> int: ...
