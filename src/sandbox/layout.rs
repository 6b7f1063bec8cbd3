//! What a sandbox's root holds: exactly what its interpreter needs, found by asking the
//! interpreter itself (Python: its module search path without site-packages, and every shared
//! object mapped once all its extension modules are loaded; Node: the objects it maps; Ruby:
//! its standard library and default gems; Perl: its module path), a runtime's installation
//! folder (a JDK, Go's GOROOT), the program and its libraries for anything else, a minimal
//! `/dev` and `/etc`. Paths keep their
//! place on the machine, and the links on the way to them are recreated, so an interpreter
//! finds its files where it was built to. Found once per program and kept for the process.

use super::{Step, HOME, INSIDE_ID};
use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// Why a program's needs could not be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot find what {program} needs to run: {reason}")]
pub struct LayoutError {
    pub program: String,
    pub reason: String,
}

/// The devices a program may open: the harmless ones.
const DEVICES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Collects steps: links recreated on the way to each path, and no step twice.
#[derive(Debug, Default)]
pub(super) struct Builder {
    steps: Vec<Step>,
    seen: BTreeSet<PathBuf>,
}

impl Builder {
    pub(super) fn push(&mut self, step: Step) {
        if self.seen.insert(step.path().to_owned()) {
            self.steps.push(step);
        }
    }

    /// The host's `path` bound at its place, with every link on the way to it recreated.
    pub(super) fn bind(&mut self, path: &Path) -> Result<(), String> {
        let real = self.follow(path, 0)?;
        let device = real.starts_with("/dev");
        self.push(Step::Bind { path: real, device });
        Ok(())
    }

    /// Resolves `path` component by component as the kernel would, recording each link met.
    fn follow(&mut self, path: &Path, depth: usize) -> Result<PathBuf, String> {
        if depth > 16 {
            return Err(format!("{}: too many levels of links", path.display()));
        }
        let mut resolved = PathBuf::from("/");
        for component in path.components() {
            match component {
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(name) => {
                    let next = resolved.join(name);
                    let meta = std::fs::symlink_metadata(&next)
                        .map_err(|e| format!("{}: {e}", next.display()))?;
                    if meta.file_type().is_symlink() {
                        let target = std::fs::read_link(&next)
                            .map_err(|e| format!("{}: {e}", next.display()))?;
                        self.push(Step::Symlink {
                            path: next,
                            target: target.clone(),
                        });
                        resolved = self.follow(&resolved.join(target), depth + 1)?;
                    } else {
                        resolved = next;
                    }
                }
            }
        }
        Ok(resolved)
    }

    /// The steps in order, without any step that lies inside a bound folder (it is there
    /// already, and a read-only bind cannot take more).
    pub(super) fn finish(self) -> Vec<Step> {
        let bound: Vec<PathBuf> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Bind { path, .. } if path.is_dir() => Some(path.clone()),
                _ => None,
            })
            .collect();
        self.steps
            .into_iter()
            .filter(|s| {
                !bound
                    .iter()
                    .any(|b| s.path() != b && s.path().starts_with(b))
            })
            .collect()
    }
}

/// What every sandbox holds: a few devices, the links of `/dev`, an `/etc` naming its one
/// user, the loader's cache, and the places its writable folders are bound to.
pub(super) fn base(builder: &mut Builder) -> Result<(), String> {
    for device in DEVICES {
        builder.bind(Path::new(device))?;
    }
    for (link, target) in [
        ("/dev/fd", "/proc/self/fd"),
        ("/dev/stdin", "/proc/self/fd/0"),
        ("/dev/stdout", "/proc/self/fd/1"),
        ("/dev/stderr", "/proc/self/fd/2"),
    ] {
        builder.push(Step::Symlink {
            path: link.into(),
            target: target.into(),
        });
    }
    builder.push(Step::File {
        path: "/etc/passwd".into(),
        contents: format!("sandbox:x:{INSIDE_ID}:{INSIDE_ID}:sandbox:{HOME}:/bin/sh\n"),
    });
    builder.push(Step::File {
        path: "/etc/group".into(),
        contents: format!("sandbox:x:{INSIDE_ID}:\n"),
    });
    // A merged /usr makes /lib, /bin and the like links, by which the loader's cache and
    // `#!` lines name files.
    for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
        if std::fs::symlink_metadata(top).is_ok_and(|m| m.file_type().is_symlink()) {
            builder.follow(Path::new(top), 0)?;
        }
    }
    if let Some(loader) = loader() {
        builder.bind(&loader)?;
    }
    // The locale every sandbox runs in (LANG=C.UTF-8), where the C library keeps it.
    for shared in ["/etc/ld.so.cache", "/usr/lib/locale/C.utf8"] {
        if Path::new(shared).exists() {
            builder.bind(Path::new(shared))?;
        }
    }
    Ok(())
}

/// The kinds of program whose needs are found differently.
fn kind(program: &Path) -> &'static str {
    let name = program.file_name().unwrap_or_default().to_string_lossy();
    if name.starts_with("python") {
        "python"
    } else if name.starts_with("node") {
        "node"
    } else if name.starts_with("ruby") {
        "ruby"
    } else if name.starts_with("perl") {
        "perl"
    } else {
        "program"
    }
}

/// What was found for each path, kept for the process: finding runs programs.
type Found = OnceLock<Mutex<HashMap<PathBuf, Result<Vec<PathBuf>, String>>>>;

/// `find(path)`, worked out once per path for the process.
fn cached(
    table: &Found,
    path: &Path,
    find: impl FnOnce(&Path) -> Result<Vec<PathBuf>, String>,
) -> Result<Vec<PathBuf>, String> {
    let table = table.get_or_init(Default::default);
    let known = table
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(path)
        .cloned();
    known.unwrap_or_else(|| {
        let found = find(path);
        table
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.to_owned(), found.clone());
        found
    })
}

/// Binds `folder` whole, read-only at its place, and the system libraries its shared
/// objects load (an installed package's compiled extensions need `libgcc_s`, `libstdc++`
/// and the like, which the interpreter itself may not map). Cached per folder.
pub(super) fn readable(builder: &mut Builder, folder: &Path) -> Result<(), LayoutError> {
    static FOUND: Found = OnceLock::new();
    let paths = cached(&FOUND, folder, libraries_of_shared_objects);
    let error = |reason: String| LayoutError {
        program: folder.display().to_string(),
        reason,
    };
    builder.bind(folder).map_err(error)?;
    for path in paths.map_err(error)? {
        builder.bind(&path).map_err(error)?;
    }
    Ok(())
}

/// What a compiled program of the implementation's own may load, found without asking it
/// anything: the folders the system's shell takes its libraries from (the C library's, the
/// loader's), bound whole and read-only, so a C, Rust or Go program finds `libc`,
/// `libgcc_s`, `libm` and the like where its loader looks.
pub(super) fn system_libraries(builder: &mut Builder) -> Result<(), LayoutError> {
    static FOLDERS: OnceLock<Result<Vec<PathBuf>, String>> = OnceLock::new();
    let error = |reason: String| LayoutError {
        program: "the system's libraries".into(),
        reason,
    };
    let folders = FOLDERS.get_or_init(|| {
        let mut folders = BTreeSet::new();
        for library in libraries(Path::new("/bin/sh"))? {
            let real = std::fs::canonicalize(&library).unwrap_or(library);
            if let Some(folder) = real.parent() {
                folders.insert(folder.to_owned());
            }
        }
        Ok(folders.into_iter().collect())
    });
    for folder in folders.clone().map_err(error)? {
        builder.bind(&folder).map_err(error)?;
    }
    Ok(())
}

/// The libraries, outside `folder`, that the shared objects under it load.
fn libraries_of_shared_objects(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let mut objects = Vec::new();
    let mut pending = vec![folder.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let name = entry.file_name();
            let shared = name
                .to_str()
                .is_some_and(|n| n.ends_with(".so") || n.contains(".so."));
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && shared {
                objects.push(path);
            }
        }
    }
    let mut needed = BTreeSet::new();
    for object in objects {
        for library in libraries(&object)? {
            if !library.starts_with(folder) {
                needed.insert(library);
            }
        }
    }
    Ok(needed.into_iter().collect())
}

/// Binds what `program` (an absolute path on the machine) needs; the path to execute, which
/// for a Python launcher script (a version manager's shim) is the interpreter it starts.
/// Cached per program.
pub(super) fn program(builder: &mut Builder, program: &Path) -> Result<PathBuf, LayoutError> {
    static FOUND: Found = OnceLock::new();
    let paths = cached(&FOUND, program, |program| needs(program, 0));
    let error = |reason: String| LayoutError {
        program: program.display().to_string(),
        reason,
    };
    let paths = paths.map_err(error)?;
    for path in &paths {
        builder.bind(path).map_err(error)?;
    }
    Ok(paths[0].clone())
}

/// The host paths `program` needs, the one to execute first, with the links that name
/// each shared object (its soname, by which the loader looks for it).
fn needs(program: &Path, depth: usize) -> Result<Vec<PathBuf>, String> {
    let mut paths = direct_needs(program, depth)?;
    let links = naming_links(&paths[1..]);
    paths.extend(links);
    Ok(paths)
}

/// The links, in the folder of each file of `files`, that lead to it.
fn naming_links(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut by_dir: HashMap<PathBuf, BTreeSet<PathBuf>> = HashMap::new();
    for file in files.iter().filter(|f| f.is_file()) {
        if let (Some(dir), Ok(real)) = (file.parent(), std::fs::canonicalize(file)) {
            by_dir.entry(dir.to_owned()).or_default().insert(real);
        }
    }
    let mut links = Vec::new();
    for (dir, targets) in by_dir {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if is_link
                && std::fs::canonicalize(entry.path()).is_ok_and(|real| targets.contains(&real))
            {
                links.push(entry.path());
            }
        }
    }
    links.sort();
    links
}

fn direct_needs(program: &Path, depth: usize) -> Result<Vec<PathBuf>, String> {
    if kind(program) == "python" {
        return python(program);
    }
    let mut paths = vec![program.to_owned()];
    if let Some(interpreter) = shebang(program)? {
        if depth > 4 {
            return Err("too many levels of `#!` interpreters".into());
        }
        paths.extend(needs(&interpreter, depth + 1)?);
        return Ok(paths);
    }
    match kind(program) {
        kind @ ("ruby" | "perl") => {
            let real = std::fs::canonicalize(program)
                .map_err(|e| format!("{}: {e}", program.display()))?;
            paths.extend(libraries(&real)?);
            let ask = if kind == "ruby" { RUBY_ASK } else { PERL_ASK };
            for folder in library_folders(program, ask)? {
                paths.extend(libraries_of_shared_objects(&folder)?);
                paths.push(folder);
            }
        }
        "node" => paths.extend(mapped(
            program,
            &[
                "-e",
                "process.stdout.write(require('fs').readFileSync('/proc/self/maps','utf8'))",
            ],
        )?),
        _ => {
            // `$ORIGIN` in its library paths means the real file's folder.
            let real = std::fs::canonicalize(program)
                .map_err(|e| format!("{}: {e}", program.display()))?;
            paths.extend(libraries(&real)?);
            if let Some(prefix) = installation(&real) {
                // What it loads from there as it runs, and the libraries those need.
                for object in shared_objects(&prefix).into_iter().take(MAX_OBJECTS) {
                    paths.extend(libraries(&object)?);
                }
                paths.extend(linked_outside(&prefix));
                paths.push(prefix);
            }
        }
    }
    Ok(paths)
}

/// The folder a runtime installed outside the system folders lives in (`/opt/node`,
/// `/usr/lib/jvm/java-17`), when the program is in its `bin`: a runtime like a JVM loads its
/// own libraries and data from there as it runs.
fn installation(real: &Path) -> Option<PathBuf> {
    let bin = real.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    let prefix = bin.parent()?;
    let system = ["/", "/usr", "/usr/local", "/opt"];
    (!system.iter().any(|s| prefix == Path::new(s))).then(|| prefix.to_owned())
}

/// The files and folders that links inside an installation lead to outside it, a few levels
/// deep: a distribution's JDK keeps its configuration in `/etc` (Debian's
/// `conf/security/java.security` is a link to `/etc/java-17-openjdk/`), without which the JVM
/// cannot start, and Debian's Go keeps its standard library's source, which `go build`
/// compiles, in `/usr/share/go-1.19/src`, linked from `GOROOT/src`.
fn linked_outside(prefix: &Path) -> Vec<PathBuf> {
    entries_under(prefix, 0, &|path, kind| {
        kind.is_symlink()
            && std::fs::canonicalize(path).is_ok_and(|target| {
                !target.starts_with(prefix) && (target.is_file() || target.is_dir())
            })
    })
}

/// The shared objects of an installation asked for their libraries, at most.
const MAX_OBJECTS: usize = 200;

/// The `.so` files under `dir`, a few levels deep.
fn shared_objects(dir: &Path) -> Vec<PathBuf> {
    entries_under(dir, 0, &|path, kind| {
        kind.is_file() && path.extension().is_some_and(|e| e == "so")
    })
}

/// The entries under `dir`, at most four folders deep, that `keep` keeps, sorted.
fn entries_under(
    dir: &Path,
    depth: usize,
    keep: &dyn Fn(&Path, std::fs::FileType) -> bool,
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if depth > 3 {
        return found;
    }
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            found.extend(entries_under(&path, depth + 1, keep));
        } else if keep(&path, kind) {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// The interpreter a script names on its `#!` line (through `env`, the program it names,
/// found on the sandbox's PATH); read, never run.
fn shebang(program: &Path) -> Result<Option<PathBuf>, String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("{}: {e}", program.display()))?;
    if !head[..n].starts_with(b"#!") {
        return Ok(None);
    }
    let line = head[2..n].split(|b| *b == b'\n').next().unwrap_or_default();
    let mut words = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| PathBuf::from(OsStr::from_bytes(w)));
    let Some(interpreter) = words.next() else {
        return Ok(None);
    };
    if interpreter.file_name().is_some_and(|n| n == "env") {
        if let Some(name) = words.next() {
            let path = std::env::var_os("PATH").unwrap_or_default();
            if let Some(found) = std::env::split_paths(&path)
                .map(|d| d.join(&name))
                .find(|p| p.is_file())
            {
                return Ok(Some(found));
            }
        }
    }
    Ok(Some(interpreter))
}

/// Asks Python for its executable (a launcher script's too), its module search path (the
/// standard library, without site-packages) and every file mapped once each of its
/// extension modules is loaded.
fn python(program: &Path) -> Result<Vec<PathBuf>, String> {
    const ASK: &str = r#"
import importlib, os, sys
dirs = [p for p in sys.path if p and os.path.isdir(p)
        and 'site-packages' not in p and 'dist-packages' not in p]
for d in dirs:
    for f in sorted(os.listdir(d)):
        if f.endswith('.so'):
            try:
                importlib.import_module(f.split('.')[0])
            except BaseException:
                pass
out = ['E' + sys.executable] + ['D' + d for d in dirs]
for line in open('/proc/self/maps'):
    fields = line.rstrip('\n').split(None, 5)
    if len(fields) == 6 and fields[5].startswith('/'):
        out.append('M' + fields[5])
sys.stdout.write('\0'.join(out))
"#;
    let output = run(program, &["-I", "-B", "-c", ASK])?;
    let mut paths = vec![program.to_owned()];
    for item in output.split(|b| *b == 0).filter(|i| !i.is_empty()) {
        let path = PathBuf::from(OsStr::from_bytes(&item[1..]));
        if item[0] == b'E' && path.is_file() {
            paths[0] = path;
        } else if path.exists() {
            paths.push(path);
        }
    }
    Ok(paths)
}

/// What Ruby is asked for: the folders of its standard library (Ruby's own files and its
/// compiled extensions, `json` among them) and of its default gems, which RubyGems reads as
/// it starts; not `site_ruby` or `vendor_ruby`, the machine's installed packages.
const RUBY_ASK: &[&str] = &[
    "-e",
    r#"require "rbconfig"
dirs = [RbConfig::CONFIG["rubylibdir"], RbConfig::CONFIG["rubyarchdir"]]
dirs << Gem.default_dir if defined?(Gem)
dirs += $LOAD_PATH.reject { |d| d.include?("site_ruby") || d.include?("vendor_ruby") }
print dirs.compact.uniq.select { |d| File.directory?(d) }.join("\0")"#,
];

/// What Perl is asked for: the folders of its module search path.
const PERL_ASK: &[&str] = &[
    "-e",
    r#"print join("\0", grep { -d $_ && $_ ne "." } @INC)"#,
];

/// The folders `program` names when run with `args` (NUL-separated absolute paths).
fn library_folders(program: &Path, args: &[&str]) -> Result<Vec<PathBuf>, String> {
    let output = run(program, args)?;
    Ok(output
        .split(|b| *b == 0)
        .map(|item| PathBuf::from(OsStr::from_bytes(item)))
        .filter(|path| path.is_absolute() && path.is_dir())
        .collect())
}

/// Every file `program` maps after running `args` (which print its `/proc/self/maps`).
fn mapped(program: &Path, args: &[&str]) -> Result<Vec<PathBuf>, String> {
    let output = run(program, args)?;
    Ok(String::from_utf8_lossy(&output)
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|p| p.starts_with('/'))
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect())
}

/// The shared libraries of an executable, as the system's dynamic loader lists them
/// (`ld.so --list`, which loads nothing of the program's own code).
fn libraries(program: &Path) -> Result<Vec<PathBuf>, String> {
    let Some(loader) = loader() else {
        return Ok(Vec::new());
    };
    let Ok(output) = Command::new(&loader)
        .arg("--list")
        .arg(program)
        .env_clear()
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    else {
        return Ok(vec![loader]);
    };
    let mut paths: Vec<PathBuf> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let path = match line.split_once("=>") {
                Some((_, right)) => right.trim(),
                None => line,
            };
            let path = path.split(" (").next()?.trim();
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect();
    paths.push(loader);
    Ok(paths)
}

/// The system's dynamic loader: the interpreter `/bin/sh` names in its ELF header.
fn loader() -> Option<PathBuf> {
    static LOADER: OnceLock<Option<PathBuf>> = OnceLock::new();
    LOADER
        .get_or_init(|| {
            let elf = std::fs::read("/bin/sh").ok()?;
            let start = elf
                .windows(8)
                .position(|w| w == b"/lib64/l" || w == b"/lib/ld-")?;
            let end = start + elf[start..].iter().position(|b| *b == 0)?;
            Some(PathBuf::from(OsStr::from_bytes(&elf[start..end])))
        })
        .clone()
}

fn run(program: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .current_dir("/")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run it: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "it {} when asked: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// `name` as exec would find it on `path` (a name holding a `/` is taken as it is).
pub(super) fn resolve(name: &OsStr, path: &OsStr, cwd: &Path) -> Option<PathBuf> {
    let candidate = Path::new(name);
    if name.as_bytes().contains(&b'/') {
        let absolute = cwd.join(candidate);
        return absolute.is_file().then_some(absolute);
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(candidate))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_on_the_way_are_recreated_and_nothing_is_bound_twice() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("python3.11"), "").unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("bin")).unwrap();
        std::os::unix::fs::symlink("python3.11", real.join("python3")).unwrap();
        let mut builder = Builder::default();
        builder.bind(&dir.path().join("bin/python3")).unwrap();
        builder.bind(&real).unwrap();
        builder.bind(&real.join("python3.11")).unwrap();
        let real = std::fs::canonicalize(&real).unwrap();
        let steps = builder.finish();
        let binds: Vec<_> = steps
            .iter()
            .filter(|s| matches!(s, Step::Bind { .. }))
            .map(|s| s.path().to_owned())
            .collect();
        // The file inside the bound folder is not bound again.
        assert_eq!(binds, std::slice::from_ref(&real));
        let links = steps
            .iter()
            .filter(|s| matches!(s, Step::Symlink { .. }))
            .count();
        assert!(links >= 1, "{steps:?}");
    }

    #[test]
    fn python_needs_its_standard_library_and_no_site_packages() {
        let Some(python) = resolve(
            OsStr::new("python3"),
            OsStr::new("/usr/bin:/bin"),
            Path::new("/"),
        ) else {
            eprintln!("skipped: no python3 in /usr/bin or /bin");
            return;
        };
        let paths = needs(&python, 0).unwrap();
        assert!(paths.iter().any(|p| p.join("os.py").is_file()), "{paths:?}");
        assert!(!paths
            .iter()
            .any(|p| p.to_string_lossy().contains("-packages")));
        assert!(paths
            .iter()
            .any(|p| p.to_string_lossy().contains("libc.so")));
    }
}
