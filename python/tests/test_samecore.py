"""The Python package against the library's own front end, the ``samecore`` command.

Run by ``cargo test --test python`` (which passes the command's path in ``SAMECORE_BIN``), or by
hand: ``pip install ./python pytest && SAMECORE_BIN=target/debug/samecore pytest python/tests``.
Tests that read ``../shared/data`` skip when it is absent, unless ``SAMECORE_REQUIRE_SHARED=1``.
"""

from __future__ import annotations

import json
import os
import pydoc
import subprocess
import threading
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import samecore

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_archives" / "news-sample.warc.gz"
GOLDSET = REPO.parent / "shared" / "data" / "goldset-dev"


def cli() -> str:
    path = os.environ.get("SAMECORE_BIN")
    if path and Path(path).is_file():
        return path
    for candidate in (REPO / "target" / "release" / "samecore", REPO / "target" / "debug" / "samecore"):
        if candidate.is_file():
            return str(candidate)
    pytest.fail("no samecore binary: set SAMECORE_BIN or build it (cargo build)")


def goldset() -> Path:
    if not GOLDSET.is_dir():
        if os.environ.get("SAMECORE_REQUIRE_SHARED") == "1":
            pytest.fail(f"{GOLDSET} is missing and SAMECORE_REQUIRE_SHARED=1")
        pytest.skip(f"{GOLDSET} is absent")
    return GOLDSET


@pytest.fixture(scope="module")
def sample_run() -> samecore.Run:
    return samecore.run(SAMPLE, progress=False)


def test_a_run_finds_what_the_command_finds(sample_run: samecore.Run, tmp_path: Path) -> None:
    out = tmp_path / "clusters.parquet"
    pairs = tmp_path / "pairs.parquet"
    subprocess.run(
        [cli(), "run", str(SAMPLE), "--clusters", str(out), "--pairs", str(pairs)],
        check=True,
        capture_output=True,
    )
    theirs = pd.read_parquet(out)
    ours = sample_run.clusters
    assert list(ours.columns) == list(theirs.columns)
    pd.testing.assert_frame_equal(
        ours.reset_index(drop=True), theirs.reset_index(drop=True), check_dtype=False
    )
    theirs_pairs = pd.read_parquet(pairs)
    assert len(sample_run.pairs) == len(theirs_pairs)
    assert set(zip(sample_run.pairs.a_doc, sample_run.pairs.b_doc)) == set(
        zip(theirs_pairs.a_doc, theirs_pairs.b_doc)
    )


def test_metrics_and_summary_against_the_sample_gold(sample_run: samecore.Run) -> None:
    # The gold beside the archive (news-sample.gold.tsv) is found and every run scored on it.
    assert sample_run.session.gold_source.endswith("news-sample.gold.tsv")
    pairwise = sample_run.metrics["pairwise"]
    assert pairwise["f1"] > 0.99, pairwise
    summary = sample_run.summary
    assert summary["documents"] == sample_run.session.documents == 439
    assert summary["groups"] == len(sample_run.groups())
    assert sample_run.algo == "spotsigs"
    assert sample_run.threshold == pytest.approx(
        samecore.algorithms().set_index("algo").loc["spotsigs", "default_threshold"]
    )


def test_tables_have_types_pandas_and_arrow_agree_on(sample_run: samecore.Run) -> None:
    c = sample_run.clusters
    assert c["cluster"].dtype.kind == "u"
    assert c["representative"].dtype == bool
    assert c["offset"].dtype.kind == "u"
    assert c["first_publisher"].dtype == bool
    assert (c.groupby("cluster")["representative"].sum() == 1).all()
    arrow = sample_run.clusters_arrow()
    assert isinstance(arrow, pa.Table)
    assert arrow.column_names == list(c.columns)
    assert arrow.num_rows == len(c)
    assert sample_run.pairs_arrow().num_rows == len(sample_run.pairs)
    # The native table is read by pyarrow through the C stream interface, more than once.
    native = sample_run._native.clusters()
    assert pa.table(native).equals(pa.table(native))
    assert len(native) == len(c)


def test_a_session_runs_many_detectors_and_thresholds(sample_run: samecore.Run) -> None:
    session = sample_run.session
    minhash = session.run("minhash", threshold=0.5, progress=False)
    assert minhash.algo == "minhash" and minhash.threshold == 0.5
    assert minhash.metrics["pairwise"]["precision"] > 0.9
    higher = sample_run.at(0.6)
    assert higher.threshold == 0.6
    assert len(higher.pairs) < len(sample_run.pairs)
    curve = sample_run.sweep([0.2, 0.4, 0.6], progress=False)
    assert list(curve.threshold) == [0.2, 0.4, 0.6]
    assert curve.pairwise_recall.is_monotonic_decreasing
    # Each row is the run at that threshold.
    at = sample_run.at(0.4).metrics["pairwise"]
    assert curve.set_index("threshold").loc[0.4, "pairwise_f1"] == pytest.approx(at["f1"])
    allpairs = session.run("spotsigs", mode="allpairs", rule="transitive", progress=False)
    assert allpairs.summary["spec"]["rule"] == "Transitive"
    # Other settings by the library's names: a common-signature limit of 3 pages leaves
    # fewer pairs; the sample's 300 pages are far below where `auto` sets one.
    assert sample_run.summary["spec"]["matching"]["common"] == "auto"
    assert sample_run.summary["common"]["limit"] == 0
    tight = session.run("spotsigs", spec={"matching": {"common": {"pages": 3}}}, progress=False)
    assert tight.summary["common"]["limit"] == 3
    assert tight.summary["common"]["pages_without_pairs"] > 0
    assert len(tight.pairs) < len(sample_run.pairs)


def test_pages_and_one_cluster(sample_run: samecore.Run) -> None:
    pages = samecore.read(SAMPLE, progress=False)
    assert len(pages) == 439
    assert pages["gold"].notna().all()
    assert set(pages.published_source) <= {"meta", "json-ld", "time", "url", "text", "capture"}
    biggest = sample_run.groups().iloc[0]
    members = sample_run.cluster(int(biggest.cluster))
    assert len(members) == biggest.pages
    assert members.iloc[0].representative


def test_what_two_pages_share(sample_run: samecore.Run) -> None:
    biggest = sample_run.groups().iloc[0]
    members = sample_run.cluster(int(biggest.cluster))
    a, b = members.key.iloc[0], members.key.iloc[1]
    c = sample_run.session.compare(a, b)
    assert c["share_a"] > 0.5 and c["share_b"] > 0.5
    assert c["derivation"] in {"wholly", "partially", "non"}
    assert len(c.passages) > 0 and c.passages.text.str.len().min() > 0
    # Two pages named by hand: no detector scored them, so no score column of NaN.
    assert "score" not in c.passages.columns
    assert (c.passages.a_key == a).all() and (c.passages.b_key == b).all()
    # The same page by its reader key, and its HTML read again from the archive.
    assert sample_run.session.compare(members.doc.iloc[0], b)["share_a"] == c["share_a"]
    assert "<" in sample_run.session.text(a)


def test_compare_two_html_texts() -> None:
    story = " ".join(
        f"The council said on Tuesday that the bridge number {i} will be closed to cars "
        "and that a new crossing is to be built by the river authority."
        for i in range(12)
    )
    a = f"<html><body><nav>Home News Sport</nav><p>{story}</p><footer>Alpha Times</footer></body></html>"
    b = f"<html><body><div>Menu Weather Jobs</div><p>{story}</p><div>Beta Post 2024</div></body></html>"
    other = "<html><body><p>" + "A recipe for bread is flour, water, salt and yeast. " * 20 + "</p></body></html>"
    same = samecore.compare(a, b)
    assert same["spotsigs"] > 0.8 and same["share_a"] > 0.8
    assert len(same.passages) >= 2
    assert samecore.compare(a, other)["spotsigs"] < 0.1


def test_errors_are_the_librarys_and_nothing_is_made(tmp_path: Path) -> None:
    with pytest.raises(samecore.SamecoreError, match="nope.warc"):
        samecore.run(tmp_path / "nope.warc", progress=False)
    text = tmp_path / "notes.txt"
    text.write_text("not an archive")
    with pytest.raises(samecore.SamecoreError, match="notes.txt"):
        samecore.Session(text, progress=False)
    session = samecore.Session(SAMPLE, progress=False)
    with pytest.raises(samecore.SamecoreError, match="spotsigs"):
        session.run("nope", progress=False)
    with pytest.raises(samecore.SamecoreError, match="threshold"):
        session.run("spotsigs", threshold=1.5, progress=False)
    # The Spark job's range, said by the same words everywhere: (0, 1].
    with pytest.raises(samecore.SamecoreError, match=r"not in \(0, 1\]"):
        session.run("spotsigs", threshold=0, progress=False)
    with pytest.raises(samecore.SamecoreError, match="no page"):
        session.compare("no such page", "nor this")
    missing = tmp_path / "missing.samecore"
    with pytest.raises(samecore.SamecoreError, match="no project file"):
        samecore.Project(missing)
    with pytest.raises(samecore.SamecoreError, match="no project file"):
        samecore._samecore.project_table(str(missing), "runs")
    assert not missing.exists()


def test_a_project_written_by_python_and_the_command(sample_run: samecore.Run, tmp_path: Path) -> None:
    path = tmp_path / "study.samecore"
    run_id = sample_run.save(path)
    project = samecore.Project(path)
    assert list(project.runs["run"]) == [run_id]
    pages = project.pages()
    assert len(pages) == 439 and (pages.run == run_id).all()
    assert pages.gold.notna().all()
    # Clusters stored are the run's: the same partition of the pages.
    by_key = dict(zip(sample_run.clusters.key, sample_run.clusters.cluster))
    stored = pages.groupby("cluster")["key"].apply(lambda ks: frozenset(by_key[k] for k in ks))
    assert stored.map(len).eq(1).all()

    key = pages.key.iloc[0]
    project.code(key, "election", by="ana")
    project.code(key, "fire; flood", by="ana")
    codes = project.codes
    assert set(codes.code) == {"election", "fire; flood"} and set(codes.applied_by) == {"ana"}
    assert json.loads(project.pages().set_index("key").loc[key, "codes"]) == ["election", "fire; flood"]
    project.code(key, "election", by="ana", applied=False)
    assert json.loads(project.pages().set_index("key").loc[key, "codes"]) == ["fire; flood"]

    # A sample drawn and labelled by the command reads back here.
    subprocess.run(
        [cli(), "sample", "--project", str(path), "--size", "5", "--name", "s1"],
        check=True,
        capture_output=True,
    )
    answers = tmp_path / "answers.txt"
    answers.write_text("1 c\n2 i\n")
    subprocess.run(
        [cli(), "label", "--project", str(path), "--sample", "s1", "--annotator", "bo",
         "--answers", str(answers)],
        check=True,
        capture_output=True,
    )
    samples = project.samples
    assert list(samples["sample"]) == ["s1"] and samples.pairs.iloc[0] == 5
    labels = project.labels("s1")
    assert len(labels) == 5
    assert labels.set_index("position").loc[[1, 2], "annotator"].tolist() == ["bo", "bo"]


def test_sample_and_label_from_python(sample_run: samecore.Run, tmp_path: Path) -> None:
    path = tmp_path / "labels.samecore"
    sample_run.save(path)
    project = samecore.Project(path)
    with pytest.raises(samecore.SamecoreError, match="say how to sample"):
        project.sample()
    name = project.sample(bands=[0.1, 0.5, 1.0], per_stratum=4, seed=3, blind=True)
    assert name == "run1-bands-seed3"
    samples = project.samples.set_index("sample")
    assert samples.loc[name, "blind"] and samples.loc[name, "method"] == "stratified"
    assert samples.loc[name, "pairs"] == 8
    project.label(name, 1, "correct", by="ana")
    project.label(name, 2, "i", by="ana", reason="prefilled form", note="a form")
    project.label(name, 2, "undecided", by="bo")
    with pytest.raises(samecore.SamecoreError, match="positions 1 to 8"):
        project.label(name, 9, "correct", by="ana")
    with pytest.raises(samecore.SamecoreError, match="unknown reason"):
        project.label(name, 1, "correct", by="ana", reason="because")
    labels = project.labels(name)
    mine = labels[labels.annotator == "ana"].set_index("position")
    assert mine.loc[1, "verdict"] == "correct"
    assert mine.loc[2, "verdict"] == "incorrect" and mine.loc[2, "reason"] == "prefilled_form"
    assert set(labels.annotator.dropna()) == {"ana", "bo"}
    # The same draw as the command's, seed for seed.
    subprocess.run(
        [cli(), "sample", "--project", str(path), "--bands", "0.1,0.5,1.0", "--per-stratum", "4",
         "--seed", "3", "--name", "by-command"],
        check=True,
        capture_output=True,
    )
    both = project.labels()
    drawn = both.drop_duplicates(["sample", "position"]).groupby("sample")["a_key"].apply(list)
    assert drawn[name] == drawn["by-command"]


def test_progress_reaches_the_callback_by_stage() -> None:
    seen: list[tuple[str, int, int]] = []
    samecore.run(goldset(), progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = [s for s, _, _ in seen]
    assert stages[0].startswith("reading") and "signatures" in stages, stages
    # The last report is the last stage complete.
    stage, done, total = seen[-1]
    assert done == total


def test_the_gil_is_released_and_an_exception_of_the_callback_cancels() -> None:
    path = goldset()
    ticks = 0
    finished = threading.Event()

    def work() -> None:
        samecore.Session(path, progress=False)
        finished.set()

    thread = threading.Thread(target=work)
    thread.start()
    while not finished.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    # Python ran beside the reading (about 250 ms: some hundred ticks when the GIL is free).
    assert ticks > 50, ticks

    class Stop(Exception):
        pass

    def stop(stage: str, done: int, total: int) -> None:
        raise Stop(stage)

    started = time.perf_counter()
    with pytest.raises(Stop):
        samecore.Session(path, progress=stop)
    # Cancelled at the first report, not after the whole reading.
    assert time.perf_counter() - started < 5


def test_goldset_dev_as_the_command_scores_it() -> None:
    path = goldset()
    ours = samecore.run(path, progress=False)
    out = subprocess.run([cli(), "run", str(path), "--json"], check=True, capture_output=True)
    theirs = json.loads(out.stdout)
    assert ours.metrics == theirs["metrics"]
    # The same summary as the command's (its times and project aside).
    for key in set(theirs) - {"seconds", "seconds_per_document", "project_run"}:
        assert ours.summary[key] == theirs[key], key
    assert ours.metrics["pairwise"]["f1"] > 0.95


def test_help_renders_the_docstrings() -> None:
    text = pydoc.render_doc(samecore.Session, renderer=pydoc.plaintext)
    assert "Run a detector" in text and "threshold" in text
    assert "DataFrame" in pydoc.render_doc(samecore.run, renderer=pydoc.plaintext)
    assert samecore.__version__


def test_hostile_pages_warn_in_python_and_keys_join(tmp_path: Path) -> None:
    """A folder with a page over the size limit and hostile titles: the reading warning is a
    Python warning; a run's clusters and the project's pages and codes join on one key."""
    root = tmp_path / "pages"
    (root / "story").mkdir(parents=True)
    story = ("The council voted on Tuesday to close the old bridge for repairs that will take "
             "most of the winter, and drivers were told to use the ring road instead. ") * 3
    for name, title in [("a.html", "\x1b[2Jcleared"), ("b.html", '=HYPERLINK("http://e.example/")')]:
        (root / "story" / name).write_text(
            f"<html><head><title>{title}</title></head><body><p>{story}</p></body></html>"
        )
    with open(root / "big.html", "wb") as f:
        f.truncate(64 * 1024 * 1024 + 1)
    with pytest.warns(samecore.SamecoreWarning, match="larger than"):
        session = samecore.Session(root, progress=False)
    run = session.run("spotsigs", progress=False)
    path = tmp_path / "p.samecore"
    run.save(path)
    subprocess.run([cli(), "code", "--project", str(path), "--by", "ana", "apply", "--new",
                    "bridge", "--cluster", str(int(run.clusters.cluster.iloc[0]))], check=True)
    project = samecore.Project(path)
    pages, codes = project.pages(), project.codes
    joined = run.clusters.merge(pages, on=["key", "record_id"], suffixes=("", "_p"))
    assert len(joined) == len(run.clusters) == len(pages) == 2
    assert set(codes.key) <= set(run.clusters.key)


def test_codebook_values_dataset_and_agreement_from_python(tmp_path: Path) -> None:
    """Two coders code stories through the command; Python reads the codebook, every value
    long, the data set wide and alpha per variable, which equals the krippendorff package."""
    path = tmp_path / "study.samecore"
    samecore.run(SAMPLE, progress=False).save(path)
    book = tmp_path / "codebook.json"
    book.write_text(json.dumps({"variables": [
        {"name": "tone", "level": "ordinal", "kind": "one", "unit": "story",
         "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "neutral"},
                    {"code": 3, "label": "positive"}]}]}))
    subprocess.run([cli(), "codebook", "--project", str(path), "read", str(book)], check=True)
    clusters = samecore.Project(path).pages().cluster.dropna().astype(int).unique()[:8]
    ana = [1, 2, 3, 2, 1, 3, 3, 2]
    ben = [1, 2, 3, 3, 1, 3, 2, 2]
    for c, a, b in zip(clusters, ana, ben):
        for who, v in (("ana", a), ("ben", b)):
            subprocess.run([cli(), "code", "--project", str(path), "--by", who, "value", "tone",
                            str(v), "--cluster", str(c)], check=True, capture_output=True)
    project = samecore.Project(path)
    assert project.codebook["version"] == 1
    assert project.codebook["variables"][0]["name"] == "tone"
    values = project.values()
    assert len(values) == 16 and set(values.coder) == {"ana", "ben"}
    assert set(values.label) <= {"negative", "neutral", "positive"}
    data = project.dataset()
    assert len(data) == 8 and data.disagreements.notna().sum() == 2
    icr = project.reliability()
    assert list(icr.columns) == ["unit", "coder", "tone"] and len(icr) == 16
    try:
        import pyreadstat
    except ImportError:
        pyreadstat = None
    if pyreadstat is not None:
        for ext in ("sav", "dta"):
            target = tmp_path / f"dataset.{ext}"
            assert project.write_dataset(target) == 8
            back, meta = (pyreadstat.read_sav if ext == "sav" else pyreadstat.read_dta)(str(target))
            assert len(back) == 8 and "tone_label" not in back.columns
            assert meta.variable_value_labels["tone"][2.0] == "neutral"
        spss = pd.read_spss(tmp_path / "dataset.sav")
        assert set(spss.tone.dropna()) <= {"negative", "neutral", "positive"}
        stata = pd.read_stata(tmp_path / "dataset.dta")
        assert len(stata) == 8
    table = project.agreement(resamples=500)
    alpha = float(table.set_index("variable").alpha["tone"])
    try:
        import krippendorff
        import numpy as np
    except ImportError:
        return
    reference = krippendorff.alpha(reliability_data=np.array([ana, ben], dtype=float),
                                   level_of_measurement="ordinal")
    assert abs(alpha - reference) < 1e-9


def test_a_round_is_coded_in_packages_from_python_and_merged(tmp_path: Path) -> None:
    """Project.assign writes a package per coder; one is coded from Python (Package), one from
    the command; Project.merge brings both in, and again adds nothing."""
    path = tmp_path / "study.samecore"
    samecore.run(SAMPLE, progress=False).save(path)
    book = tmp_path / "codebook.json"
    book.write_text(json.dumps({"variables": [
        {"name": "tone", "level": "nominal", "kind": "one", "unit": "story", "cannot_code": 99,
         "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "positive"}]}]}))
    subprocess.run([cli(), "codebook", "--project", str(path), "read", str(book)], check=True)
    subprocess.run([cli(), "round", "--project", str(path), "new", "r1", "--size", "5",
                    "--coders", "ana,ben", "--seed", "2"], check=True, capture_output=True)
    project = samecore.Project(path)
    written = project.assign("r1", out=tmp_path, by="lead")
    assert [p["coder"] for p in written] == ["ana", "ben"]
    ana = samecore.Package(written[0]["file"])
    stories = ana.stories()
    assert len(stories) == 5 and stories.core.str.len().min() > 0
    assert "view" not in stories.columns
    for c in stories.cluster:
        ana.code(c, "tone", 1)
    ana.code(stories.cluster[0], "tone", 99)
    assert ana.undo() == ("tone", int(stories.cluster[0]))
    with pytest.raises(samecore.SamecoreError):
        ana.code(stories.cluster[0], "tone", 7)
    assert ana.progress() == (5, 5)
    assert set(ana.values().value) == {"1"}
    ben_file = written[1]["file"]
    for c in stories.cluster[:3]:
        subprocess.run([cli(), "code", "--package", ben_file, "value", "tone", "2", "--cluster",
                        str(c)], check=True, capture_output=True)
    report = project.merge([ana.path, ben_file])
    assert [p["values_in"] for p in report["packages"]] == [6, 3]
    assert ana.pages(stories.cluster[0]).empty  # no page variable: no pages carried
    again = project.merge([ben_file, ana.path])
    assert [p["values_in"] for p in again["packages"]] == [0, 0]
    values = project.values()
    assert (values.coder == "ana").sum() == 5 and (values.coder == "ben").sum() == 3


def test_a_sample_is_judged_in_packages_from_python_and_merged(tmp_path: Path) -> None:
    """Project.assign(sample=...) writes a package of pairs per coder; one is judged from
    Python (Package.label / undo_label), one from the command (label --package --answers);
    Project.merge brings the labels in, and again adds nothing."""
    path = tmp_path / "pairs.samecore"
    samecore.run(SAMPLE, progress=False).save(path)
    subprocess.run([cli(), "sample", "--project", str(path), "--name", "s1", "--size", "6",
                    "--seed", "4", "--blind"], check=True, capture_output=True)
    project = samecore.Project(path)
    written = project.assign(sample="s1", coders=["ana", "ben"], out=tmp_path)
    assert [p["coder"] for p in written] == ["ana", "ben"]
    assert all(p["units"] == 6 for p in written)
    ana = samecore.Package(written[0]["file"])
    pairs = ana.pairs()
    assert len(pairs) == 6 and list(pairs.position) == [1, 2, 3, 4, 5, 6]
    # Blind: no score or stratum; both pages' cores are there.
    assert pairs.score.isna().all() and pairs.stratum.isna().all()
    assert pairs.a_core.str.len().min() > 0 and pairs.b_core.str.len().min() > 0
    ana.label(1, "correct")
    ana.label(2, "incorrect", reason="url_only", note="a different day")
    ana.label(3, "undecided")
    assert ana.undo_label() == 3
    with pytest.raises(samecore.SamecoreError):
        ana.label(7, "correct")
    assert ana.progress() == (2, 6)
    assert list(ana.pairs().verdict[:3].fillna("")) == ["correct", "incorrect", ""]
    answers = tmp_path / "ben.txt"
    answers.write_text("1 c\n2 c\n")
    subprocess.run([cli(), "label", "--package", written[1]["file"], "--answers",
                    str(answers)], check=True, capture_output=True)
    report = project.merge([ana.path, written[1]["file"]])
    assert [p["labels_in"] for p in report["packages"]] == [3, 2]
    again = project.merge([written[1]["file"], ana.path])
    assert [p["labels_in"] for p in again["packages"]] == [0, 0]
    labels = project.labels("s1")
    judged = labels[labels.annotator.notna() & (labels.annotator != "")]
    assert sorted(zip(judged.annotator, judged.position, judged.verdict)) == [
        ("ana", 1, "correct"), ("ana", 2, "incorrect"), ("ben", 1, "correct"),
        ("ben", 2, "correct")]


def test_a_page_variable_is_coded_in_a_package_from_python(tmp_path: Path) -> None:
    """A codebook with a page variable: the package carries each story's pages; Package.code
    with page= codes one of them, and the merge puts the value on that page."""
    path = tmp_path / "pages.samecore"
    samecore.run(SAMPLE, progress=False).save(path)
    book = tmp_path / "codebook.json"
    book.write_text(json.dumps({"variables": [
        {"name": "tone", "level": "nominal", "kind": "one", "unit": "story",
         "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "positive"}]},
        {"name": "genre", "level": "nominal", "kind": "one", "unit": "page",
         "values": [{"code": 1, "label": "news"}, {"code": 2, "label": "opinion"}]}]}))
    subprocess.run([cli(), "codebook", "--project", str(path), "read", str(book)], check=True)
    subprocess.run([cli(), "round", "--project", str(path), "new", "r1", "--size", "3",
                    "--coders", "ana,ben", "--seed", "2"], check=True, capture_output=True)
    project = samecore.Project(path)
    ana = samecore.Package(project.assign("r1", out=tmp_path, coders=["ana"])[0]["file"])
    cluster = int(ana.stories().cluster[0])
    pages = ana.pages(cluster)
    assert len(pages) == int(ana.stories().pages[0]) and pages.core.str.len().min() > 0
    ana.code(cluster, "genre", 2, page=pages.url[0])
    with pytest.raises(samecore.SamecoreError):
        ana.code(cluster, "tone", 1, page=pages.url[0])
    values = ana.values()
    assert list(values.page) == [pages.key[0]]
    project.merge([ana.path])
    merged = project.values()
    assert ((merged.variable == "genre") & (merged.coder == "ana")).sum() == 1


def test_search_gives_the_stories_the_command_gives(sample_run: samecore.Run, tmp_path: Path) -> None:
    path = tmp_path / "search.samecore"
    run_id = sample_run.save(path)
    project = samecore.Project(path)
    found = project.search('"zoning map" OR zoning', progress=False)
    assert found.attrs["story_count"] == len(found) > 0
    assert found.attrs["page_count"] == int(found.matches.sum())
    # One row per story: the clusters of the run, each with its members that match.
    pages = project.pages(run_id)
    cluster_of = dict(zip(pages.key, pages.cluster))
    for row in found.itertuples():
        assert {cluster_of[k] for k in row.pages} == {row.cluster}
        assert row.size == int((pages.cluster == row.cluster).sum())
        for start, end in row.highlights:
            # English is stemmed: "zoning" finds "zone" and "zones" too.
            hit = row.snippet[start:end].lower()
            assert hit.startswith("zon") or hit == "map", hit
    # The command's JSON says the same.
    out = subprocess.run(
        [cli(), "search", "--project", str(path), "--json", '"zoning map" OR zoning'],
        check=True, capture_output=True, text=True,
    ).stdout
    stories = json.loads(out)
    assert [s["cluster"] for s in stories["stories"]] == list(found.cluster)
    assert stories["pages"] == found.attrs["page_count"]
    # A code applied since is searched at once (the project file changed).
    project.code(found.pages.iloc[0][0], "zoning", by="ana")
    coded = project.search("code:zoning", progress=False)
    assert list(coded.cluster) == [found.cluster.iloc[0]]
    by_page = project.search("zoning", by_page=True, progress=False)
    assert len(by_page) == found.attrs["page_count"]
    with pytest.raises(samecore.SamecoreError, match=r"(?s)unclosed phrase.*\^"):
        project.search('"zoning map', progress=False)
