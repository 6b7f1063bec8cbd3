//! `--report FORMAT=PATH`: a report written beside the one on stdout, whole or not at all.

use super::check::CheckError;
use crate::report::{self, Report};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;

/// Writes one `--report FORMAT=PATH`, uncoloured, through a temporary file beside it and
/// a rename, so a reader never sees half a report. A special file (a FIFO, the step
/// summary's file on some runners) is written in place.
pub(super) fn write(
    report: &Report,
    target: &super::ReportTarget,
    options: &report::Options,
) -> Result<(), CheckError> {
    let path = &target.path;
    let fail = |source: std::io::Error| CheckError::WriteReport {
        path: path.display().to_string(),
        source,
    };
    let mut text = Vec::new();
    report::write_with(report, target.format, options, &mut text).map_err(fail)?;
    let regular = std::fs::symlink_metadata(path).map_or(true, |m| m.is_file());
    if !regular {
        // Without blocking: a FIFO planted at the path with no reader is an error (ENXIO),
        // never a hang.
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(fail)?;
        // Opened, it has a reader: from here writes wait for it, as a reader slower than
        // the report is long (`| (sleep 3; wc -c)`) once got EAGAIN and a correct run exit
        // 3. A reader that leaves early is not a failure, as on stdout.
        set_blocking(&file).map_err(fail)?;
        return super::written(file.write_all(&text)).map_err(fail);
    }
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(directory).map_err(fail)?;
    temporary.write_all(&text).map_err(fail)?;
    // A report is for everyone who reads the build, not only its owner (temporary files
    // are created 0600).
    let readable = std::fs::Permissions::from_mode(0o644);
    temporary
        .as_file()
        .set_permissions(readable)
        .map_err(fail)?;
    temporary.persist(path).map(drop).map_err(|e| fail(e.error))
}

/// Clears `O_NONBLOCK` on an open file.
fn set_blocking(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function borrows for the call.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the same open descriptor, still borrowed; F_SETFL changes only its flags.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
