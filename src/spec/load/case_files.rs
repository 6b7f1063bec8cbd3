//! Reading the case files of a function's folder: apart on every core where the text allows,
//! whole where it does not, with the line of each case's id.

use super::super::model::CaseFile;
use super::super::requirements::Function;
use super::super::source::Source;
use super::checks::{case_problems, longest_integer};
use super::files::{parse_json_text, JsonTextError};
use super::{Case, SpecCase};
use crate::json::{self, Value};

/// The case files of `cases/<function>/`, sorted so runs are reproducible.
pub(super) fn case_files(
    source: &Source,
    function: Function,
    problems: &mut Vec<String>,
) -> Vec<String> {
    source
        .json_files(&format!("cases/{}", function.name()))
        .map_err(|problem| problems.push(problem.to_string()))
        .unwrap_or_default()
}

/// One case file, read: its cases, the line of each case's id, and its problems.
#[derive(Default)]
pub(super) struct ReadFile {
    pub(super) cases: Vec<SpecCase>,
    pub(super) lines: Vec<Option<usize>>,
    pub(super) problems: Vec<String>,
}

/// Reads the case files on every core, each file's cases parsed apart: a spec export of
/// many generated cases is two large files, whose reading was most of `check --spec`
/// (BENCHMARKS.md section 3). Returned in the order given, so cases and
/// problems come out the same every time.
pub(super) fn read_case_files(source: &Source, files: &[(Function, String)]) -> Vec<ReadFile> {
    use rayon::prelude::*;
    files
        .par_iter()
        .map(|(function, path)| read_case_file(source, path, *function))
        .collect()
}

/// A case as read, with the digit count of its longest integer: found in the JSON as written,
/// where every number of the case is, whatever field holds it.
pub(super) type ReadCase = (Case, Option<usize>);

/// Reads one case file whose cases belong in the folder of `folder_function`.
pub(super) fn read_case_file(
    source: &Source,
    relative: &str,
    folder_function: Function,
) -> ReadFile {
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
                file.problems.push(problem.to_string());
                return file;
            }
        },
    };
    for (case, longest) in read {
        let case = SpecCase {
            origin: crate::spec::Origin::Spec {
                file: relative.to_owned(),
            },
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
pub(super) fn read_cases_apart(text: &str) -> Option<(Vec<ReadCase>, Vec<Option<usize>>)> {
    use rayon::prelude::*;
    let member = json::list_member(text, "cases")?;
    let header = format!(
        "{}[]{}",
        &text[..member.list.start],
        &text[member.list.end..]
    );
    let header: CaseFile = json::from_value(&json::parse(&header).ok()?).ok()?;
    let function = match header {
        CaseFile::ExecuteToolCalls { .. } => Function::ExecuteToolCalls,
        CaseFile::RunParallelCalls { .. } => Function::RunParallelCalls,
        CaseFile::RunToolCalls { .. } => Function::RunToolCalls,
    };
    let read: Vec<(ReadCase, LinesOf)> = member
        .items
        .par_iter()
        .map(|item| {
            let value = json::parse_item(text, item.clone()).ok()?;
            let longest = longest_integer(&value);
            // Copied, as a whole file is (see `parse_json_text`): taking the value apart
            // was no faster here and left more memory behind (BENCHMARKS.md section 3).
            let case = match function {
                Function::ExecuteToolCalls => Case::Exec(json::from_value(&value).ok()?),
                Function::RunParallelCalls => Case::Dedup(json::from_value(&value).ok()?),
                Function::RunToolCalls => Case::Runtime(json::from_value(&value).ok()?),
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
pub(super) struct LinesOf {
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

pub(super) fn newlines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

/// The cases of a file parsed whole; a problem names the file, and the line and column or
/// the field path.
pub(super) fn read_cases_whole(
    source: &Source,
    relative: &str,
    text: &str,
) -> Result<Vec<ReadCase>, JsonTextError> {
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
        CaseFile::RunToolCalls { cases, .. } => cases.into_iter().map(Case::Runtime).collect(),
    };
    let longest = longest.into_iter().chain(std::iter::repeat(None));
    Ok(cases.into_iter().zip(longest).collect())
}

/// The 1-based line holding each case's `"id": "<id>"` (ids are unique, lowercase words and
/// digits, so the text is found as written). Cases come in file order, so each search starts
/// after the last one found, counting the lines passed on the way, and wraps around only
/// for one out of order: searching every id from the top made loading an export of 10,000
/// generated cases quadratic (minutes), and splitting the text into lines first was a
/// tenth of the loading.
pub(super) fn lines_of_ids<'c>(
    text: &str,
    ids: impl Iterator<Item = &'c str>,
) -> Vec<Option<usize>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case file of the built-in spec, by its path.
    fn bundled_case_files() -> Vec<(Function, String, String)> {
        let source = Source::Embedded;
        let mut files = Vec::new();
        for function in Function::EVERY {
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
                Err(problem) => problems.push(problem.to_string()),
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
