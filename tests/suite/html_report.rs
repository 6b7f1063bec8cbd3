//! `--format html` and the grading page, rendered by a real browser: headless Chromium
//! (installed by `.ci/run` from the distribution's packages) loads each page from disk and
//! the test reads what it shows. Hostile text stays text.

use crate::common;

use common::browser::{chromium, rendered};
use common::{fresh_regressions, root, temp_dir};
use std::path::Path;
use std::process::Command;

fn parcall_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_parcall"))
        .args(args)
        .current_dir(dir)
        .env("PARCALL_REGRESSIONS", fresh_regressions().as_os_str())
        .output()
        .unwrap()
}

#[test]
fn the_check_page_shows_the_verdict_the_matrix_and_each_failure() {
    let dir = temp_dir("check");
    // A module whose output tries to inject markup into the page.
    let source = std::fs::read_to_string(
        root().join("conformance/examples/python/broken/ids_zero_based.py"),
    )
    .unwrap();
    let module = dir.join("injects.py");
    std::fs::write(
        &module,
        source.replace(
            "def execute_tool_calls(calls, max_parallel=4):",
            "def execute_tool_calls(calls, max_parallel=4):\n    print('<script>document.title=\"owned\"</script><b>bold</b>')",
        ),
    )
    .unwrap();
    let page = dir.join("report.html");
    let output = parcall_in(
        &dir,
        &[
            "check",
            module.to_str().unwrap(),
            "--fuzz",
            "20",
            "--seed",
            "1",
            "--format",
            "html",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    std::fs::write(&page, &output.stdout).unwrap();
    let html = String::from_utf8_lossy(&output.stdout);
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page loads nothing"
    );
    assert!(
        html.contains("&lt;script&gt;document.title"),
        "printed text is escaped"
    );
    assert!(!html.contains("<script") && !html.contains("<b>bold</b>"));
    let Some(browser) = chromium() else {
        eprintln!("skipped the rendering: no Chromium here (.ci/run installs Debian's `chromium`)");
        return;
    };
    let dom = rendered(browser, &page);
    assert!(
        dom.contains("id=\"verdict\" class=\"verdict fail\">does not conform</span>"),
        "{dom}"
    );
    assert!(dom.contains("<td class=\"fail\" title=\"") && dom.contains(">EXEC-ID-GENERATED</td>"));
    assert!(
        dom.contains("id=\"case-exec-seed-002\""),
        "each failure has its section"
    );
    assert!(
        dom.contains("class=\"del\"") && dom.contains("class=\"ins\""),
        "the diff is shown"
    );
    // The printed markup is text on the page, not markup: no script ran, no element made.
    assert!(dom.contains("&lt;script&gt;document.title"), "{dom}");
    assert!(!dom.contains("<b>bold</b>"));
    assert!(!dom.contains("<title>owned</title>"));
}

#[test]
fn the_class_page_shows_a_heatmap_and_what_to_teach_again() {
    let dir = temp_dir("class");
    let class = dir.join("class");
    std::fs::create_dir_all(&class).unwrap();
    let examples = root().join("conformance/examples/python");
    std::fs::copy(examples.join("solution.py"), class.join("alice.py")).unwrap();
    std::fs::copy(
        examples.join("broken/limit_off_by_one.py"),
        class.join("bob<img src=x>.py"),
    )
    .unwrap();
    let out = dir.join("out");
    let output = parcall_in(
        &dir,
        &[
            "grade",
            class.to_str().unwrap(),
            "--function",
            "execute_tool_calls",
            "--fuzz",
            "100",
            "--seed",
            "3",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let html = std::fs::read_to_string(out.join("teacher/class.html")).unwrap();
    assert!(
        html.contains("bob&lt;img src=x&gt;") && !html.contains("<img"),
        "names are text"
    );
    let Some(browser) = chromium() else {
        eprintln!("skipped the rendering: no Chromium here (.ci/run installs Debian's `chromium`)");
        return;
    };
    let dom = rendered(browser, &out.join("teacher/class.html"));
    assert!(dom.contains("2 submissions"), "{dom}");
    assert!(dom.contains("<td>alice</td>"), "{dom}");
    assert!(
        dom.contains("<td>bob&lt;img src=x&gt;</td>"),
        "names are text: {dom}"
    );
    assert!(!dom.contains("<img"), "no element made from a name");
    let rates = &dom[dom.find("id=\"rates\"").expect("the pass-rate table")..];
    // Lowest pass rate first: the limit rule bob broke, at 50%, before every rule all kept.
    let first_row = &rates[rates.find("<td").unwrap()..];
    assert!(
        first_row[..first_row.find("</tr>").unwrap()].contains("50%"),
        "{first_row}"
    );
    let limit = rates.find(">EXEC-LIMIT-POSITION<").unwrap();
    let first_kept = rates.find("<td class=\"n\">100%</td>").unwrap();
    assert!(limit < first_kept, "{rates}");
}
