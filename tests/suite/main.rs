//! parcall's tests from outside its library: the real binary end to end, the reference against
//! CPython and naive oracles, the spec's integrity. One file per subject, all in one test
//! binary: one link instead of sixteen, and libtest runs any two tests at a time across
//! files, so a long test in one file never leaves the second core idle while the rest of its
//! file waits (BENCHMARKS.md section 5). `cargo test --test suite -- fuzz::` runs one file.
//!
//! Sharing a process means sharing the machine's state too: grading tests run side by side,
//! so a check of what a run leaves on the machine (processes, workspaces) looks only at that
//! run's own uid block and workspace, which its `gradebook.json` names (`common::site`).

mod common;

mod blame;
mod check_hostile;
mod ci_gating;
mod ci_recipes;
mod ci_workflow;
mod cli_check;
mod compare;
mod cpython_differential;
mod docs;
mod edge_cases;
mod false_failures;
mod fuzz;
mod generated_corners;
mod grade;
mod grade_intake;
mod grade_languages;
mod grade_layout;
mod grade_merge;
mod grade_results;
mod grade_sandbox;
mod html_report;
mod interrupt;
mod kits;
mod layering;
mod mutate;
mod number_models;
mod properties;
mod report_excerpts;
mod reports_ci;
mod runtime_blame;
mod runtime_observed;
mod runtime_policies;
mod runtimes;
mod sandbox_boundary;
mod sandbox_isolation;
mod sandbox_syscalls;
mod shown;
mod spec_integrity;
mod toolchains;
