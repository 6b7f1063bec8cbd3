//! `parcall grade merge`: shards' results joined into what one run would have written,
//! through the same gradebook writer and summary as `parcall grade`.

use super::{exit, MergeArgs};
use crate::grade::gradebook;
use crate::grade::merge::{self, MergeError};
use crate::grade::out::{OutDir, REPORTS, STUDENTS, TEACHER};
use std::path::Path;

pub(super) fn run(args: &MergeArgs) -> i32 {
    let merged = match merge::check_out(&args.out).and_then(|()| merge::read(&args.shards)) {
        Ok(merged) => merged,
        Err(error) => {
            say!("error: {error}");
            return exit::USAGE;
        }
    };
    say!(
        "parcall: merging {} shards of {} submissions, hidden cases seed {}",
        merged.shards.len(),
        merged.graded.len(),
        merged.run.seed
    );
    if let Err(error) = write(&merged, &args.out) {
        say!("error: {error}");
        return if error.is_write() {
            exit::INCOMPLETE
        } else {
            exit::USAGE
        };
    }
    let graded: Vec<_> = merged.graded.iter().map(|(g, _)| g.clone()).collect();
    let printed = super::grade::summarize(&graded, merged.run.seed, &merged.run.options.functions);
    // As after a run in one go: a submission the sandbox could not set up was not graded.
    if printed.is_err() || graded.iter().any(|g| g.setup_error) {
        exit::INCOMPLETE
    } else {
        exit::SUCCESS
    }
}

/// Every student's folders, then the gradebooks and the class page, as `grade` writes them.
fn write(merged: &merge::Merged, out: &Path) -> Result<(), MergeError> {
    let failed = |path: &Path| {
        let path = path.to_owned();
        move |source| MergeError::Write { path, source }
    };
    let out = OutDir::create(out).map_err(failed(out))?;
    let students = out.subdir(STUDENTS).map_err(failed(out.path()))?;
    let teacher = out.subdir(TEACHER).map_err(failed(out.path()))?;
    let reports = teacher.subdir(REPORTS).map_err(failed(teacher.path()))?;
    merge::copy_submissions(merged, &students, &reports)?;
    let graded: Vec<_> = merged.graded.iter().map(|(g, _)| g.clone()).collect();
    gradebook::write(&teacher, &merged.run, &graded, true).map_err(failed(teacher.path()))
}
