//! `samecore label --project FILE.samecore --sample NAME --annotator WHO`: judge sampled pairs
//! in the terminal (henzinger §3.1), one line of keys per pair read from stdin — so it can be
//! scripted by piping keys in:
//!
//! ```text
//! c            correct            i   incorrect          u   undecided
//! c1           correct, reason 1 (URL only) … 9 (cannot evaluate), 0 (other)
//! u7 a note    undecided, reason 7 (prefilled form), with a note
//! z            undo the last decision        s   skip this pair       q   quit
//! ```
//!
//! Every decision is committed as it is made. `--report` prints the estimates instead:
//! precision per stratum and overall (weighted by stratum sizes) with Wilson intervals, the
//! reasons, Cohen's kappa between annotators and the disagreements to settle; `--term-diffs`
//! adds the term-difference distribution (pages re-read from their archives). `--settle
//! POS=VERDICT[:REASON]` records the final decision on a pair (by `--annotator`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use samecore::labels::estimate::{self, SampleEstimate};
use samecore::labels::stats;
use samecore::labels::termdiff::{self, TermDiffDistribution};
use samecore::labels::{LabelInput, Reason, Verdict};
use samecore::store::Project;
use samecore::store::samples::{PairView, SampleInfo};

/// Arguments of `samecore label`.
#[derive(Debug, Args)]
pub struct LabelArgs {
    /// The project file.
    #[arg(long, required_unless_present = "package", conflicts_with = "package")]
    pub project: Option<PathBuf>,
    /// A coder's package of pairs (from `samecore assign --sample`) instead of the project:
    /// its pairs are judged from the prompt or `--answers`, every decision saved in it.
    #[arg(long)]
    pub package: Option<PathBuf>,
    /// The sample to label.
    #[arg(long, required_unless_present = "package")]
    pub sample: Option<String>,
    /// Who is labelling (or settling).
    #[arg(long, default_value = "")]
    pub annotator: String,
    /// Print estimates, agreement and disagreements instead of labelling.
    #[arg(long)]
    pub report: bool,
    /// With --report: count only this annotator's labels (default: settled or unanimous).
    #[arg(long)]
    pub only: Option<String>,
    /// With --report: add the term-difference distribution (re-reads pages).
    #[arg(long)]
    pub term_diffs: bool,
    /// Settle a pair: POSITION=VERDICT[:REASON] (positions as shown, from 1); repeatable.
    #[arg(long, value_name = "POS=VERDICT")]
    pub settle: Vec<String>,
    /// With --report: print the report as one JSON object (for scripts).
    #[arg(long)]
    pub json: bool,
    /// Label from a file of answers keyed by position, the scripted way: one pair a line,
    /// `POSITION ANSWER` with the keys the prompt takes (`3 c`, `4 i2 prefilled form`; `#`
    /// starts a comment). Every line is checked before any label is stored.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// With --report: recommend the lowest threshold whose precision (lower 95 % bound, from
    /// the judged pairs, weighted by stratum) reaches this target from there up.
    #[arg(long, default_value_t = 0.95, value_parser = super::fraction)]
    pub precision_target: f64,
}

/// Run `samecore label`.
pub fn run(args: LabelArgs) -> anyhow::Result<()> {
    let (path, name) = match (&args.project, &args.package, &args.sample) {
        (_, Some(package), _) => return in_package(package, &args),
        (Some(p), None, Some(s)) => (p, s),
        _ => {
            bail!("say which project and sample (--project P --sample S) or package (--package F)")
        }
    };
    let mut project = super::open_existing(path)?;
    if !args.report {
        // Labels are stored as they are given: a project that cannot keep them is said first.
        project
            .check_writable()
            .with_context(|| format!("cannot write to project {}", path.display()))?;
    }
    let sample = project.sample_by_name(name)?;
    let mut out = super::stdout_for(args.json);
    if !args.settle.is_empty() {
        let by = needs_name(&args.annotator)?;
        // Every settlement is read before any is stored: a bad one leaves none half done.
        let mut settlements = Vec::with_capacity(args.settle.len());
        for spec in &args.settle {
            let (position, label) = parse_settlement(spec)?;
            if position >= sample.size {
                bail!(
                    "sample {:?} has {} pairs, no pair {} (nothing settled)",
                    sample.name,
                    sample.size,
                    position + 1
                );
            }
            settlements.push((position, label));
        }
        for (position, label) in settlements {
            project.settle(sample.id, position, by, &label)?;
            writeln!(out, "settled pair {}: {}", position + 1, label.verdict)?;
        }
        return Ok(());
    }
    if args.report {
        return report(&project, &sample, &args, &mut out);
    }
    let who = needs_name(&args.annotator)?;
    if let Some(path) = &args.answers {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read answers {}", path.display()))?;
        let answers = parse_answers(&text, sample.size)
            .with_context(|| format!("{} (nothing labelled)", path.display()))?;
        for (position, label) in &answers {
            save_with_retry(&mut out, *position, label, || {
                project.add_label(sample.id, *position, who, label)
            })?;
        }
        writeln!(
            out,
            "{} pairs labelled by {who} from {}",
            answers.len(),
            path.display()
        )?;
        return Ok(());
    }
    let stdin = std::io::stdin();
    let interactive = std::io::IsTerminal::is_terminal(&stdin);
    label_loop(
        &mut InProject {
            project: &mut project,
            sample: &sample,
        },
        who,
        &mut stdin.lock(),
        interactive,
        &mut out,
    )
}

/// `--answers`: (position from 0, label) per line, every line checked.
fn parse_answers(text: &str, size: u32) -> anyhow::Result<Vec<(u32, LabelInput)>> {
    let mut out: Vec<(u32, LabelInput)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("line {}: {line:?}", n + 1);
        let (pos, keys) = line
            .split_once([' ', '\t', ','])
            .with_context(|| format!("{}: expected POSITION ANSWER", at()))?;
        let position: u32 = pos
            .trim()
            .parse()
            .with_context(|| format!("{}: {pos:?} is not a position", at()))?;
        if position == 0 || position > size {
            bail!(
                "{}: no pair {position} (the sample has {size}, from 1)",
                at()
            );
        }
        let label = match parse_key(keys) {
            Ok(Key::Label(label)) => label,
            Ok(_) => bail!(
                "{}: an answer is c, i or u (with a reason digit and a note)",
                at()
            ),
            Err(e) => bail!("{}: {e}", at()),
        };
        if out.iter().any(|(p, _)| *p == position - 1) {
            bail!("{}: pair {position} answered twice", at());
        }
        out.push((position - 1, label));
    }
    Ok(out)
}

fn needs_name(name: &str) -> anyhow::Result<&str> {
    if name.trim().is_empty() {
        bail!("say who you are with --annotator NAME");
    }
    Ok(name.trim())
}

/// `3=correct`, `12=undecided:prefilled_form`.
fn parse_settlement(spec: &str) -> anyhow::Result<(u32, LabelInput)> {
    let (pos, rest) = spec
        .split_once('=')
        .with_context(|| format!("--settle {spec:?}: expected POSITION=VERDICT[:REASON]"))?;
    let position: u32 = pos
        .trim()
        .parse()
        .with_context(|| format!("bad position {pos:?}"))?;
    if position == 0 {
        bail!("positions start at 1");
    }
    let (verdict, reason) = match rest.split_once(':') {
        Some((v, r)) => (v, Some(reason(r.trim())?)),
        None => (rest, None),
    };
    let verdict = verdict
        .parse()
        .with_context(|| format!("--settle {spec:?} (nothing settled)"))?;
    Ok((
        position - 1,
        LabelInput {
            verdict,
            reason,
            note: String::new(),
        },
    ))
}

/// The reason of key `n` in a labelling session (`1` the first, `0` the tenth).
fn reason_of_key(n: usize) -> Result<Reason, String> {
    let index = if n == 0 { 9 } else { n - 1 };
    Reason::ALL
        .get(index)
        .copied()
        .ok_or(format!("no reason {n} (keys 1-9 and 0)"))
}

/// A reason by name (`time_stamp`) or by its session key (`2`), for `--settle`.
fn reason(text: &str) -> anyhow::Result<Reason> {
    match text.parse::<usize>() {
        Ok(n) => reason_of_key(n).map_err(|e| anyhow::anyhow!("{e} (nothing settled)")),
        Err(_) => text
            .parse::<Reason>()
            .map_err(|e| anyhow::anyhow!("{e} (nothing settled)")),
    }
}

/// What one line of keys asks for.
#[derive(Debug, PartialEq)]
enum Key {
    Label(LabelInput),
    Undo,
    Skip,
    Quit,
    /// Show both pages' text (the core of each, its site's frame left out where it can be told).
    Text,
}

fn parse_key(line: &str) -> Result<Key, String> {
    let line = line.trim();
    let (head, note) = match line.split_once(char::is_whitespace) {
        Some((h, n)) => (h, n.trim()),
        None => (line, ""),
    };
    let mut chars = head.chars();
    let verdict = match chars.next().map(|c| c.to_ascii_lowercase()) {
        Some('c') => Verdict::Correct,
        Some('i') => Verdict::Incorrect,
        Some('u') => Verdict::Undecided,
        Some('z') if head.len() == 1 => return Ok(Key::Undo),
        Some('s') if head.len() == 1 => return Ok(Key::Skip),
        Some('q') if head.len() == 1 => return Ok(Key::Quit),
        Some('t') if head.len() == 1 => return Ok(Key::Text),
        _ => return Err(format!("unknown key {head:?}")),
    };
    let reason = match chars.as_str() {
        "" => None,
        digit => {
            let n = digit
                .parse()
                .map_err(|_| format!("unknown reason {digit:?}"))?;
            Some(reason_of_key(n)?)
        }
    };
    Ok(Key::Label(LabelInput {
        verdict,
        reason,
        note: note.to_string(),
    }))
}

/// A page's title, read again from its archive, for the prompt; `None` when it has none or its
/// archive cannot be read (the prompt still shows the rest).
fn title(project: &Project, page: &samecore::store::runs::Page) -> Option<String> {
    let location = project.locate(page).ok()?;
    samecore::archive::title_at(&location, page.identity.url.as_deref())
        .ok()
        .flatten()
}

/// One pair at the prompt: each page's title, URL and capture time. In a blind sample (no
/// score shown) a page without a URL is not named by its path: a folder corpus's path names
/// its gold story (`Google_Watch/g16.htm`).
fn show(
    out: &mut impl Write,
    view: &PairView,
    titles: [Option<String>; 2],
    done: u32,
    total: u32,
) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "pair {} of {total} ({done} labelled)",
        view.position + 1
    )?;
    let blind = view.score.is_none();
    for ((side, page), title) in [("A", &view.a), ("B", &view.b)].into_iter().zip(titles) {
        let p = &page.identity;
        let key = if blind && p.url.is_none() { "" } else { &p.key };
        writeln!(
            out,
            "  {side}: {}  {}  {}  {key}",
            title.as_deref().unwrap_or("(no title)"),
            p.url.as_deref().unwrap_or("-"),
            p.date.as_deref().unwrap_or("-"),
        )?;
    }
    if let Some(score) = view.score {
        let detector = (view.detector.as_deref()).map_or_else(String::new, |d| format!(" ({d})"));
        let stratum = view.stratum.as_deref().unwrap_or("-");
        writeln!(out, "  score {score:.4}{detector}, stratum {stratum}")?;
    }
    write!(
        out,
        "c/i/u[reason] [note], t text, z undo, s skip, q quit > "
    )?;
    out.flush()
}

/// A page's core text for reading in the terminal (its content blocks, at most 3,000
/// characters), read again from its archive.
fn page_core(project: &Project, page: &samecore::store::runs::Page) -> anyhow::Result<String> {
    let location = project.locate(page)?;
    let html = samecore::archive::text_at(&location, page.identity.url.as_deref())?;
    Ok(shorten(&samecore::passages::Core::of_page(&html).text))
}

/// A core text on one line, cut after 3,000 characters.
fn shorten(core: &str) -> String {
    let text = core.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.char_indices().nth(3000) {
        Some((cut, _)) => format!(
            "{} … ({} characters in all)",
            &text[..cut],
            text.chars().count()
        ),
        None => text,
    }
}

/// The keys, once at the start of a session.
fn legend(out: &mut impl Write) -> std::io::Result<()> {
    let reasons: Vec<String> = Reason::ALL
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{}={}", (i + 1) % 10, r.title()))
        .collect();
    writeln!(
        out,
        "keys: c correct, i incorrect, u undecided, each optionally followed by a"
    )?;
    writeln!(
        out,
        "reason digit and a note (\"u7 search box prefilled\"); t both pages' text, z undo, \
         s skip, q quit"
    )?;
    writeln!(out, "reasons: {}", reasons.join(", "))
}

/// Where pairs are judged: the project's sample, or a coder's package of its pairs.
trait Judged {
    /// Pairs in all.
    fn size(&self) -> u32;
    /// The pairs `who` has a current label of.
    fn done(&self, who: &str) -> anyhow::Result<BTreeSet<u32>>;
    /// The pair at `position` as the prompt shows it, with both titles.
    fn view(&self, position: u32) -> anyhow::Result<(PairView, [Option<String>; 2])>;
    /// Both pages' core texts.
    fn texts(&self, view: &PairView) -> Vec<String>;
    /// Store `who`'s decision.
    fn add(&mut self, position: u32, who: &str, label: &LabelInput) -> samecore::Result<()>;
    /// Undo `who`'s latest decision; the pair it was on.
    fn undo(&mut self, who: &str) -> anyhow::Result<Option<u32>>;
}

struct InProject<'a> {
    project: &'a mut Project,
    sample: &'a SampleInfo,
}

impl Judged for InProject<'_> {
    fn size(&self) -> u32 {
        self.sample.size
    }
    fn done(&self, who: &str) -> anyhow::Result<BTreeSet<u32>> {
        Ok((self.project.labels(self.sample.id)?.into_iter())
            .filter(|l| l.annotator == who)
            .map(|l| l.position)
            .collect())
    }
    fn view(&self, position: u32) -> anyhow::Result<(PairView, [Option<String>; 2])> {
        let view = self.project.pair_view(self.sample.id, position)?;
        let titles = [title(self.project, &view.a), title(self.project, &view.b)];
        Ok((view, titles))
    }
    fn texts(&self, view: &PairView) -> Vec<String> {
        [&view.a, &view.b]
            .into_iter()
            .map(|page| {
                page_core(self.project, page)
                    .unwrap_or_else(|e| format!("(cannot be read again: {e})"))
            })
            .collect()
    }
    fn add(&mut self, position: u32, who: &str, label: &LabelInput) -> samecore::Result<()> {
        self.project
            .add_label(self.sample.id, position, who, label)
            .map(|_| ())
    }
    fn undo(&mut self, who: &str) -> anyhow::Result<Option<u32>> {
        Ok(self.project.undo_last_label(self.sample.id, who)?)
    }
}

struct InPackage {
    package: samecore::package::Package,
    size: u32,
}

impl Judged for InPackage {
    fn size(&self) -> u32 {
        self.size
    }
    fn done(&self, _who: &str) -> anyhow::Result<BTreeSet<u32>> {
        Ok(self
            .package
            .labels()?
            .into_iter()
            .map(|l| l.position)
            .collect())
    }
    fn view(&self, position: u32) -> anyhow::Result<(PairView, [Option<String>; 2])> {
        let pair = self.package.pair_head(position)?;
        let titles = [pair.a.title.clone(), pair.b.title.clone()];
        Ok((
            PairView {
                position,
                a: pair.a.as_page(0),
                b: pair.b.as_page(1),
                score: pair.score,
                stratum: pair.stratum,
                detector: None,
            },
            titles,
        ))
    }
    fn texts(&self, view: &PairView) -> Vec<String> {
        match self.package.pair(view.position) {
            Ok(pair) => [&pair.a, &pair.b]
                .into_iter()
                .map(|p| shorten(&samecore::passages::Core::of_page(&p.html).text))
                .collect(),
            Err(e) => vec![format!("(cannot be read: {e})")],
        }
    }
    fn add(&mut self, position: u32, _who: &str, label: &LabelInput) -> samecore::Result<()> {
        self.package.add_label(position, label)
    }
    fn undo(&mut self, _who: &str) -> anyhow::Result<Option<u32>> {
        Ok(self.package.undo_label()?)
    }
}

/// `samecore label --package F`: judging the pairs of a coder's package.
fn in_package(path: &std::path::Path, args: &LabelArgs) -> anyhow::Result<()> {
    use samecore::store::packages::PackageKind;
    if args.report || !args.settle.is_empty() {
        bail!("reports and settlements are made in the project, after the merge (--project)");
    }
    let package = samecore::package::Package::open(path)
        .with_context(|| format!("cannot open package {}", path.display()))?;
    let coder = package.info.coder.clone();
    if package.info.kind != PackageKind::Sample {
        bail!(
            "{} holds stories to code, not pairs to judge: samecore code --package",
            path.display()
        );
    }
    if !args.annotator.is_empty() && args.annotator != coder {
        bail!("this package is {coder}'s, not {}'s", args.annotator);
    }
    if let Some(wanted) = &args.sample
        && *wanted != package.info.round
    {
        bail!("this package holds sample {:?}", package.info.round);
    }
    let size = package.pair_count()?;
    let mut judged = InPackage { package, size };
    let mut out = super::stdout_for(false);
    if let Some(file) = &args.answers {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read answers {}", file.display()))?;
        let answers = parse_answers(&text, size)
            .with_context(|| format!("{} (nothing labelled)", file.display()))?;
        for (position, label) in &answers {
            judged.add(*position, &coder, label)?;
        }
        writeln!(
            out,
            "{} pairs labelled by {coder} in the package from {}",
            answers.len(),
            file.display()
        )?;
        return Ok(());
    }
    let stdin = std::io::stdin();
    let interactive = std::io::IsTerminal::is_terminal(&stdin);
    label_loop(
        &mut judged,
        &coder,
        &mut stdin.lock(),
        interactive,
        &mut out,
    )
}

/// Label pair after pair from `input`. From a terminal an unknown key is said and asked again;
/// from a pipe or a file it is an error naming the line, so answers cannot slide onto the
/// wrong pairs (the scripted way is `--answers`, keyed by position).
fn label_loop(
    judged: &mut dyn Judged,
    who: &str,
    input: &mut impl BufRead,
    interactive: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut skipped = BTreeSet::new();
    let mut line_number = 0usize;
    let size = judged.size();
    legend(out)?;
    // Ends when every pair is decided or skipped, at the end of input, or on `q`.
    let labelled = loop {
        let done = judged.done(who)?;
        let Some(position) = (0..size).find(|p| !done.contains(p) && !skipped.contains(p)) else {
            break done.len();
        };
        let (view, titles) = judged.view(position)?;
        show(out, &view, titles, done.len() as u32, size)?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            break done.len();
        }
        line_number += 1;
        let key = match parse_key(&line) {
            Err(e) if !interactive => bail!(
                "line {line_number} of the input: {} for pair {} (piped answers go one a line, \
                 pair after pair; nothing after it was read; `--answers FILE` keys answers by \
                 position)",
                if line.trim().is_empty() {
                    "an empty line".to_string()
                } else {
                    e
                },
                position + 1
            ),
            _ if line.trim().is_empty() => continue,
            key => key,
        };
        match key {
            Ok(Key::Label(label)) => {
                save_with_retry(out, position, &label, || judged.add(position, who, &label))?;
                writeln!(out, "pair {}: {}", position + 1, label.verdict)?;
            }
            Ok(Key::Undo) => match judged.undo(who)? {
                Some(p) => {
                    skipped.remove(&p);
                    writeln!(out, "undid the decision on pair {}", p + 1)?;
                }
                None => writeln!(out, "nothing to undo")?,
            },
            Ok(Key::Skip) => {
                skipped.insert(position);
            }
            Ok(Key::Quit) => break done.len(),
            Ok(Key::Text) => {
                for (side, text) in ["A", "B"].into_iter().zip(judged.texts(&view)) {
                    writeln!(out, "\n--- {side} ---\n{text}")?;
                }
                // The same pair again, with its keys.
                skipped.remove(&position);
            }
            Err(e) => writeln!(out, "{e}")?,
        }
    };
    writeln!(out, "\n{labelled} of {size} pairs labelled by {who}")?;
    Ok(())
}

/// How long a typed decision waits for another samecore's lock on the project before the
/// session gives up (saying what was typed, so it is not lost).
const BUSY_PATIENCE: std::time::Duration = std::time::Duration::from_secs(300);

/// Save a decision, waiting and retrying while another instance holds the project's lock
/// (each try already waits the store's busy timeout); the verdict is kept meanwhile.
fn save_with_retry<T>(
    out: &mut impl Write,
    position: u32,
    label: &LabelInput,
    mut save: impl FnMut() -> samecore::Result<T>,
) -> anyhow::Result<T> {
    let started = std::time::Instant::now();
    let mut told = false;
    loop {
        match save() {
            Err(samecore::Error::ProjectBusy { .. }) if started.elapsed() < BUSY_PATIENCE => {
                if !told {
                    writeln!(
                        out,
                        "the project is busy (another samecore is writing to it); your decision \
                         on pair {} ({}) is kept, retrying…",
                        position + 1,
                        label.verdict
                    )?;
                    out.flush()?;
                    told = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
            Err(e @ samecore::Error::ProjectBusy { .. }) => {
                bail!(
                    "{e}; not saved after {} s: pair {} = {} (enter it again when the other \
                     program has finished)",
                    BUSY_PATIENCE.as_secs(),
                    position + 1,
                    label.verdict
                )
            }
            other => return Ok(other?),
        }
    }
}

fn ci(i: Option<stats::Interval>) -> String {
    match i {
        Some(i) => format!("{:.3} [{:.3}, {:.3}]", i.estimate, i.lo, i.hi),
        None => "-".into(),
    }
}

/// `label --report --json`: the report as one JSON object.
fn json_report(
    project: &Project,
    sample: &SampleInfo,
    e: &SampleEstimate,
    args: &LabelArgs,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let annotators: BTreeSet<&str> = e.labels.iter().map(|l| l.annotator.as_str()).collect();
    let labelled: BTreeMap<&str, usize> = annotators
        .iter()
        .map(|a| (*a, e.labels.iter().filter(|l| l.annotator == *a).count()))
        .collect();
    let names: Vec<&str> = annotators.iter().copied().collect();
    let mut pairwise = Vec::new();
    for (i, first) in names.iter().enumerate() {
        for second in &names[i + 1..] {
            let a = stats::cohen_kappa(&e.labels, first, second);
            pairwise.push(serde_json::json!({"first": first, "second": second, "agreement": a}));
        }
    }
    let recommended = e.recommend(args.precision_target);
    let report = serde_json::json!({
        "sample": sample.name,
        "size": sample.size,
        "method": sample.method,
        "run": sample.run.map(|r| r.0),
        "only": args.only,
        "labelled": labelled,
        "undecided_counts_as": "not correct",
        "precision": e.precision,
        "unsettled": e.resolved.unsettled.iter().map(|p| p + 1).collect::<Vec<_>>(),
        "precision_target": args.precision_target,
        "recommended_threshold": recommended,
        "agreement": pairwise,
        "fleiss": (names.len() > 2).then(|| stats::fleiss_kappa(&e.labels)),
        "settlements": project.settlements(sample.id)?.len(),
    });
    serde_json::to_writer(&mut *out, &report)?;
    writeln!(out)?;
    Ok(())
}

/// The line of the report that recommends a threshold for a precision `target`.
fn recommend(estimate: &SampleEstimate, target: f64) -> String {
    if estimate.judged.is_empty() {
        return "threshold: no pair judged yet".into();
    }
    if estimate.scored().is_empty() {
        return "threshold: no judged pair carries a score (an imported sample)".into();
    }
    match estimate.recommend(target) {
        Some(p) => format!(
            "threshold for precision >= {target} (lower 95 % bound, undecided counted as not \
             correct): {:.4}, precision {} over {} judged pairs at or above it",
            p.threshold,
            ci(p.precision),
            p.judged
        ),
        None => format!(
            "threshold for precision >= {target}: none of the judged scores reaches it with \
             these labels (judge more pairs, or lower --precision-target)"
        ),
    }
}

fn report(
    project: &Project,
    sample: &SampleInfo,
    args: &LabelArgs,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let settlements = project.settlements(sample.id)?;
    if let Some(only) = args.only.as_deref() {
        let known: BTreeSet<String> = project
            .labels(sample.id)?
            .into_iter()
            .map(|l| l.annotator)
            .collect();
        if !known.contains(only) {
            bail!(
                "{only:?} has no labels in sample {:?} (annotators: {})",
                sample.name,
                if known.is_empty() {
                    "none yet".to_string()
                } else {
                    known.into_iter().collect::<Vec<_>>().join(", ")
                }
            );
        }
    }
    let sample_estimate = estimate::sample_estimate(project, sample.id, args.only.as_deref())?;
    if args.json {
        return json_report(project, sample, &sample_estimate, args, out);
    }
    let recommendation = recommend(&sample_estimate, args.precision_target);
    let SampleEstimate {
        labels,
        resolved,
        precision: estimate,
        ..
    } = sample_estimate;
    let run = match sample.run {
        Some(r) => format!("run {r} ({})", project.run(r)?.record.detector),
        None => "imported".into(),
    };
    writeln!(
        out,
        "sample {:?}: {} pairs, {}, {run}",
        sample.name, sample.size, sample.method
    )?;
    let annotators: BTreeSet<&str> = labels.iter().map(|l| l.annotator.as_str()).collect();
    for a in &annotators {
        let n = labels.iter().filter(|l| l.annotator == *a).count();
        writeln!(out, "  {a}: {n} of {} labelled", sample.size)?;
    }
    let c = estimate.counts;
    writeln!(
        out,
        "precision {} (95 % Wilson, weighted by stratum size; undecided counted as not \
         correct); {} judged: {} correct, {} incorrect, {} undecided",
        ci(estimate.overall),
        c.judged(),
        c.correct,
        c.incorrect,
        c.undecided
    )?;
    if !resolved.unsettled.is_empty() {
        writeln!(
            out,
            "  {} pairs left out: annotators disagree, not settled",
            resolved.unsettled.len()
        )?;
    }
    if !estimate.uncovered.is_empty() {
        writeln!(
            out,
            "  strata with no judged pair: {}",
            estimate.uncovered.join(", ")
        )?;
    }
    writeln!(out, "{recommendation}")?;
    writeln!(
        out,
        "{:<28} {:>10} {:>6} {:>8} {:>9} {:>9}  precision [95 % CI]",
        "stratum", "population", "judged", "correct", "incorrect", "undecided"
    )?;
    for s in &estimate.strata {
        writeln!(
            out,
            "{:<28} {:>10} {:>6} {:>8} {:>9} {:>9}  {}",
            s.name,
            s.population,
            s.counts.judged(),
            s.counts.correct,
            s.counts.incorrect,
            s.counts.undecided,
            ci(s.precision)
        )?;
    }
    let mut reasons: BTreeMap<(Verdict, Reason), u64> = BTreeMap::new();
    for l in &labels {
        if let Some(r) = l.label.reason {
            *reasons.entry((l.label.verdict, r)).or_default() += 1;
        }
    }
    if !reasons.is_empty() {
        writeln!(out, "reasons:")?;
        for ((v, r), n) in &reasons {
            writeln!(out, "  {v:<10} {:<22} {n}", r.title())?;
        }
    }
    let names: Vec<&str> = annotators.into_iter().collect();
    for (i, first) in names.iter().enumerate() {
        for second in &names[i + 1..] {
            let agreement = stats::cohen_kappa(&labels, first, second);
            writeln!(
                out,
                "agreement {first} vs {second}: {} pairs, observed {:.3}, kappa {}",
                agreement.items,
                agreement.observed,
                agreement.kappa.map_or("-".into(), |k| format!("{k:.3}"))
            )?;
            for d in &agreement.disagreements {
                let settled = settlements.iter().find(|s| s.position == d.position);
                writeln!(
                    out,
                    "  pair {}: {first} {} / {second} {}{}",
                    d.position + 1,
                    d.first,
                    d.second,
                    settled.map_or(String::new(), |s| format!(
                        " (settled: {})",
                        s.label.verdict
                    ))
                )?;
            }
        }
    }
    if names.len() > 2 {
        let fleiss = stats::fleiss_kappa(&labels);
        writeln!(
            out,
            "agreement of all {} annotators (Fleiss' kappa): {} pairs judged by all, observed \
             {:.3}, kappa {}",
            names.len(),
            fleiss.items,
            fleiss.observed,
            fleiss.kappa.map_or("-".into(), |k| format!("{k:.3}"))
        )?;
    }
    if args.term_diffs {
        let diffs = termdiff::sample_term_differences(project, sample.id)?;
        let values: Vec<(u64, Option<Verdict>)> = diffs
            .iter()
            .filter_map(|d| {
                d.difference
                    .map(|t| (t, resolved.verdicts.get(&d.position).copied()))
            })
            .collect();
        let dist = TermDiffDistribution::from_pairs(&values);
        if values.len() < diffs.len() {
            let missing: Vec<String> = project
                .archive_places()?
                .into_iter()
                .filter(|p| p.found.is_none())
                .map(|p| p.path)
                .collect();
            eprintln!(
                "warning: {} of {} pairs could not be re-read{}",
                diffs.len() - values.len(),
                diffs.len(),
                if missing.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; archives not found: {} (if they moved: samecore relocate --project \
                         {} FOLDER)",
                        missing.join(", "),
                        project
                            .path()
                            .map(|p| p.display().to_string())
                            .unwrap_or_default()
                    )
                }
            );
        }
        writeln!(
            out,
            "term differences: {} of {} pairs re-read; mean {:.1}, median {}, {:.0} % below 42",
            dist.pairs,
            diffs.len(),
            dist.mean,
            dist.median,
            100.0 * dist.share_below(42)
        )?;
        // Bins on the scale of her Figures 2 and 4 (term difference up to 200, then the rest).
        let bins: [(u64, u64); 10] = [
            (0, 0),
            (1, 2),
            (3, 5),
            (6, 10),
            (11, 20),
            (21, 42),
            (43, 100),
            (101, 200),
            (201, 1000),
            (1001, u64::MAX),
        ];
        for (lo, hi) in bins {
            let mut per_verdict = [0u64; 4];
            for (_, per) in dist.counts.range(lo..=hi) {
                for (v, n) in per {
                    let slot = v.map_or(3, |v| {
                        Verdict::ALL.iter().position(|x| *x == v).unwrap_or(3)
                    });
                    per_verdict[slot] += n;
                }
            }
            let total: u64 = per_verdict.iter().sum();
            if total == 0 {
                continue;
            }
            let range = match (lo, hi) {
                (lo, hi) if lo == hi => format!("{lo}"),
                (lo, u64::MAX) => format!("> {}", lo - 1),
                (lo, hi) => format!("{lo}-{hi}"),
            };
            writeln!(
                out,
                "  {range:>10}  {total:>5} pairs  ({} correct, {} incorrect, {} undecided, {} unjudged)",
                per_verdict[0], per_verdict[1], per_verdict[2], per_verdict[3]
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_like_the_help_says() {
        assert_eq!(
            parse_key("c"),
            Ok(Key::Label(LabelInput::new(Verdict::Correct)))
        );
        assert_eq!(
            parse_key("u7 form differs"),
            Ok(Key::Label(LabelInput {
                verdict: Verdict::Undecided,
                reason: Some(Reason::PrefilledForm),
                note: "form differs".into()
            }))
        );
        assert_eq!(
            parse_key("I0"),
            Ok(Key::Label(
                LabelInput::new(Verdict::Incorrect).because(Reason::Other)
            ))
        );
        assert_eq!(parse_key("z"), Ok(Key::Undo));
        assert!(parse_key("x").is_err());
        assert!(parse_key("c12").is_err());
        assert_eq!(
            parse_settlement("3=undecided:cannot evaluate").unwrap().0,
            2
        );
        assert!(parse_settlement("0=correct").is_err());
        // A reason by its session key or by name; a bad one says nothing was settled.
        let by_key = parse_settlement("4=incorrect:2").unwrap();
        assert_eq!(by_key.1.reason, Some(Reason::ALL[1]));
        let name = Reason::ALL[1].to_string();
        assert_eq!(
            parse_settlement(&format!("4=incorrect:{name}")).unwrap(),
            by_key
        );
        let e = parse_settlement("4=incorrect:nonsense")
            .unwrap_err()
            .to_string();
        assert!(e.contains("nothing settled"), "{e}");
        assert!(parse_settlement("4=incorrect:12").is_err());
    }
}
