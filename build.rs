//! Build script: on Linux the `samecore` binary is linked as a position-dependent executable
//! (`-no-pie`), the library, tests, benches and the Python extension as before.
//!
//! Why: a position-independent `samecore` carried 89,214 relative relocations (2.1 MB of
//! `.rela.dyn`: the stop-word lists, html5ever's atoms, the public suffix list, every static
//! table of `&str`). The dynamic loader wrote each of them at every start, and so copied each
//! of the 360 pages of `.data.rel.ro` it wrote to (a copy-on-write fault per page): 1.3 ms of
//! every run before `main`. `samecore --version` took 2.95 ms and now takes 1.62 ms; a
//! goldset-dev `run`, 71.3 against 70.0 ms (medians of 30 alternating runs; docs/benchmarks.md,
//! "Session 38"). Linked at a fixed address, those pointers are written by the linker once.
//!
//! What it costs: the binary's own code and data are not placed at a random address (the
//! libraries it loads, its heap and its stacks still are), as Go's binaries are by default. The
//! relocations' other remedy, packed relative relocations (`-z pack-relative-relocs`), needs
//! glibc 2.36 where the binary runs and still writes every pointer.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        // Binaries only: the Python extension is a shared library and must stay relocatable.
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
