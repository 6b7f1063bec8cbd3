//! `parcall reference …`: the reference served over the protocol, or one of its pure
//! functions asked directly, so an implementer can test a part of their code alone.

use super::{exit, KeyArgs, ReferenceArgs, ReferenceCommand};
use crate::json::{self, Value};
use crate::reference::{canonical_args_in, key_of};
use std::io::{Read, Write};

/// The most `parcall reference key -` reads from stdin: far past any args a case holds (a
/// reply line is at most 2 MiB), small enough that a stray pipe cannot fill memory.
const MAX_ARGS_BYTES: u64 = 16 << 20;

pub(super) fn run(args: ReferenceArgs) -> anyhow::Result<i32> {
    match args.command {
        None => {
            crate::subject::server::serve_from_environment(args.number_model)?;
            Ok(exit::SUCCESS)
        }
        Some(ReferenceCommand::Key(key)) => print_key(&key),
    }
}

/// Prints the canonical key of `key.args` (RULES B1, B2, E), or says why the text is no
/// args object and exits with [`exit::USAGE`].
fn print_key(key: &KeyArgs) -> anyhow::Result<i32> {
    let text = match args_text(&key.args) {
        Ok(text) => text,
        Err(why) => {
            say!("error: cannot read the args from stdin: {why}");
            return Ok(exit::USAGE);
        }
    };
    let args = match json::parse(&text) {
        Ok(Value::Object(args)) => args,
        Ok(other) => {
            say!(
                "error: the args must be a JSON object, like {{\"q\": \"x\"}}; this is a {}",
                other.type_name()
            );
            return Ok(exit::USAGE);
        }
        Err(error) => {
            say!("error: the args are not JSON in Python's dialect: {error}");
            return Ok(exit::USAGE);
        }
    };
    let canonical = canonical_args_in(key.number_model, &args);
    let line = match &key.tool {
        Some(name) => key_of(name, &canonical),
        None => canonical,
    };
    super::written(writeln!(std::io::stdout().lock(), "{line}"))?;
    Ok(exit::SUCCESS)
}

/// The args' text: the argument itself, or stdin's whole text for `-`.
fn args_text(arg: &str) -> std::io::Result<String> {
    if arg != "-" {
        return Ok(arg.to_owned());
    }
    let mut text = String::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_ARGS_BYTES + 1)
        .read_to_string(&mut text)?;
    if read as u64 > MAX_ARGS_BYTES {
        return Err(std::io::Error::other(format!(
            "more than {} MiB",
            MAX_ARGS_BYTES >> 20
        )));
    }
    Ok(text)
}
