//! Rubrics: points per requirement. A requirement's points are earned when it is met
//! (RULES D): no case, fixed or generated, is charged to it, and it is shown kept, by a
//! generated case too wherever generated cases exercise it. A rubric may instead give
//! partial credit by the share of exercising cases not charged to it.

use crate::json;
use crate::report::Report;
use crate::spec::{Function, Spec};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A rubric file that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RubricError {
    /// Unreadable or not a rubric's JSON; the text names the file.
    #[error("{0}")]
    Read(String),
    #[error("{path}: not a parcall-rubric file of version 1")]
    WrongFormat { path: PathBuf },
    #[error("{path}: {problem}")]
    Invalid {
        path: PathBuf,
        problem: RubricProblem,
    },
}

/// What is wrong with the points a rubric gives.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RubricProblem {
    #[error("default_points must be a non-negative number")]
    NegativeDefault,
    #[error("points for unknown requirement {id}")]
    UnknownRequirement { id: String },
    #[error("points for {id} must be a non-negative number")]
    NegativePoints { id: String },
    #[error("the points add up to more than a number can hold")]
    Overflow,
}

/// A rubric file: `{"format": "parcall-rubric", "version": 1, "default_points": 1,
/// "points": {"EXEC-ID-GIVEN": 2}}`. Requirements not listed get `default_points`; 0 leaves
/// a requirement out of the grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RubricFile {
    pub format: String,
    pub version: u32,
    #[serde(default = "one")]
    pub default_points: f64,
    #[serde(default)]
    pub points: IndexMap<String, f64>,
    /// `true`: a requirement that is shown kept somewhere earns its points times the share
    /// of the cases exercising it (fixed and generated) that are not charged to it.
    #[serde(default)]
    pub partial_credit: bool,
}

fn one() -> f64 {
    1.0
}

/// The points of every requirement in scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Rubric {
    pub points: IndexMap<String, f64>,
    pub partial_credit: bool,
}

/// How one requirement went for one submission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequirementScore {
    pub id: String,
    pub function: Function,
    pub statement: String,
    pub points: f64,
    pub earned: f64,
    /// Cases that exercise it, fixed and generated, and how many of them are charged to it.
    pub cases: usize,
    pub failed: usize,
}

impl Rubric {
    /// The default rubric: one point per requirement of the functions in scope.
    pub fn default_for(spec: &Spec, functions: &[Function]) -> Rubric {
        Rubric::from_file(
            &RubricFile {
                format: "parcall-rubric".into(),
                version: 1,
                default_points: 1.0,
                points: IndexMap::new(),
                partial_credit: false,
            },
            spec,
            functions,
        )
        .expect("the default rubric names no requirement")
    }

    /// Reads a rubric file; unknown requirement ids and negative points are errors.
    pub fn load(path: &Path, spec: &Spec, functions: &[Function]) -> Result<Rubric, RubricError> {
        let file: RubricFile =
            json::from_file(path).map_err(|e| RubricError::Read(e.to_string()))?;
        if file.format != "parcall-rubric" || file.version != 1 {
            return Err(RubricError::WrongFormat { path: path.into() });
        }
        Rubric::from_file(&file, spec, functions).map_err(|problem| RubricError::Invalid {
            path: path.into(),
            problem,
        })
    }

    fn from_file(
        file: &RubricFile,
        spec: &Spec,
        functions: &[Function],
    ) -> Result<Rubric, RubricProblem> {
        if !(file.default_points.is_finite() && file.default_points >= 0.0) {
            return Err(RubricProblem::NegativeDefault);
        }
        for (id, points) in &file.points {
            if spec.requirement(id).is_none() {
                return Err(RubricProblem::UnknownRequirement { id: id.clone() });
            }
            if !(points.is_finite() && *points >= 0.0) {
                return Err(RubricProblem::NegativePoints { id: id.clone() });
            }
        }
        let points = spec
            .requirements
            .iter()
            .filter(|r| functions.contains(&r.function))
            .map(|r| {
                // A MAY states a freedom every submission that keeps the MUSTs has, and the
                // SANDBOX-* requirements describe the provided sandbox, which students do
                // not write: neither earns anything unless the rubric names it.
                let default = if r.earns_points_by_default() {
                    file.default_points
                } else {
                    0.0
                };
                (
                    r.id.clone(),
                    file.points.get(&r.id).copied().unwrap_or(default),
                )
            })
            .filter(|(_, points)| *points > 0.0)
            .collect();
        let rubric = Rubric {
            points,
            partial_credit: file.partial_credit,
        };
        // Finite points can still add up to an infinite maximum (1e308 twice).
        if !rubric.max_score().is_finite() {
            return Err(RubricProblem::Overflow);
        }
        Ok(rubric)
    }

    pub fn max_score(&self) -> f64 {
        self.points.values().sum()
    }

    /// Scores a report: a requirement earns its points when it is met.
    pub fn score(&self, report: &Report, spec: &Spec) -> Vec<RequirementScore> {
        let started = report.error.is_none();
        self.points
            .iter()
            .map(|(id, points)| {
                let summary = report.requirements.iter().find(|r| &r.id == id);
                // A case that was not run kept nothing: for partial credit it is lost, as a
                // charged one is (counted kept, a submission given up on after a few cases
                // earned full points for requirements it never showed).
                let (cases, failed, not_run) = summary.map_or((0, 0, 0), |s| {
                    (
                        s.cases + s.generated.exercised,
                        s.failed + s.generated.charged,
                        s.not_run + s.generated.not_run,
                    )
                });
                let shown = summary.is_some_and(|s| s.shown + s.generated.shown > 0);
                let earned = match summary {
                    Some(s) if started && s.met => *points,
                    Some(_) if started && self.partial_credit && shown && cases > 0 => {
                        let kept = cases.saturating_sub(failed + not_run) as f64 / cases as f64;
                        // Two decimals: scores people read, and sums that stay exact enough.
                        (points * kept * 100.0).floor() / 100.0
                    }
                    _ => 0.0,
                };
                let requirement = spec.requirement(id).expect("rubric ids come from the spec");
                RequirementScore {
                    id: id.clone(),
                    function: requirement.function,
                    statement: requirement.statement.clone(),
                    points: *points,
                    earned,
                    cases,
                    failed: if started { failed } else { cases.max(1) },
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Rubric;
    use crate::spec::{Function, Spec};

    #[test]
    fn the_default_rubric_scores_only_what_a_student_writes() {
        let spec = Spec::embedded().unwrap();
        let rubric = Rubric::default_for(&spec, &Function::EXERCISES);
        let ids: Vec<&String> = rubric.points.keys().collect();
        assert!(ids.iter().all(|id| !id.starts_with("SANDBOX-")), "{ids:?}");
        assert!(!ids.iter().any(|id| *id == "EXEC-DISPATCH-ANY-ORDER"));
        assert!(ids.iter().any(|id| *id == "EXEC-ID-GENERATED"));
        let expected = spec
            .requirements
            .iter()
            .filter(|r| Function::EXERCISES.contains(&r.function) && r.earns_points_by_default())
            .count();
        assert_eq!(rubric.max_score(), expected as f64);
    }
}
