//! Every spec case is a test of the reference, discovered at run time: a new JSON file under
//! spec/cases/ is picked up without touching Rust code. Each case runs sequentially and
//! concurrently; both must pass.

use libtest_mimic::{Arguments, Failed, Trial};
use parcall::check::Checker;
use parcall::fuzz::CaseRunner;
use parcall::json::NumberModel;
use parcall::judge::Judge;
use parcall::reference::Execution;
use parcall::spec::{Spec, SpecCase};
use parcall::subject::in_process::reference;

fn main() {
    let arguments = Arguments::from_args();
    let spec = match Spec::load(&Spec::bundled_root()) {
        Ok(spec) => spec,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(101);
        }
    };
    let trials = spec
        .cases
        .into_iter()
        .map(|case| {
            let name = format!("{}::{}", case.function(), case.id());
            Trial::test(name, move || check(&case))
        })
        .collect();
    libtest_mimic::run(&arguments, trials).exit();
}

/// The reference, in process, judged by the one judge as any implementation is.
fn check(case: &SpecCase) -> Result<(), Failed> {
    let judge = Judge::new(NumberModel::Python);
    for execution in [Execution::Sequential, Execution::CONCURRENT] {
        let mut subject = reference(NumberModel::Python, execution);
        let result = Checker::new(&mut subject, &judge).run_one(case.clone());
        if !result.outcome.is_pass() {
            let file = case.origin.file();
            return Err(format!("{file} ({execution:?}): {:#?}", result.outcome).into());
        }
    }
    Ok(())
}
