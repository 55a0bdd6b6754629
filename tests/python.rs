//! The Python package (`python/`) and the notebook (`examples/`), run from `cargo test`: the
//! package's pytest suite, which holds it equal to the `samecore` command built here, and the
//! notebook executed headless by nbclient, every cell.
//!
//! They need the package installed (`pip install ./python pytest nbclient ipykernel
//! matplotlib`, as `.ci/run` does). Without it they skip with a message, unless
//! `SAMECORE_REQUIRE_PYTHON_PACKAGE=1` (CI), where its absence fails. An installed package
//! whose Python half differs from this checkout's fails too: it would test other code.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether python3 has the package and the test tools; fails where they are required.
fn package_installed() -> bool {
    let found = Command::new("python3")
        .args([
            "-c",
            "import samecore, pytest, nbclient, ipykernel, matplotlib",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("SAMECORE_REQUIRE_PYTHON_PACKAGE").as_deref() != Ok("1"),
            "SAMECORE_REQUIRE_PYTHON_PACKAGE=1 but python3 lacks samecore or the test tools \
             (pip install ./python pytest nbclient ipykernel matplotlib)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the Python package's tests and the notebook: python3 lacks samecore or the \
             test tools (pip install ./python pytest nbclient ipykernel matplotlib)"
        );
        return false;
    }
    // The installed Python half is this checkout's.
    let out = Command::new("python3")
        .args([
            "-c",
            "import samecore, sys; sys.stdout.write(samecore.__file__)",
        ])
        .output()
        .unwrap();
    let installed = std::fs::read_to_string(String::from_utf8(out.stdout).unwrap()).unwrap();
    let here = std::fs::read_to_string(repo().join("python/samecore/__init__.py")).unwrap();
    assert!(
        installed == here,
        "the installed samecore package is not this checkout's: pip install ./python again"
    );
    true
}

fn run(command: &mut Command, what: &str) {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = writeln!(
        std::io::stderr(),
        "{}",
        String::from_utf8_lossy(&out.stdout).trim_end()
    );
}

#[test]
fn the_python_package_passes_its_tests_against_the_command() {
    if !package_installed() {
        return;
    }
    run(
        Command::new("python3")
            .args([
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "python/tests",
            ])
            .current_dir(repo())
            .env("SAMECORE_BIN", env!("CARGO_BIN_EXE_samecore")),
        "pytest python/tests",
    );
}

#[test]
fn the_notebook_runs_every_cell() {
    if !package_installed() {
        return;
    }
    let notebook = repo().join("examples/samecore-notebook.ipynb");
    assert!(Path::new(&notebook).is_file());
    let script = r#"
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3",
               resources={"metadata": {"path": sys.argv[2]}}).execute()
cells = [c for c in nb.cells if c.cell_type == "code"]
errors = [o for c in cells for o in c.get("outputs", []) if o.output_type == "error"]
plots = [o for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
assert not errors, errors
assert plots, "the notebook drew no plot"
print(f"the notebook ran {len(cells)} code cells, {len(plots)} plot(s)")
"#;
    // The notebook keeps its study in a fresh temporary folder, as a reader's would be; the
    // kernel inherits TMPDIR, so the test's runs leave nothing behind in the system's.
    let tmp = tempfile::tempdir().unwrap();
    run(
        Command::new("python3")
            .args(["-c", script])
            .arg(&notebook)
            .arg(repo().join("examples"))
            .env("TMPDIR", tmp.path())
            .current_dir(repo()),
        "the notebook",
    );
}
