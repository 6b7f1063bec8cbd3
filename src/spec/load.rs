//! Loading and checking the specification: requirements, every case file, and the links
//! between them. Every problem found is reported at once, each with its file and case.

use super::model::{Answer, CaseFile, DedupCase, Dispatch, ExceptionClass, ExecCase, ToolScript};
use super::requirements::{Function, Requirement, RequirementsFile};
use super::source::Source;
use crate::json::{self, Value};
use crate::reference::{input, Sandbox};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A loaded, checked specification.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The suite version (`spec/VERSION`, semver).
    pub version: String,
    pub requirements: Vec<Requirement>,
    /// Every case, in file order, files in path order (execute_tool_calls first).
    pub cases: Vec<SpecCase>,
    /// Where each case is written, by case id: CI annotations point there.
    pub locations: HashMap<String, Location>,
}

/// A line of a case file, as CI annotations name it: `spec/<file>` for the built-in spec
/// (its place in parcall's repository), the file under the folder for `--spec DIR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: String,
    pub line: usize,
}

/// One case and the file it came from. The case is shared: the spec, the selection, the
/// strategies that vary it and every result point at one copy (a result kept for the report
/// costs a pointer, not the case), and code that changes a case gets its own with
/// [`Arc::make_mut`].
#[derive(Debug, Clone, PartialEq)]
pub struct SpecCase {
    /// Relative to the spec folder, with `/` separators.
    pub file: String,
    pub case: Arc<Case>,
}

/// A case of either function.
#[derive(Debug, Clone, PartialEq)]
pub enum Case {
    Exec(ExecCase),
    Dedup(DedupCase),
}

impl Case {
    pub fn id(&self) -> &str {
        match self {
            Case::Exec(c) => &c.id,
            Case::Dedup(c) => &c.id,
        }
    }

    /// How many batches the case calls the function with.
    pub fn batch_count(&self) -> usize {
        match self {
            Case::Exec(c) => c.batches.len(),
            Case::Dedup(c) => c.batches.len(),
        }
    }
}

impl SpecCase {
    pub fn id(&self) -> &str {
        self.case.id()
    }

    pub fn function(&self) -> Function {
        match &*self.case {
            Case::Exec(_) => Function::ExecuteToolCalls,
            Case::Dedup(_) => Function::RunParallelCalls,
        }
    }

    pub fn requirements(&self) -> &[String] {
        match &*self.case {
            Case::Exec(c) => &c.requirements,
            Case::Dedup(c) => &c.requirements,
        }
    }

    pub fn description(&self) -> &str {
        match &*self.case {
            Case::Exec(c) => &c.description,
            Case::Dedup(c) => &c.description,
        }
    }
}

/// Everything wrong with a specification folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SpecError {
    pub root: PathBuf,
    pub problems: Vec<String>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        let plural = if count == 1 { "" } else { "s" };
        write!(
            f,
            "invalid spec in {} ({count} problem{plural})",
            self.root.display()
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl Spec {
    /// The specification folder of parcall's own repository (tests that check the source
    /// tree itself read it from there).
    pub fn bundled_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("spec")
    }

    /// The specification built into this binary: what every verdict uses unless `--spec`
    /// names another, whether or not the checkout it was built from still exists.
    pub fn embedded() -> Result<Spec, SpecError> {
        Spec::load_from(&Source::Embedded)
    }

    /// Loads `root` (a folder laid out like `spec/`) and checks it whole.
    pub fn load(root: &Path) -> Result<Spec, SpecError> {
        Spec::load_from(&Source::Dir(root.to_owned()))
    }

    /// Loads a specification from `source` and checks it whole.
    pub fn load_from(source: &Source) -> Result<Spec, SpecError> {
        let mut problems = Vec::new();
        let version = read_version(source, &mut problems);
        let requirements = read_requirements(source, &mut problems);
        let mut files = Vec::new();
        for function in Function::ALL {
            for path in case_files(source, function, &mut problems) {
                files.push((function, path));
            }
        }
        let mut cases = Vec::new();
        let mut locations = HashMap::new();
        // In file order whichever thread read them, so cases and problems come out the same
        // every time.
        for file in read_case_files(source, &files) {
            problems.extend(file.problems);
            for (case, line) in file.cases.iter().zip(file.lines) {
                if let Some(line) = line {
                    let path = source.annotation_path(&case.file);
                    locations.insert(case.id().to_owned(), Location { path, line });
                }
            }
            cases.extend(file.cases);
        }
        check_links(&requirements, &cases, &mut problems);
        if problems.is_empty() {
            Ok(Spec {
                version,
                requirements,
                cases,
                locations,
            })
        } else {
            Err(SpecError {
                root: source.root(),
                problems,
            })
        }
    }

    /// Requirements that no case checks (traceability: this must be empty).
    pub fn unchecked_requirements(&self) -> Vec<&Requirement> {
        self.requirements
            .iter()
            .filter(|r| !self.cases.iter().any(|c| c.requirements().contains(&r.id)))
            .collect()
    }

    pub fn requirement(&self, id: &str) -> Option<&Requirement> {
        self.requirements.iter().find(|r| r.id == id)
    }
}

fn read_version(source: &Source, problems: &mut Vec<String>) -> String {
    let version = source
        .read("VERSION")
        .map_err(|problem| problems.push(problem.to_string()))
        .unwrap_or_default()
        .trim()
        .to_owned();
    let parts: Vec<&str> = version.split('.').collect();
    let semver = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if !semver && !version.is_empty() {
        problems.push(format!(
            "{}: `{version}` is not a MAJOR.MINOR.PATCH version",
            source.display("VERSION")
        ));
    }
    version
}

/// Reads one JSON file of the spec into a typed value; a problem names the file, and the
/// line and column or the field path.
fn read_json<T: serde::de::DeserializeOwned>(
    source: &Source,
    relative: &str,
    problems: &mut Vec<String>,
) -> Option<T> {
    let parsed = source
        .read(relative)
        .map_err(|e| e.to_string())
        .and_then(|text| parse_json_text(source, relative, &text, |_| ()));
    parsed
        .map(|(value, ())| value)
        .map_err(|problem| problems.push(problem))
        .ok()
}

/// Parses a file's `text` into a typed value, with what `inspect` finds in the parsed JSON
/// before it is taken apart into the typed value.
fn parse_json_text<T: serde::de::DeserializeOwned, I>(
    source: &Source,
    relative: &str,
    text: &str,
    inspect: impl FnOnce(&Value) -> I,
) -> Result<(T, I), String> {
    let name = source.display(relative);
    let value = json::parse(text).map_err(|e| format!("{name}: invalid JSON: {e}"))?;
    let found = inspect(&value);
    // Copied, not taken apart: moving the values out left the freed containers of a
    // 150 MB export scattered between the live strings, and every allocation of the run
    // that followed paid for the holes (`check --spec` of 10,000 generated cases took
    // 12 s instead of 7; BENCHMARKS.md section 3).
    let typed = json::from_value(&value).map_err(|e| format!("{name}: {e}"))?;
    Ok((typed, found))
}

/// The 1-based line holding each case's `"id": "<id>"` (ids are unique, lowercase words and
/// digits, so the text is found as written). Cases come in file order, so each search starts
/// after the last one found, counting the lines passed on the way, and wraps around only
/// for one out of order: searching every id from the top made loading an export of 10,000
/// generated cases quadratic (minutes), and splitting the text into lines first was a
/// tenth of the loading.
fn lines_of_ids<'c>(text: &str, ids: impl Iterator<Item = &'c str>) -> Vec<Option<usize>> {
    // Where the last id was found, and its line.
    let (mut at, mut line) = (0, 1);
    ids.map(|id| {
        let needle = format!("\"id\": \"{id}\"");
        let found = match text[at..].find(&needle) {
            Some(offset) => at + offset,
            None => {
                let found = text.find(&needle)?;
                (at, line) = (0, 1);
                found
            }
        };
        let found_line = line + newlines(&text[at..found]);
        // The next search starts on the next line, as a search line by line would.
        (at, line) = match text[found..].find('\n') {
            Some(end) => (found + end + 1, found_line + 1),
            None => (text.len(), found_line + 1),
        };
        Some(found_line)
    })
    .collect()
}

fn read_requirements(source: &Source, problems: &mut Vec<String>) -> Vec<Requirement> {
    let Some(file) = read_json::<RequirementsFile>(source, "requirements.json", problems) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    for requirement in &file.requirements {
        if !seen.insert(requirement.id.as_str()) {
            problems.push(format!(
                "{}: requirement {} is listed twice",
                source.display("requirements.json"),
                requirement.id
            ));
        }
    }
    file.requirements
}

/// The case files of `cases/<function>/`, sorted so runs are reproducible.
fn case_files(source: &Source, function: Function, problems: &mut Vec<String>) -> Vec<String> {
    source
        .json_files(&format!("cases/{}", function.name()))
        .map_err(|problem| problems.push(problem.to_string()))
        .unwrap_or_default()
}

/// One case file, read: its cases, the line of each case's id, and its problems.
#[derive(Default)]
struct ReadFile {
    cases: Vec<SpecCase>,
    lines: Vec<Option<usize>>,
    problems: Vec<String>,
}

/// Reads the case files on every core, each file's cases parsed apart: a spec export of
/// 10,000 generated cases is two files of 60 and 100 MB, whose reading was most of
/// `check --spec` (BENCHMARKS.md section 3). Returned in the order given, so cases and
/// problems come out the same every time.
fn read_case_files(source: &Source, files: &[(Function, String)]) -> Vec<ReadFile> {
    use rayon::prelude::*;
    files
        .par_iter()
        .map(|(function, path)| read_case_file(source, path, *function))
        .collect()
}

/// A case as read, with the digit count of its longest integer: found in the JSON as written,
/// where every number of the case is, whatever field holds it.
type ReadCase = (Case, Option<usize>);

/// Reads one case file whose cases belong in the folder of `folder_function`.
fn read_case_file(source: &Source, relative: &str, folder_function: Function) -> ReadFile {
    let mut file = ReadFile::default();
    let text = match source.read(relative) {
        Ok(text) => text,
        Err(problem) => {
            file.problems.push(problem.to_string());
            return file;
        }
    };
    // A file that cannot be read apart is read whole, which says what is wrong with it in
    // the same words whichever way it would have been read.
    let (read, lines) = match read_cases_apart(&text) {
        Some(apart) => apart,
        None => match read_cases_whole(source, relative, &text) {
            Ok(read) => {
                let lines = lines_of_ids(&text, read.iter().map(|(case, _)| case.id()));
                (read, lines)
            }
            Err(problem) => {
                file.problems.push(problem);
                return file;
            }
        },
    };
    for (case, longest) in read {
        let case = SpecCase {
            file: relative.to_owned(),
            case: case.into(),
        };
        if case.function() != folder_function {
            file.problems.push(format!(
                "{relative}: holds `{}` cases but sits in the folder of `{folder_function}`",
                case.function()
            ));
            file.cases.clear();
            return file;
        }
        for problem in case_problems(&case, longest) {
            file.problems
                .push(format!("{relative}: case {}: {problem}", case.id()));
        }
        file.cases.push(case);
    }
    file.lines = lines;
    file
}

/// The cases of a file parsed one by one, on every core, with the line of each one's id:
/// the file with its `cases` emptied, then each case. `None` when any piece fails (the file
/// is then read whole).
fn read_cases_apart(text: &str) -> Option<(Vec<ReadCase>, Vec<Option<usize>>)> {
    use rayon::prelude::*;
    let member = json::list_member(text, "cases")?;
    let header = format!(
        "{}[]{}",
        &text[..member.list.start],
        &text[member.list.end..]
    );
    let header: CaseFile = json::from_value(&json::parse(&header).ok()?).ok()?;
    let exec = matches!(header, CaseFile::ExecuteToolCalls { .. });
    let read: Vec<(ReadCase, LinesOf)> = member
        .items
        .par_iter()
        .map(|item| {
            let value = json::parse_item(text, item.clone()).ok()?;
            let longest = longest_integer(&value);
            // Copied, as a whole file is (see `parse_json_text`): taking the value apart
            // was no faster here and left 10% more memory behind.
            let case = if exec {
                Case::Exec(json::from_value(&value).ok()?)
            } else {
                Case::Dedup(json::from_value(&value).ok()?)
            };
            let lines = LinesOf::item(&text[item.clone()], case.id());
            Some(((case, longest), lines))
        })
        .collect::<Option<_>>()?;
    // Each item's lines counted apart, added up here with the lines between items.
    let mut line = 1;
    let mut after = 0;
    let mut ids = Vec::with_capacity(read.len());
    let mut cases = Vec::with_capacity(read.len());
    for (item, (case, lines)) in member.items.iter().zip(read) {
        line += newlines(&text[after..item.start]);
        ids.push(lines.id.map(|within| line + within));
        line += lines.total;
        after = item.end;
        cases.push(case);
    }
    Some((cases, ids))
}

/// The newlines of one case's text, in all and before the case's `"id": "<id>"`.
struct LinesOf {
    total: usize,
    id: Option<usize>,
}

impl LinesOf {
    fn item(item: &str, id: &str) -> LinesOf {
        let written = format!("\"id\": \"{id}\"");
        LinesOf {
            total: newlines(item),
            id: item.find(&written).map(|at| newlines(&item[..at])),
        }
    }
}

fn newlines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

/// The cases of a file parsed whole; a problem names the file, and the line and column or
/// the field path.
fn read_cases_whole(source: &Source, relative: &str, text: &str) -> Result<Vec<ReadCase>, String> {
    let longest_integers = |file: &Value| -> Vec<Option<usize>> {
        let cases = file.as_object().and_then(|file| file.get("cases"));
        match cases.and_then(Value::as_list) {
            Some(cases) => cases.iter().map(longest_integer).collect(),
            None => Vec::new(),
        }
    };
    let (file, longest) = parse_json_text::<CaseFile, _>(source, relative, text, longest_integers)?;
    let cases: Vec<Case> = match file {
        CaseFile::ExecuteToolCalls { cases, .. } => cases.into_iter().map(Case::Exec).collect(),
        CaseFile::RunParallelCalls { cases, .. } => cases.into_iter().map(Case::Dedup).collect(),
    };
    let longest = longest.into_iter().chain(std::iter::repeat(None));
    Ok(cases.into_iter().zip(longest).collect())
}

/// What is wrong inside one case, independent of other cases; `longest_integer` is the
/// digit count of its longest integer.
fn case_problems(case: &SpecCase, longest_integer: Option<usize>) -> Vec<String> {
    let mut problems = Vec::new();
    let id = case.id();
    let id_ok = !id.is_empty()
        && id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !id_ok {
        problems.push("the id must be lowercase words and digits joined by `-`".to_owned());
    }
    if case.requirements().is_empty() {
        problems.push("names no requirement".to_owned());
    }
    match &*case.case {
        Case::Exec(exec) => exec_problems(exec, &mut problems),
        Case::Dedup(dedup) => dedup_problems(dedup, &mut problems),
    }
    if let Some(digits) = longest_integer.filter(|&d| d > MAX_INTEGER_DIGITS) {
        problems.push(format!(
            "holds an integer of {digits} digits; CPython converts at most \
             {MAX_INTEGER_DIGITS} (SPEC.md, Numbers)"
        ));
    }
    problems
}

pub use crate::json::MAX_INTEGER_DIGITS;

/// The digit count (sign excluded) of the longest integer anywhere in `value`.
fn longest_integer(value: &Value) -> Option<usize> {
    match value {
        Value::Int(int) => Some(int.as_str().trim_start_matches('-').len()),
        Value::List(items) => items.iter().filter_map(longest_integer).max(),
        Value::Object(object) => object.values().filter_map(longest_integer).max(),
        _ => None,
    }
}

fn exec_problems(case: &ExecCase, problems: &mut Vec<String>) {
    if case.batches.is_empty() {
        problems.push("has no batch".to_owned());
    }
    for (index, batch) in case.batches.iter().enumerate() {
        let checked = input::tool_calls(&batch.calls).and_then(|calls| match case.dispatch {
            Dispatch::Sandbox => Sandbox::check_domain(&calls),
            Dispatch::Scripted { .. } => Ok(()),
        });
        if let Err(error) = checked {
            problems.push(format!("batch {}: outside the domain: {error}", index + 1));
        }
        let calls = batch.calls.as_list().map_or(0, <[Value]>::len);
        let messages = batch.expected.as_list().map_or(0, <[Value]>::len);
        if calls != messages {
            problems.push(format!(
                "batch {}: expects {messages} messages for {calls} calls (RULINGS A1: one per call)",
                index + 1
            ));
        }
    }
    if let Dispatch::Scripted { tools } = &case.dispatch {
        raise_problems(tools, problems);
        for (name, script) in tools {
            let answers = script.responses.iter().flat_map(|r| &r.answers);
            if answers.clone().any(|a| {
                // A raise is fine: dispatch answers it with `error: <message>` (SPEC.md).
                !matches!(
                    a,
                    Answer::Return {
                        value: Value::Str(_)
                    } | Answer::Raise { .. }
                )
            }) {
                problems.push(format!(
                    "scripted dispatch tool `{name}` must only return strings (or raise)"
                ));
            }
        }
    }
}

fn dedup_problems(case: &DedupCase, problems: &mut Vec<String>) {
    if case.batches.is_empty() {
        problems.push("has no batch".to_owned());
    }
    for (index, batch) in case.batches.iter().enumerate() {
        if let Err(error) = input::dedup_calls(&batch.calls) {
            problems.push(format!("batch {}: outside the domain: {error}", index + 1));
        }
    }
    raise_problems(&case.tools, problems);
    for (name, script) in &case.tools {
        if script.responses.iter().any(|r| r.answers.is_empty()) {
            problems.push(format!("tool `{name}` has a response without answers"));
        }
    }
}

/// A `raise` answer's `message` must be what CPython's `str()` gives for its class and args
/// (RULINGS B7a), so that every adapter, whether it builds the real exception or only
/// carries the message, shows the same text.
fn raise_problems(tools: &indexmap::IndexMap<String, ToolScript>, problems: &mut Vec<String>) {
    for (name, script) in tools {
        for answer in script.responses.iter().flat_map(|r| &r.answers) {
            let Answer::Raise {
                message,
                exception,
                args,
            } = answer
            else {
                continue;
            };
            let class = exception.unwrap_or(ExceptionClass::RuntimeError);
            let args = args
                .clone()
                .unwrap_or_else(|| vec![Value::from(message.as_str())]);
            if let Some(shown) = class.python_str(&args) {
                if &shown != message {
                    problems.push(format!(
                        "tool `{name}` raises {}{}, whose str() is {shown:?}, not the message {message:?}",
                        class.name(),
                        crate::reference::python::repr_value(&Value::List(args.clone()))
                            .replacen('[', "(", 1)
                            .trim_end_matches(']')
                            .to_owned()
                            + ")"
                    ));
                }
            }
        }
    }
}

/// Ids unique across files; every case names existing requirements of its own function.
fn check_links(requirements: &[Requirement], cases: &[SpecCase], problems: &mut Vec<String>) {
    let by_id: HashMap<&str, &Requirement> =
        requirements.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut first_seen: HashMap<&str, &str> = HashMap::new();
    for case in cases {
        if let Some(other) = first_seen.insert(case.id(), &case.file) {
            problems.push(format!(
                "{}: case id {} is already used in {other}",
                case.file,
                case.id()
            ));
        }
        for requirement in case.requirements() {
            match by_id.get(requirement.as_str()) {
                None => problems.push(format!(
                    "{}: case {}: names unknown requirement {requirement}",
                    case.file,
                    case.id()
                )),
                Some(r) if r.function != case.function() => problems.push(format!(
                    "{}: case {}: requirement {requirement} is about {}, not {}",
                    case.file,
                    case.id(),
                    r.function,
                    case.function()
                )),
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case file of the built-in spec, by its path.
    fn bundled_case_files() -> Vec<(Function, String, String)> {
        let source = Source::Embedded;
        let mut files = Vec::new();
        for function in Function::ALL {
            for path in source
                .json_files(&format!("cases/{}", function.name()))
                .unwrap()
            {
                let text = source.read(&path).unwrap();
                files.push((function, path, text));
            }
        }
        files
    }

    #[test]
    fn cases_read_apart_are_the_cases_read_whole_on_the_same_lines() {
        for (_, path, text) in bundled_case_files() {
            let (apart, lines) = read_cases_apart(&text).expect(&path);
            let whole = read_cases_whole(&Source::Embedded, &path, &text).unwrap();
            let whole_lines = lines_of_ids(&text, whole.iter().map(|(case, _)| case.id()));
            assert!(apart == whole, "{path}: the cases differ");
            assert_eq!(lines, whole_lines, "{path}");
            assert!(lines.iter().all(Option::is_some), "{path}");
        }
    }

    #[test]
    fn a_file_that_cannot_be_read_apart_is_read_whole_with_the_same_problems() {
        let (function, path, text) = bundled_case_files()
            .into_iter()
            .find(|(_, path, _)| path.ends_with("execute_tool_calls/seed.json"))
            .unwrap();
        let last_id = text.rfind("\"id\": \"exec-seed-").unwrap();
        let broken = [
            // Invalid JSON in a late case: the line and column are the whole file's.
            format!("{}\"id\": 'x', {}", &text[..last_id], &text[last_id..]),
            // A field no case has.
            text.replacen("\"description\":", "\"descripton\":", 1),
            // The list twice, and a key written with an escape.
            text.replacen("\"cases\":", "\"cases\": [], \"cases\":", 1),
            text.replacen("\"topic\":", "\"t\\u006fpic\":", 1),
        ];
        let original = read_cases_apart(&text).unwrap().0;
        for (index, text) in broken.iter().enumerate() {
            assert!(read_cases_apart(text).is_none(), "variant {index}");
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join(&path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, text).unwrap();
            let source = Source::Dir(dir.path().to_owned());
            let mut problems = Vec::new();
            match read_cases_whole(&source, &path, text) {
                // Read whole, the last two mean the original's cases.
                Ok(cases) => assert!(index >= 2 && cases == original, "variant {index}"),
                Err(problem) => problems.push(problem),
            }
            let read = read_case_file(&source, &path, function);
            assert_eq!(read.problems, problems, "variant {index}");
            if index == 0 {
                let line = text[..last_id].matches('\n').count() + 1;
                let at = format!("invalid JSON: expecting a value at line {line} column");
                assert!(problems[0].contains(&at), "{problems:?}");
            }
        }
    }

    #[test]
    fn case_lines_are_found_in_order_out_of_order_and_not_at_all() {
        let text = "[\n  {\"id\": \"a-001\",\n   \"calls\": [{\"id\": \"a-003\"}]},\n  {\"id\": \"a-002\"},\n  {\"id\": \"a-003\"}\n]\n";
        let lines = |ids: &[&str]| lines_of_ids(text, ids.iter().copied());
        assert_eq!(
            lines(&["a-001", "a-002", "a-003"]),
            [Some(2), Some(4), Some(5)]
        );
        // An id on the line of an earlier one is searched from the next line, as before.
        let shared = "{\"id\": \"a\", \"x\": {\"id\": \"b\"}},\n{\"id\": \"b\"}\n";
        assert_eq!(
            lines_of_ids(shared, ["a", "b"].into_iter()),
            [Some(1), Some(2)]
        );
        // An id out of file order is still found, by wrapping around.
        assert_eq!(lines(&["a-002", "a-001"]), [Some(4), Some(2)]);
        assert_eq!(lines(&["a-009", "a-002"]), [None, Some(4)]);
    }
}
