//! Every spec case is a test of the reference, discovered at run time: a new JSON file under
//! spec/cases/ is picked up without touching Rust code. Each case runs sequentially and
//! concurrently; both must pass.

use libtest_mimic::{Arguments, Failed, Trial};
use parcall::judge::{judge, Outcome};
use parcall::reference::Execution;
use parcall::spec::{Spec, SpecCase};
use parcall::judge::runs::run_case;

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

fn check(case: &SpecCase) -> Result<(), Failed> {
    for execution in [Execution::Sequential, Execution::CONCURRENT] {
        let runs = run_case(&case.case, execution).map_err(|e| format!("{}: {e}", case.file))?;
        let outcome = judge(&case.case, &runs);
        if outcome != Outcome::Pass {
            return Err(format!("{} ({execution:?}): {outcome:#?}", case.file).into());
        }
    }
    Ok(())
}
