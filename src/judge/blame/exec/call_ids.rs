//! The id rules: a given id comes back verbatim, a missing one is `call_<position>`
//! counted from 1 in each batch.

use super::super::ids::*;
use super::super::{quote_str, Tally};
use super::{Batch, Reading, NOT_A_STRING};
use crate::json::Value;

impl Batch<'_> {
    /// Checks each call's id; returns the ids the implementation gave, the premise of the
    /// duplicate checks.
    pub(super) fn check_ids(&self, reading: &Reading, tally: &mut Tally) -> Vec<String> {
        let mut premise: Vec<String> = Vec::with_capacity(self.calls.len());
        let carried = self.numbering_carried_over(reading);
        for i in 0..self.calls.len() {
            premise.push(given_id(reading, i));
            if !reading.missing_explained(i) {
                self.check_id(reading, i, carried, tally);
            }
        }
        premise
    }

    /// How far past its position every generated id of this batch is numbered, where they
    /// all agree and a slip within the batch cannot explain it: the count went on from calls
    /// outside the batch, kept in state that survived (RULES A8). A shift of one is a slip
    /// (`call_2` for the first call) unless it is exactly the calls of the case's earlier
    /// batches; a larger one counts calls this batch does not have.
    fn numbering_carried_over(&self, reading: &Reading) -> Option<usize> {
        let mut shift = None;
        for (i, call) in self.calls.iter().enumerate() {
            if call.id.as_deref().is_some_and(|id| !id.is_empty()) {
                continue;
            }
            let position = i + 1;
            let number = reading.fields[i]
                .0?
                .strip_prefix("call_")
                .filter(|digits| !digits.starts_with('0'))
                .and_then(|digits| digits.parse::<usize>().ok())?;
            let this = number.checked_sub(position).filter(|s| *s > 0)?;
            if shift.is_some_and(|s| s != this) {
                return None;
            }
            shift = Some(this);
        }
        shift.filter(|s| *s > 1 || (self.number > 1 && *s == self.history.calls))
    }

    fn check_id(&self, reading: &Reading, i: usize, carried: Option<usize>, tally: &mut Tally) {
        let position = i + 1;
        let given = self.calls[i].id.as_deref().filter(|id| !id.is_empty());
        let requirement = if given.is_some() {
            EXEC_ID_GIVEN
        } else {
            EXEC_ID_GENERATED
        };
        let expected = &reading.decisions[i].id;
        match reading.fields[i].0 {
            Some(id) if id == expected => {
                tally.applies(requirement);
                // A later batch that restarts its generated ids, or uses again an id of an
                // earlier batch, shows that nothing survived (RULES A8).
                if self.number > 1 && (given.is_none() || self.history.ids.contains(id)) {
                    tally.applies(EXEC_NO_STATE);
                }
            }
            None => tally.breaks(
                requirement,
                self.number,
                format!("call {position} has no message with a string tool_call_id"),
            ),
            Some(id) => {
                if let (None, Some(shift)) = (given, carried) {
                    let from = if shift == self.history.calls {
                        "from the case's earlier batches".to_owned()
                    } else {
                        format!("over {shift} calls outside this batch")
                    };
                    tally.breaks(
                        EXEC_NO_STATE,
                        self.number,
                        format!(
                            "call {position} has no id: expected tool_call_id `call_{position}`, got `{id}`: the positions went on counting {from}"
                        ),
                    );
                } else if given.is_some() {
                    tally.breaks(
                        requirement,
                        self.number,
                        format!(
                            "call {position} has the id {}: it must come back verbatim, got {}",
                            quote_str(expected),
                            quote_str(id)
                        ),
                    );
                } else {
                    tally.breaks(
                        requirement,
                        self.number,
                        format!(
                            "call {position} has no id: expected tool_call_id `{expected}` (its position in the batch), got {}",
                            quote_str(id)
                        ),
                    );
                }
            }
        }
    }
}

/// The id the implementation gave call `i`, even when it is not a string (two calls
/// answered with `null` share it); the expected id where it gave no message.
fn given_id(reading: &Reading, i: usize) -> String {
    match (
        reading.fields[i].0,
        reading.messages.get(i).and_then(Value::as_object),
    ) {
        (Some(id), _) => id.to_owned(),
        (None, Some(message)) => match message.get("tool_call_id") {
            Some(other) => format!("{NOT_A_STRING}{other}"),
            None => reading.decisions[i].id.clone(),
        },
        (None, None) => reading.decisions[i].id.clone(),
    }
}
