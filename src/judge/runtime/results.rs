//! The results of a turn that returned: matched to calls (by id first, then by what they
//! show), then read by a registry of checks, each charging its own requirement (RULES D).

use super::*;

/// A returned turn as the result checks read it.
pub(super) struct Turn<'t> {
    calls: &'t [Call],
    messages: &'t [Message],
    ran: Ran<'t>,
    policies: &'t RuntimePolicies,
    /// Each call's answer exactly as a result would hold it (its return, or its error in the
    /// declared text), where there is one.
    answers: Vec<Option<String>>,
    /// For each call, the index of its result.
    matched: Vec<Option<usize>>,
}

/// A check of a returned turn's results, named by the requirement it holds the turn to (it
/// may charge another where the blame rules send the failure there).
type Check = fn(&Turn<'_>, &mut BatchCharges);

/// The result checks, in the order they read a turn.
const CHECKS: [(&str, Check); 5] = [
    (ids::RUNTIME_ID_ECHOED, id_echoed),
    (ids::RUNTIME_RESULT_PER_CALL, result_per_call),
    (ids::RUNTIME_RESULT_ORDER, result_order),
    (ids::RUNTIME_NO_STATE, not_run_but_answered),
    (ids::RUNTIME_CONTENT_UNCHANGED, content_unchanged),
];

/// Results: matched to calls by id first, then each check of the registry reads them.
pub(super) fn check_results(
    calls: &[Call],
    messages: &[Message],
    ran: Ran<'_>,
    policies: &RuntimePolicies,
    found: &mut BatchCharges,
) {
    let mut turn = Turn::new(calls, messages, ran, policies);
    turn.matched = turn.first_matches();
    turn.matched = turn.dealt();
    for (_, check) in CHECKS {
        check(&turn, found);
    }
}

impl<'t> Turn<'t> {
    fn new(
        calls: &'t [Call],
        messages: &'t [Message],
        ran: Ran<'t>,
        policies: &'t RuntimePolicies,
    ) -> Self {
        // A result that is exactly a call's answer is that answer, not another call's error
        // whose short message it happens to hold ("1" in "lookup #1"), or whose class it names.
        let exact = |call: &Call| match &call.expected {
            Expected::Returns(Value::Str(text)) => Some(text.to_string()),
            Expected::Returns(other) => Some(dumps(other, Style::PYTHON)),
            Expected::Raises { .. } => declared_error(call, policies),
            Expected::Unknown { .. } => None,
        };
        Turn {
            calls,
            messages,
            ran,
            policies,
            answers: calls.iter().map(exact).collect(),
            matched: vec![None; calls.len()],
        }
    }

    /// Whether result `m` shows `call`'s answer: exactly its own, or a text naming it that
    /// is no call's exact answer.
    fn fits(&self, call: &Call, m: usize) -> bool {
        let content = self.messages[m].content.as_deref();
        content.is_some_and(|text| {
            let own = self.answers[call.position - 1].as_deref() == Some(text);
            own || (shows(&call.expected, text)
                && !self
                    .answers
                    .iter()
                    .any(|answer| answer.as_deref() == Some(text)))
        })
    }

    /// Whether result `m` holds what `call`'s tool answered, as only running it gives: its
    /// return, or its error with the class named (a short message such as `2` is found in
    /// any text, a limit error's included).
    fn remembers(&self, call: &Call, m: usize) -> bool {
        let content = self.messages[m].content.as_deref().unwrap_or_default();
        match &call.expected {
            Expected::Returns(_) => self.fits(call, m),
            Expected::Raises { class, .. } => self.fits(call, m) && content.contains(class),
            Expected::Unknown { .. } => false,
        }
    }

    /// More results carry result `m`'s id than calls have it: one of them is another call's.
    fn surplus(&self, m: usize) -> bool {
        let id = &self.messages[m].id;
        self.messages.iter().filter(|other| other.id == *id).count()
            > self.calls.iter().filter(|call| call.id == *id).count()
    }

    /// The results of no call's id, or none.
    fn foreign(&self, m: usize) -> bool {
        self.messages[m]
            .id
            .as_deref()
            .is_none_or(|id| !self.calls.iter().any(|c| c.id.as_deref() == Some(id)))
    }

    /// Each stage pairs the calls still unanswered with results still free, a call taking
    /// first a result that shows its own answer, then the first left. By id first: calls
    /// sharing an id share its results. A call whose tool never ran has no result of its
    /// own to take, unless one shows its answer. A call a policy collapsed into another
    /// takes none.
    fn first_matches(&self) -> Vec<Option<usize>> {
        let (calls, messages) = (self.calls, self.messages);
        let by_id = |call: &Call, m: usize| call.id.is_some() && messages[m].id == call.id;
        // Under ids several calls share, a result that is exactly a call's answer is that
        // call's before any other's a short error message happens to be found in ("''" in
        // "KeyError: (2, '')").
        let by_id_exactly = |call: &Call, m: usize| {
            let content = messages[m].content.as_deref();
            by_id(call, m)
                && content.is_some()
                && self.answers[call.position - 1].as_deref() == content
        };
        // A call without id: a result without id, then one of no call's id.
        let missing = |call: &Call, m: usize| call.id.is_none() && messages[m].id.is_none();
        let missing_foreign = |call: &Call, m: usize| call.id.is_none() && self.foreign(m);
        // A call without id answered under an id another call gives (a made-up `call_<i>`
        // meeting a given one, so more results carry it than calls): a result that shows its
        // answer, before the call of that id takes whatever is left under it (RULES R9).
        let missing_any =
            |call: &Call, m: usize| call.id.is_none() && !self.foreign(m) && self.surplus(m);
        // A call whose id came back changed: any result its answer shows, then one of no
        // call's id.
        let changed = |call: &Call, m: usize| call.id.is_some() && self.fits(call, m);
        let changed_foreign = |call: &Call, m: usize| call.id.is_some() && self.foreign(m);
        // (who may take what, only a result that shows the call's answer, calls whose tool
        // never ran too: last, the results of calls refused one by one, which say why).
        type Stage<'s> = (&'s dyn Fn(&Call, usize) -> bool, bool, bool);
        let stages: [Stage<'_>; 12] = [
            (&by_id_exactly, true, false),
            (&by_id, true, false),
            (&missing, true, false),
            (&missing_any, true, false),
            (&by_id, false, false),
            (&missing_foreign, true, false),
            (&missing, false, false),
            (&missing_foreign, false, false),
            (&changed, true, false),
            (&changed_foreign, false, false),
            (&by_id, false, true),
            (&missing_foreign, false, true),
        ];
        // Where a result could be either of two identical calls', the one whose tool ran
        // takes it first: which of them was dropped, nothing else tells, and a result handed
        // to the dropped one would show the one that ran answered out of order.
        let ran_first: Vec<usize> = {
            let (ran, dropped): (Vec<usize>, Vec<usize>) =
                (0..calls.len()).partition(|&c| self.ran.at_all(&calls[c]));
            ran.into_iter().chain(dropped).collect()
        };
        let mut taken = vec![false; messages.len()];
        let mut matched = vec![None; calls.len()];
        for (stage, fitting, late) in stages {
            for &c in &ran_first {
                let call = &calls[c];
                let excused = !fitting && !late && !self.ran.at_all(call);
                if matched[c].is_some() || excused || !call.answered() {
                    continue;
                }
                let free = (0..messages.len())
                    .find(|&m| !taken[m] && stage(call, m) && (!fitting || self.fits(call, m)));
                if let Some(m) = free {
                    taken[m] = true;
                    matched[c] = Some(m);
                }
            }
        }
        matched
    }

    /// Whether calls `a` and `b` are alike for result `m`, nothing telling which of them it
    /// answers: each could carry its id (its own, or, when its own came back on no result,
    /// one more results carry than calls have), and they are one tool with equal arguments
    /// (which of them ran nothing tells either), or the result could be either's: it shows
    /// the answer of both, or of one while the other's tool ran with other arguments (whose
    /// answer nobody scripted), or of neither (an error a policy or a limit wrote).
    fn alike(&self, a: usize, b: usize, m: usize) -> bool {
        let (a, b) = (&self.calls[a], &self.calls[b]);
        let could_be =
            |call: &Call| self.ran.changed.contains(&call.position) || self.fits(call, m);
        let id_lost = |call: &Call| !self.messages.iter().any(|r| r.id == call.id);
        let could_carry =
            |call: &Call| self.messages[m].id == call.id || (id_lost(call) && self.surplus(m));
        could_carry(a)
            && could_carry(b)
            && a.answered()
            && b.answered()
            && (a.key() == b.key()
                || (self.ran.at_all(a) == self.ran.at_all(b) && could_be(a) && could_be(b))
                || (!could_be(a) && !could_be(b)))
    }

    /// The matches dealt again among calls alike for a result (see [`dealt_in_order`]).
    fn dealt(&self) -> Vec<Option<usize>> {
        dealt_in_order(
            self.calls.len(),
            &self.matched,
            self.messages.len(),
            |a, b, m| self.alike(a, b, m),
        )
    }

    /// The results no call took.
    fn extra(&self) -> usize {
        self.messages.len() - self.matched.iter().flatten().count()
    }
}

/// RUNTIME-ID-ECHOED: a given id comes back as given; a call without one is answered as the
/// declared `missing_id` says (RUNTIME-POLICY-DECLARED).
fn id_echoed(turn: &Turn<'_>, found: &mut BatchCharges) {
    for (c, call) in turn.calls.iter().enumerate() {
        let Some(m) = turn.matched[c] else { continue };
        let given = turn.messages[m].id.as_ref();
        match &call.id {
            None => missing_id_policy(turn.calls, call, &turn.messages[m], turn.policies, found),
            Some(id) if given == Some(id) => found.held(ids::RUNTIME_ID_ECHOED),
            Some(_) => found.charge(
                ids::RUNTIME_ID_ECHOED,
                format!(
                    "{}: answered with id {}",
                    call.label(),
                    given.map_or("null".into(), |id| quoted(id))
                ),
            ),
        }
    }
}

/// RUNTIME-RESULT-PER-CALL: a result for each call that gets one, none for no call. A call
/// without one is charged where its loss comes from: dropped beside a call of its id
/// (execution), beside a raising tool (isolation), beside a malformed call (malformed).
fn result_per_call(turn: &Turn<'_>, found: &mut BatchCharges) {
    let calls = turn.calls;
    let never_ran = turn.ran.never;
    let raising = calls.iter().find(|c| c.raises());
    let malformed = calls.iter().find(|c| c.malformed());
    // The turn ended with results: a raising tool or a malformed call did not end it.
    if raising.is_some_and(|c| !never_ran.contains(&c.position)) {
        found.held(ids::RUNTIME_ERROR_ISOLATED);
    }
    if malformed.is_some() {
        found.held(ids::RUNTIME_MALFORMED_ANSWERED);
    }
    // A call that never ran has no result to give, charged to execution already. Which of
    // several identical calls did not run, nothing tells: as many of them as did not run
    // are excused, whichever has no result.
    let mut not_run: HashMap<(String, String), usize> = HashMap::new();
    for call in calls.iter().filter(|c| never_ran.contains(&c.position)) {
        *not_run.entry(call.key()).or_default() += 1;
    }
    for (c, call) in calls.iter().enumerate() {
        if turn.matched[c].is_some() || !call.answered() {
            continue;
        }
        if let Some(left) = not_run.get_mut(&call.key()).filter(|n| **n > 0) {
            *left -= 1;
            continue;
        }
        // Dropped beside another call of its id: one of them got a result.
        let beside_its_id = call.id.is_some()
            && calls
                .iter()
                .enumerate()
                .any(|(o, other)| o != c && other.id == call.id && turn.matched[o].is_some());
        let (requirement, why) = unanswered(call, beside_its_id, raising, malformed);
        found.charge(requirement, format!("{}: {why}", call.label()));
    }
    let extra = turn.extra();
    if extra > 0 {
        found.charge(
            ids::RUNTIME_RESULT_PER_CALL,
            format!("{extra} result(s) answer no call of the turn"),
        );
    }
}

/// The requirement a call left without a result is charged to, and why.
fn unanswered(
    call: &Call,
    beside_its_id: bool,
    raising: Option<&Call>,
    malformed: Option<&Call>,
) -> (&'static str, String) {
    if beside_its_id {
        let why = "no result: dropped beside another call with its id";
        return (ids::RUNTIME_EXECUTE_ONCE, why.to_owned());
    }
    if call.raises() {
        let why = "its tool raised and it got no result";
        return (ids::RUNTIME_ERROR_ISOLATED, why.to_owned());
    }
    if let Some(culprit) = raising {
        let why = format!("no result, lost beside the failure of {}", culprit.label());
        return (ids::RUNTIME_ERROR_ISOLATED, why);
    }
    if let Some(culprit) = malformed {
        let why = if culprit.position == call.position {
            "it got no result".to_owned()
        } else {
            format!("no result, lost beside {}", culprit.label())
        };
        return (ids::RUNTIME_MALFORMED_ANSWERED, why);
    }
    (ids::RUNTIME_RESULT_PER_CALL, "no result".to_owned())
}

/// RUNTIME-RESULT-ORDER: the results of the calls, in the order the runtime gave them, are
/// in call order.
fn result_order(turn: &Turn<'_>, found: &mut BatchCharges) {
    let mut order: Vec<(usize, usize)> = turn
        .matched
        .iter()
        .enumerate()
        .filter_map(|(c, m)| m.map(|m| (m, turn.calls[c].position)))
        .collect();
    order.sort_unstable();
    let positions: Vec<usize> = order.iter().map(|(_, p)| *p).collect();
    if positions.len() >= 2 {
        found.held(ids::RUNTIME_RESULT_ORDER);
    }
    if positions.windows(2).any(|w| w[0] > w[1]) {
        found.charge(
            ids::RUNTIME_RESULT_ORDER,
            format!("results came back for calls {positions:?}, not in call order"),
        );
    }
}

/// RUNTIME-NO-STATE: a call whose tool never ran, answered with its tool's answer all the
/// same, was answered from memory, not dropped; every other call that never ran is charged
/// as its pending charge says.
fn not_run_but_answered(turn: &Turn<'_>, found: &mut BatchCharges) {
    for pending in std::mem::take(&mut found.pending) {
        let c = pending.position - 1;
        let call = &turn.calls[c];
        // Memory shows as the tool's own answer (identical calls may take each other's, see
        // `answers_in_any_order`), which only running it gives (an earlier case's run, in a
        // case of one turn); any other text that reports no error is taken for memory only
        // where an earlier turn could have left it (RULES D: a call skipped in a case of
        // one turn is not a no-state charge): a framework that refuses a call says why.
        let remembered = !pending.key_ran
            && turn.matched[c].is_some_and(|m| {
                let content = turn.messages[m].content.as_deref().unwrap_or_default();
                let identical = |other: &&Call| other.key() == call.key();
                turn.calls
                    .iter()
                    .filter(identical)
                    .any(|other| turn.remembers(other, m))
                    || (found.batch > 1
                        && !content.is_empty()
                        && !content.to_lowercase().contains("error"))
            });
        // A limit answers the calls past it, or says why without naming their arguments; a
        // call dropped without a result, or refused naming its argument, was dropped for it.
        let dropped_for_reserved = pending.reserved.as_deref().is_some_and(|name| {
            let Some(m) = turn.matched[c] else {
                return true;
            };
            turn.messages[m].content.as_deref().is_some_and(|content| {
                // A short name ("id") is in any text: then only quoted, as a key.
                let quoted = [format!("\"{name}\""), format!("'{name}'")];
                (name.chars().count() >= 4 && content.contains(name))
                    || quoted.iter().any(|q| content.contains(q.as_str()))
            })
        });
        if remembered {
            found.charge(
                ids::RUNTIME_NO_STATE,
                format!(
                    "{}: answered with its tool's answer though the tool never ran in this turn: remembered from an earlier one",
                    call.label()
                ),
            );
        } else if let Some(name) = pending.reserved.filter(|_| dropped_for_reserved) {
            found.charge(
                ids::RUNTIME_ARGS_UNCHANGED,
                format!(
                    "{}: the tool never ran with its argument {}, which its result names",
                    call.label(),
                    quoted(&name)
                ),
            );
        } else {
            found.charge(pending.requirement, pending.diagnosis);
        }
    }
}

/// RUNTIME-CONTENT-UNCHANGED (and the error rules, through [`check_content`]): each result
/// of a call that must show its tool's answer holds it.
fn content_unchanged(turn: &Turn<'_>, found: &mut BatchCharges) {
    let calls = &answers_in_any_order(turn.calls, &turn.matched, turn.messages);
    let never_ran = turn.ran.never;
    // A tool run again for a call its policy serves from the first run gave that call a
    // later answer: the execution rule's charge, not a changed content.
    let ran_again = found
        .charges
        .iter()
        .any(|c| c.requirement == ids::RUNTIME_EXECUTE_ONCE);
    for (c, call) in calls.iter().enumerate() {
        // The result of a call whose tool never ran says why; that is execution's charge.
        if never_ran.contains(&call.position) || !call.shows_answer() {
            continue;
        }
        if ran_again && call.skip == Some(Skip::Served) {
            continue;
        }
        if let Some(m) = turn.matched[c] {
            let result = &turn.messages[m];
            check_content(
                calls,
                call,
                result,
                turn.messages,
                never_ran,
                turn.policies,
                found,
            );
        }
    }
}

/// The results matched to calls, dealt again among the calls nothing tells apart
/// (`alike(call, other, result)`): which of two such calls a result belongs to, neither
/// its id nor its content can say, so each result goes, in the order given, to the first
/// such call after the one answered before it. Two calls sharing an id of which one was
/// dropped are then not also answered out of order.
fn dealt_in_order(
    calls: usize,
    matched: &[Option<usize>],
    results: usize,
    alike: impl Fn(usize, usize, usize) -> bool,
) -> Vec<Option<usize>> {
    let mut answering = vec![None; results];
    for (c, m) in matched.iter().enumerate() {
        if let Some(m) = m {
            answering[*m] = Some(c);
        }
    }
    let mut dealt: Vec<Option<usize>> = vec![None; calls];
    let mut last: Option<usize> = None;
    for (m, c) in answering.into_iter().enumerate() {
        let Some(c) = c else { continue };
        let free = |d: &usize| dealt[*d].is_none() && (*d == c || alike(c, *d, m));
        let after = (0..calls).find(|d| last.is_none_or(|l| *d > l) && free(d));
        // A result left without a call: this deal took one a later result needed, and the
        // deal as matched stands.
        let Some(d) = after.or_else(|| (0..calls).find(free)) else {
            return matched.to_vec();
        };
        dealt[d] = Some(m);
        last = Some(d);
    }
    dealt
}

/// The calls with their answers dealt as the runtime may have dealt them: identical calls
/// (one tool, equal arguments) may run in any order, and the n-th to run gets the n-th
/// answer, so within such a group each call takes the answer its result shows, while one
/// is left; the others take what remains, in call order.
fn answers_in_any_order(
    calls: &[Call],
    matched: &[Option<usize>],
    messages: &[Message],
) -> Vec<Call> {
    let mut dealt = calls.to_vec();
    let mut groups: Vec<((String, String), Vec<usize>)> = Vec::new();
    for (index, call) in calls.iter().enumerate().filter(|(_, c)| c.known()) {
        let own = call.key();
        match groups.iter_mut().find(|(k, _)| *k == own) {
            Some((_, members)) => members.push(index),
            None => groups.push((own, vec![index])),
        }
    }
    for (_, members) in groups.iter().filter(|(_, m)| m.len() > 1) {
        let mut pool: Vec<Expected> = members.iter().map(|&i| calls[i].expected.clone()).collect();
        let mut unfit = Vec::new();
        for &index in members {
            let content = matched[index].and_then(|m| messages[m].content.as_deref());
            match pool
                .iter()
                .position(|e| content.is_some_and(|c| shows(e, c)))
            {
                Some(at) => dealt[index].expected = pool.remove(at),
                None => unfit.push(index),
            }
        }
        for (index, expected) in unfit.into_iter().zip(pool) {
            dealt[index].expected = expected;
        }
    }
    dealt
}
