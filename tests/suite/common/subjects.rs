//! `parcall check` without the process: the same plan, judging and report, on a subject in
//! this process. For loops whose strength is the generator's and the judge's (many seeds),
//! where the pipe would only add seconds.

use parcall::check::{self, Context, Plan, Undefined};
use parcall::fuzz::Drawn;
use parcall::json::{dumps, Style, Value};
use parcall::judge::{BatchRun, Judge};
use parcall::reference::{canonical_key, input, run_parallel_calls, Execution, Tools};
use parcall::report::Report;
use parcall::spec::{Case, CaseTools, Function, Spec};
use parcall::subject::in_process::CaseRun;
use parcall::subject::Subject;
use std::collections::HashMap;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

pub(crate) fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in spec loads"))
}

/// What `parcall check --seed SEED --fuzz FUZZ` reports on `subject`.
pub(crate) fn check(subject: &mut dyn Subject, seed: u64, fuzz: usize) -> Report {
    check_shrinking(subject, seed, fuzz, parcall::fuzz::MAX_SHRINK_RUNS)
}

/// The requirements and verdict `parcall check --seed SEED --fuzz FUZZ` reports on
/// `subject`, its generated failures left as drawn: shrinking chooses which failing case a
/// report shows, never what is charged, and it is most of the time of a loop over a
/// subject that fails nearly every case.
pub(crate) fn verdicts(subject: &mut dyn Subject, seed: u64, fuzz: usize) -> Report {
    check_shrinking(subject, seed, fuzz, 0)
}

fn check_shrinking(
    subject: &mut dyn Subject,
    seed: u64,
    fuzz: usize,
    max_shrink_runs: usize,
) -> Report {
    let spec = spec();
    let drawn = drawn(seed, fuzz);
    let plan = Plan {
        fuzz,
        undefined: Undefined::LeaveOut,
        max_shrink_runs,
        seed,
        drawn: drawn.get().and_then(Option::as_ref),
        ..Plan::new(spec, &spec.cases, judge())
    };
    let checked = check::run(subject, &plan, None);
    let context = Context {
        spec,
        target: "in process",
        rerun_base: "parcall check",
    };
    let report = check::report(&checked, &context);
    let requirements = serde_json::json!({ "requirements": &report.requirements });
    super::assert_tallies_add_up(&requirements);
    report
}

/// The judge every in-process check shares, as the submissions of a class share theirs: a
/// case that passes in one loop has its blame worked out once for all.
pub(crate) fn judge() -> &'static Judge {
    static JUDGE: OnceLock<Judge> = OnceLock::new();
    JUDGE.get_or_init(|| Judge::new(Default::default()))
}

/// One seed's draws, filled by the first loop to reach it.
pub(crate) type DrawSlot = Arc<OnceLock<Option<Drawn>>>;

/// The generated cases of `seed`, drawn once for every loop that checks a subject on it, as
/// `parcall grade` draws a class's hidden cases once (`fuzz::Drawn`): the 20-seed loops
/// check three subjects on the same seeds, and drawing was a third of each loop's CPU. The
/// loops walk the seeds in step, so the last few seeds' draws are kept; a loop that falls
/// further behind draws again, the same cases. Sharing them also shares the cases
/// themselves, so a case that passes in one loop has its blame worked out once for all
/// ([`judge`]).
pub(crate) fn drawn(seed: u64, fuzz: usize) -> DrawSlot {
    const KEPT: usize = 3;
    static DRAWN: Mutex<VecDeque<((u64, usize), DrawSlot)>> = Mutex::new(VecDeque::new());
    let slot = {
        let mut kept = DRAWN.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.iter().find(|(key, _)| *key == (seed, fuzz)) {
            Some((_, slot)) => slot.clone(),
            None => {
                let slot = Arc::new(OnceLock::new());
                if kept.len() == KEPT {
                    kept.pop_front();
                }
                kept.push_back(((seed, fuzz), slot.clone()));
                slot
            }
        }
    };
    // Outside the lock: a loop on another seed need not wait for this draw.
    slot.get_or_init(|| Drawn::new(&spec().cases, &Function::EXERCISES, fuzz, seed));
    slot
}

/// A case as an implementation sees it: the arguments of each batch, canonically written.
/// Each batch's calls as one text, as the strongest memoriser keys them: nothing of the
/// tools' answers, nor of `max_parallel`.
fn batch_keys(case: &Case) -> Vec<String> {
    case.batch_calls()
        .into_iter()
        .map(|calls| dumps(calls, Style::CANONICAL))
        .collect()
}

/// A submission with no logic, as `answers_from_the_spec.py` is: for a batch whose calls it
/// has seen in the public spec it replays the spec's invocations and output (the n-th time
/// it meets those calls, their n-th batch in the spec, round and round); for anything else
/// it returns an empty list or object and invokes nothing (an answer of the right type, which
/// the checks read, unlike `None`).
pub(crate) fn memoriser() -> impl FnMut(&Case) -> CaseRun {
    let mut memory: HashMap<String, Vec<BatchRun>> = HashMap::new();
    for case in &spec().cases {
        let runs = parcall::judge::expectations(&case.case);
        for (key, (output, invocations)) in batch_keys(&case.case).into_iter().zip(runs) {
            memory.entry(key).or_default().push(BatchRun {
                output,
                invocations,
            });
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    move |case: &Case| {
        let runs = batch_keys(case)
            .into_iter()
            .map(|key| match memory.get(&key) {
                Some(runs) => {
                    let n = seen.entry(key).or_default();
                    *n += 1;
                    runs[(*n - 1) % runs.len()].clone()
                }
                None => BatchRun {
                    output: match case {
                        Case::Exec(_) => Value::List(Vec::new()),
                        Case::Dedup(_) => Value::Object(Default::default()),
                        Case::Runtime(_) => Value::List(Vec::new()),
                    },
                    invocations: Vec::new(),
                },
            })
            .collect();
        (runs, None)
    }
}

/// The classic stateful bug: `run_parallel_calls` with a cache that outlives the call, so
/// a key seen in an earlier batch or case is answered from it without running the tool.
pub(crate) fn shared_cache() -> impl FnMut(&Case) -> CaseRun {
    let memory: Mutex<HashMap<String, Result<Value, parcall::reference::Raised>>> =
        Mutex::default();
    move |case: &Case| {
        let Case::Dedup(dedup) = case else {
            panic!("asked for a function it does not define")
        };
        let tools = CaseTools::new(&dedup.tools, Execution::Sequential);
        let remembering = Remembering {
            tools: &tools,
            memory: &memory,
        };
        let runs = dedup
            .batches
            .iter()
            .map(|batch| {
                let calls = input::dedup_calls(&batch.calls).expect("cases are in the domain");
                let results = run_parallel_calls(&remembering, &calls, Execution::Sequential);
                BatchRun {
                    output: Value::from(
                        results
                            .into_iter()
                            .map(|(k, v)| (k.into(), v))
                            .collect::<parcall::json::Object>(),
                    ),
                    invocations: tools
                        .take_invocations()
                        .iter()
                        .map(parcall::judge::dedup_invocation)
                        .collect(),
                }
            })
            .collect();
        (runs, None)
    }
}

struct Remembering<'a> {
    tools: &'a CaseTools<'a>,
    memory: &'a Mutex<HashMap<String, Result<Value, parcall::reference::Raised>>>,
}

impl Tools for Remembering<'_> {
    fn has_tool(&self, name: &str) -> bool {
        self.tools.has_tool(name)
    }

    fn invoke(
        &self,
        name: &str,
        args: &parcall::json::Object,
    ) -> Result<Value, parcall::reference::Raised> {
        let key = canonical_key(name, Some(args));
        if let Some(answer) = self.memory.lock().unwrap().get(&key) {
            return answer.clone();
        }
        let answer = self.tools.invoke(name, args);
        self.memory.lock().unwrap().insert(key, answer.clone());
        answer
    }
}

/// A submission that skips the work: the right ids and keys, every content and result
/// `""`, and nothing dispatched or invoked (no duplicate or limit error written either).
pub(crate) fn canned() -> impl FnMut(&Case) -> CaseRun {
    |case: &Case| {
        let runs = match case {
            Case::Exec(exec) => exec
                .batches
                .iter()
                .map(|batch| {
                    let calls = input::tool_calls(&batch.calls).expect("cases are in the domain");
                    let limit = batch
                        .max_parallel
                        .unwrap_or(parcall::reference::DEFAULT_MAX_PARALLEL);
                    let messages = parcall::reference::plan(&calls, limit)
                        .into_iter()
                        .map(|decision| {
                            let mut message = parcall::json::Object::new();
                            message.insert("role".into(), "tool".into());
                            message.insert("tool_call_id".into(), decision.id.as_str().into());
                            message.insert("content".into(), "".into());
                            Value::from(message)
                        })
                        .collect();
                    BatchRun {
                        output: Value::List(messages),
                        invocations: Vec::new(),
                    }
                })
                .collect(),
            Case::Dedup(dedup) => dedup
                .batches
                .iter()
                .map(|batch| {
                    let calls = input::dedup_calls(&batch.calls).expect("cases are in the domain");
                    let entries: parcall::json::Object = calls
                        .iter()
                        .map(|c| (canonical_key(&c.name, c.args.as_ref()).into(), "".into()))
                        .collect();
                    BatchRun {
                        output: Value::from(entries),
                        invocations: Vec::new(),
                    }
                })
                .collect(),
            Case::Runtime(_) => unreachable!("canned answers the exercises only"),
        };
        (runs, None)
    }
}
