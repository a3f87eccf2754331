//! The front-ends: the protocols GUIs, tournament managers and referees use to drive the
//! engine over stdin/stdout, [`gtp`], [`nboard`] and [`ugi`]; the [`ggs`] client, which
//! plays on a game server over TCP; and the [`terminal`] game a person plays by typing moves.
//! Each parses a line into a command enum first and then translates it into calls on the
//! one [`Controller`](crate::controller::Controller); they contain no game logic and no
//! search code.
//!
//! What they share lives here: the one line reader, a thread that turns stdin (and the
//! GGS client's connection) into [`Input`](crate::controller::Input) lines, at most
//! [`MAX_LINE`] bytes each ([`lines`]), so that a search can be interrupted while it runs;
//! the engine's name and version.

pub mod format;
pub mod ggs;
pub mod gtp;
pub mod lines;
pub mod nboard;
pub mod terminal;
pub mod ugi;

use crate::controller::EngineSetup;
use crate::controller::{Frontend, Options};
pub use lines::spawn_reader;
use std::io::{self, Read, Write};

/// The longest input line accepted, in bytes (1 MiB, line ending excluded). Longer lines are
/// reported as [`Input::TooLong`](crate::controller::Input::TooLong).
pub const MAX_LINE: usize = 1 << 20;

/// The engine's name, as the protocols report it.
pub const NAME: &str = "Outflank";

/// The engine's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Runs the front-end that `make` builds from `options` (GTP's, NBoard's, UGI's, the
/// terminal game's) on a line input (stdin) and an output (stdout), with the engine the
/// options describe, until it quits or the input ends.
pub fn serve<F, R, W>(
    options: Options,
    make: impl FnOnce(Options) -> F,
    input: R,
    output: W,
) -> io::Result<()>
where
    F: Frontend,
    R: Read + Send + 'static,
    W: Write,
{
    let setup = options.engine_setup();
    let mut frontend = make(options);
    run(&mut frontend, input, output, setup)
}

/// Runs a front-end on a line input (stdin) and an output (stdout): the input is read on
/// its own thread, the driver loop is [`crate::controller::run`].
pub fn run<F, R, W>(frontend: &mut F, input: R, output: W, setup: EngineSetup) -> io::Result<()>
where
    F: Frontend,
    R: Read + Send + 'static,
    W: Write,
{
    let (tx, rx) = crate::controller::events();
    spawn_reader(input, tx.clone());
    crate::controller::run(frontend, (tx, rx), output, setup)
}
