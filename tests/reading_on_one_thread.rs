//! Reading from inside rayon's global pool when it has one thread: the thread that takes the
//! decoded pages is then the only one that can decode them. A process of its own, since the
//! global pool is built once per process.

use samecore::archive::{self, ReadOptions};
use samecore::progress::Progress;

#[test]
fn a_folder_is_read_from_the_only_thread_of_the_global_pool() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for i in 0..200 {
        let html = format!(
            "<html><title>t{i}</title><p>{}</p></html>",
            "word ".repeat(i)
        );
        std::fs::write(dir.path().join(format!("p{i:03}.html")), html).unwrap();
    }
    let paths = [dir.path().to_path_buf()];
    let read = || {
        let progress = Progress::new();
        let collection = archive::load(&paths, &ReadOptions::default(), &progress).unwrap();
        let titles: Vec<String> = (collection.docs.iter())
            .map(|d| d.title.as_deref().unwrap_or_default().to_string())
            .collect();
        titles
    };
    let expected: Vec<String> = (0..200).map(|i| format!("t{i}")).collect();
    assert_eq!(read(), expected);
    // Inside the pool, on its one thread.
    let (inside, _) = rayon::join(read, || ());
    assert_eq!(inside, expected);
    let mut one_file = Vec::new();
    let progress = Progress::new();
    rayon::scope(|_| {
        archive::read_file(dir.path(), &ReadOptions::default(), &progress, &mut |d| {
            one_file.push(d.title.as_deref().unwrap_or_default().to_string())
        })
        .unwrap();
    });
    assert_eq!(one_file, expected);
}
