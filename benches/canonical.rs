//! Canonical keys: parcall's `canonical_args` against CPython's
//! `json.dumps(args, sort_keys=True)` on the same corpus, measured side by side in one run
//! (the two sides' rounds alternate), outputs compared byte for byte. A trial's ratio is the
//! median of each round's ratio (CPython's round over parcall's round right after it): on a
//! shared machine whose speed drifts within a run, a pair of adjacent rounds sees one
//! machine. A row is the median of five trials, each with a fresh CPython process and a
//! fresh parcall tree, since where each side's data lands moves it for a whole process.
//! Both sides run on one CPU (see `pin_to_one_cpu`).
//! Two tables: cold, each side's round right after the other's (which pushed its data out of
//! the caches), and warm, each timed round after an untimed pass of the same side over the
//! same corpus (as in use: a key is written just after its args were read).
//! Run: `cargo bench --bench canonical`.
//!
//! `cargo bench --bench canonical -- --alone [--cold]` times parcall alone, 30 rounds per
//! corpus, and prints the best and the median round: for comparing two builds of parcall
//! (run them alternately), where CPython's side only adds noise. `--cold` evicts the cache
//! between rounds (64 MiB written), as CPython's rounds do in the side-by-side run.
//! `--only WORD` keeps the corpora whose name contains WORD (for a profiler's run).
//!
//! Each side reads the same JSON lines with its own parser (CPython's `json.loads`,
//! parcall's `json::parse`) and writes keys from the trees it built, as in use, where args
//! reach `canonical_args` from a case file or a subject's output. `--generated` gives
//! parcall the generator's own trees instead: the same values, but left by proptest in
//! blocks scattered among the ones it freed, which walk slower (BENCHMARKS.md section 1).

use parcall::generate::values;
use parcall::json::{self, Style, Value};
use parcall::reference::canonical_args;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

const ROUNDS: usize = 11;
/// Trials per row, each a fresh CPython process and a fresh parcall tree (see [`table`]).
const TRIALS: usize = 5;

/// The corpus, in three parts measured separately and together: args as models send them
/// (ASCII keys, words, small numbers, a nested filter or list), the adversarial generated
/// args of the differential tests (astral and control characters, huge integers, floats of
/// every magnitude, deep nesting), and wide objects of 100 keys in shuffled order.
fn corpus() -> Vec<(&'static str, Vec<json::Object>)> {
    let mut runner = TestRunner::deterministic();
    let realistic = realistic_args();
    let typical: Vec<json::Object> = (0..14_000)
        .map(|_| realistic.new_tree(&mut runner).unwrap().current())
        .collect();
    let adversarial = values::args(3);
    let tricky: Vec<json::Object> = (0..4_000)
        .map(|_| adversarial.new_tree(&mut runner).unwrap().current())
        .collect();
    let wide: Vec<json::Object> = (0..2_000)
        .map(|i| {
            (0..100)
                .map(|k| {
                    (
                        format!("field_{}", (k * 37 + i) % 100).into(),
                        Value::from(k as i64),
                    )
                })
                .collect()
        })
        .collect();
    vec![
        ("typical tool args", typical),
        ("adversarial (differential-test values)", tricky),
        ("wide (100 keys, shuffled)", wide),
    ]
}

fn realistic_args() -> impl Strategy<Value = json::Object> {
    use proptest::prelude::*;
    let word = prop::sample::select(vec![
        "paris",
        "tokyo",
        "weather",
        "refund policy",
        "shipping",
        "cats",
        "Q3 report",
        "john@example.com",
    ]);
    let leaf = prop_oneof![
        word.clone().prop_map(Value::from),
        (0i64..10_000).prop_map(Value::from),
        (0.0f64..1000.0).prop_map(|f| Value::Float((f * 100.0).round() / 100.0)),
        any::<bool>().prop_map(Value::Bool),
    ];
    let nested = prop_oneof![
        3 => leaf.clone(),
        1 => prop::collection::vec(leaf.clone(), 0..4).prop_map(Value::List),
        1 => prop::collection::vec((prop::sample::select(vec!["from", "to", "unit", "limit"]), leaf), 1..3)
            .prop_map(|e| Value::from(e.into_iter().map(|(k, v)| (k.into(), v)).collect::<json::Object>())),
    ];
    let key = prop::sample::select(vec![
        "query",
        "city",
        "doc_id",
        "a",
        "b",
        "units",
        "max_results",
        "filters",
        "lang",
        "page",
    ]);
    prop::collection::vec((key, nested), 1..5)
        .prop_map(|e| e.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

/// CPython's side: loads the corpus, then times one round each time it reads a line, so
/// its rounds alternate with parcall's and both see the machine in the same state. `warm`:
/// an untimed pass over the corpus first.
const PYTHON: &str = r#"
import json, sys, time
args = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out = []
for command in sys.stdin:
    if command.strip() not in ("cold", "warm"):
        break
    if command.strip() == "warm":
        out = [json.dumps(a, sort_keys=True) for a in args]
    start = time.perf_counter()
    out = [json.dumps(a, sort_keys=True) for a in args]
    print(repr(time.perf_counter() - start), flush=True)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write("\n".join(out))
"#;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let flags: Vec<String> = std::env::args().skip(1).collect();
    let mut parts = corpus();
    if let Some(at) = flags.iter().position(|f| f == "--only") {
        let word = flags
            .get(at + 1)
            .expect("--only takes a word of a corpus's name");
        parts.retain(|(name, _)| name.contains(word.as_str()));
    }
    let generated = flags.iter().any(|f| f == "--generated");
    if parts.len() > 1 {
        let all: Vec<json::Object> = parts.iter().flat_map(|(_, c)| c.clone()).collect();
        parts.push(("all together", all));
    }
    let rows: Vec<Corpus> = parts
        .into_iter()
        .map(|(name, args)| Corpus::new(name, args, generated))
        .collect();
    if flags.iter().any(|f| f == "--alone") {
        alone(&rows, flags.iter().any(|f| f == "--cold"));
        return;
    }
    pin_to_one_cpu();
    for warm in [false, true] {
        table(&rows, warm, generated);
    }
}

/// Keeps this process, and the CPython process it starts (which inherits the mask), on the
/// CPU it runs on now. The two sides run in turn, never at once, so one CPU is all they
/// need. On two, parcall's short round often woke on the CPU left idle through CPython's
/// long one, and ran 1.5-2x slower in most rounds (wide, cold: a median trial of 8-10x
/// unpinned against 14x pinned to either CPU; BENCHMARKS.md section 1). Pinned, each side's
/// round starts on the CPU the other side's round just left.
fn pin_to_one_cpu() {
    // SAFETY: `sched_getcpu` takes nothing; `cpu_set_t` is plain data, zeroed is empty, and
    // `CPU_SET` writes inside it; `sched_setaffinity` reads `size_of::<cpu_set_t>()` bytes.
    unsafe {
        let Ok(cpu) = usize::try_from(libc::sched_getcpu()) else {
            eprintln!("sched_getcpu failed: the sides run unpinned");
            return;
        };
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            eprintln!("sched_setaffinity failed: the sides run unpinned");
        }
    }
}

/// A corpus as both sides get it: its JSON lines, which CPython's side reads with
/// `json.loads`, and parcall's trees.
struct Corpus {
    name: &'static str,
    lines: Vec<String>,
    args: Vec<json::Object>,
}

impl Corpus {
    /// parcall's trees are read from the lines by its own parser, as CPython's are, unless
    /// `generated` asks for the generator's trees.
    fn new(name: &'static str, generated_args: Vec<json::Object>, generated: bool) -> Corpus {
        let lines: Vec<String> = generated_args
            .iter()
            .map(|a| json::dumps_object(a, Style::PYTHON))
            .collect();
        let mut corpus = Corpus {
            name,
            lines,
            args: generated_args,
        };
        if !generated {
            corpus.args = corpus.fresh_args(false);
        }
        corpus
    }

    /// Another copy of parcall's trees, in memory allocated now: read from the lines again,
    /// or with `generated` cloned from the generator's.
    fn fresh_args(&self, generated: bool) -> Vec<json::Object> {
        if generated {
            self.args.clone()
        } else {
            self.lines.iter().map(|line| parse_object(line)).collect()
        }
    }
}

fn parse_object(line: &str) -> json::Object {
    match json::parse(line).expect("the bench's own JSON parses") {
        Value::Object(object) => object,
        other => panic!("an args line is an object, not {}", other.type_name()),
    }
}

/// One table of ratios. Cold: each side's round comes right after the other's, which has
/// pushed its data out of the caches (a corpus is megabytes). Warm: each side's timed round
/// follows an untimed pass of its own over the same corpus, as a key is written in use, just
/// after its args were read.
///
/// Each row is [`TRIALS`] trials: a fresh CPython process and a fresh parcall tree each, the
/// earlier trees kept alive so that the new one lands on other pages. Where a side's data
/// lands moves its speed for the whole process (run alone, one process in five or so of
/// parcall's is 20-30% slower on every round), so one trial is one draw of that lottery per
/// side; the row gives the median trial and the range.
///
/// Two ratios per trial. The median of the rounds' ratios is what this bench always gave.
/// The ratio of the two sides' best rounds is the other: another tenant's burst of work
/// lands on parcall's short rounds (a few milliseconds) all or nothing, so a third of them or
/// more can come out 1.5-2x slow, while CPython's rounds (tens of milliseconds) each take in
/// a share of it; a side's best round is its round without the burst (BENCHMARKS.md
/// section 1).
fn table(rows: &[Corpus], warm: bool, generated: bool) {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "\ncanonical keys, {}, {TRIALS} trials of {ROUNDS} rounds, measured side by side in one run (a trial's ratio: the median of its rounds' ratios)",
        if warm { "warm (each timed round after an untimed pass)" } else { "cold (each side's round after the other's)" }
    )
    .unwrap();
    writeln!(out, "| corpus | objects | JSON | CPython json.dumps(sort_keys=True) | parcall canonical_args | ratio: rounds' ratios' median (trials' range) | ratio: best rounds (trials' range) | byte-identical |").unwrap();
    writeln!(out, "| --- | --- | --- | --- | --- | --- | --- | --- |").unwrap();
    let mut identical_everywhere = true;
    for corpus in rows {
        let mut trees: Vec<Vec<json::Object>> = Vec::new();
        let mut trials: Vec<Measure> = Vec::new();
        for trial in 0..TRIALS {
            if trial > 0 {
                trees.push(corpus.fresh_args(generated));
            }
            let args = trees.last().unwrap_or(&corpus.args);
            trials.push(measure(&corpus.lines, args, warm));
        }
        let n = corpus.args.len() as f64;
        let identical = trials.iter().map(|m| m.identical).min().unwrap_or(0);
        identical_everywhere &= identical == corpus.args.len();
        let summary = |ratio: fn(&Measure) -> f64| {
            let ratios: Vec<f64> = trials.iter().map(ratio).collect();
            let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let high = ratios.iter().copied().fold(0.0, f64::max);
            format!("{:.1}x ({low:.1}-{high:.1}x)", median(ratios))
        };
        writeln!(
            out,
            "| {} | {} | {:.1} MB | {:.0} ns/key | {:.0} ns/key | {} | {} | {}/{} |",
            corpus.name,
            corpus.args.len(),
            corpus.lines.iter().map(String::len).sum::<usize>() as f64 / 1e6,
            median(trials.iter().map(|m| m.python).collect()) / n * 1e9,
            median(trials.iter().map(|m| m.rust).collect()) / n * 1e9,
            summary(|m| m.ratio),
            summary(|m| m.best_ratio),
            identical,
            corpus.args.len()
        )
        .unwrap();
    }
    assert!(identical_everywhere, "keys differ from CPython's");
}

/// parcall alone on each corpus: best and median of 30 rounds, in ns per key.
fn alone(parts: &[Corpus], cold: bool) {
    let mut evict = vec![0u8; 64 << 20];
    for Corpus {
        name, args: corpus, ..
    } in parts
    {
        let mut rounds = Vec::new();
        for round in 0..30u8 {
            if cold {
                evict.iter_mut().step_by(64).for_each(|b| *b = round);
                std::hint::black_box(&evict);
            }
            let start = Instant::now();
            let keys: Vec<String> = corpus.iter().map(canonical_args).collect();
            rounds.push(start.elapsed().as_secs_f64() / corpus.len() as f64 * 1e9);
            std::hint::black_box(keys);
        }
        let best = rounds.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "{name}: best {best:.0} ns/key, median {:.0} ns/key{}",
            median(rounds),
            if cold { " (cold)" } else { "" }
        );
    }
}

struct Measure {
    python: f64,
    rust: f64,
    /// The median of the rounds' ratios.
    ratio: f64,
    identical: usize,
    /// CPython's best round over parcall's best round.
    best_ratio: f64,
}

/// One trial: CPython's rounds on `lines` alternated with parcall's on `corpus`.
fn measure(lines: &[String], corpus: &[json::Object], warm: bool) -> Measure {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("corpus.jsonl");
    std::fs::write(&input, lines.join("\n")).unwrap();
    let python_out = dir.path().join("python.txt");
    let mut child = Command::new("python3")
        .args([
            "-c",
            PYTHON,
            input.to_str().unwrap(),
            python_out.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut to_python = child.stdin.take().unwrap();
    let mut from_python = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut python = Vec::new();
    let mut rust = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for _ in 0..ROUNDS {
        writeln!(to_python, "{}", if warm { "warm" } else { "cold" }).unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut from_python, &mut line).unwrap();
        python.push(line.trim().parse::<f64>().expect("a time from python3"));
        // Kept alive through the timed round, as CPython's side keeps its untimed pass's
        // list: the timed round must not write into blocks the untimed one just freed.
        let untimed: Vec<String> = if warm {
            corpus.iter().map(canonical_args).collect()
        } else {
            Vec::new()
        };
        let start = Instant::now();
        let round: Vec<String> = corpus.iter().map(canonical_args).collect();
        rust.push(start.elapsed().as_secs_f64());
        drop(std::hint::black_box(untimed));
        keys = round;
    }
    drop(to_python);
    assert!(child.wait().unwrap().success(), "python3 failed");
    let expected = std::fs::read_to_string(&python_out).unwrap();
    let identical = expected.lines().zip(&keys).filter(|(a, b)| a == b).count();
    let ratios = python.iter().zip(&rust).map(|(p, r)| p / r).collect();
    let best = |rounds: &[f64]| rounds.iter().copied().fold(f64::INFINITY, f64::min);
    Measure {
        best_ratio: best(&python) / best(&rust),
        python: median(python),
        rust: median(rust),
        ratio: median(ratios),
        identical,
    }
}
