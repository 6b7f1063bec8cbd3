//! A real browser for the HTML pages: headless Chromium (installed by `.ci/run` from the
//! distribution's packages) loads a page from disk with the network off, and the test reads
//! the DOM it built.

use super::temp_dir;
use std::path::Path;
use std::process::Command;

/// The first Chromium found on PATH, if any: tests that need one say they skipped without.
pub(crate) fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The DOM as the browser built it from `page`, with the network off.
pub(crate) fn rendered(browser: &str, page: &Path) -> String {
    // A profile per page: tests run in parallel and must not share one.
    let name = page.file_stem().unwrap_or_default().to_string_lossy();
    let profile = temp_dir(&format!("profile-{name}"));
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}
