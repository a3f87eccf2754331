//! GTP (Go Text Protocol version 2) in its Othello dialect, as Quarry, GoGui, GRhino and
//! the match scripts of the field speak it.
//!
//! Framing: one command per line, an optional numeric id first; the reply is `=id result`
//! or `?id message` (no space between the sign and the id), then an empty line. Control
//! characters are dropped, tabs become spaces, `#` starts a comment, and blank lines are
//! ignored, as GTP says. The standard error texts are used: `unknown command`,
//! `syntax error`, `illegal move`, `unacceptable size`, `cannot undo`, `cannot score`.
//!
//! Squares are in Othello notation (a1 top left, row digits top to bottom); moves are
//! answered in upper case (`F5`) and passes as `pass`. Passes are accepted in three styles:
//! explicit (`play w pass`, or `PA`), implicit (a move for the colour that is not to move,
//! accepted only when the side to move has no move: the pass is played first and undone
//! with the move), and `genmove` answering `pass`.
//!
//! Commands: `protocol_version`, `name`, `version`, `known_command`, `list_commands`,
//! `quit`, `boardsize`, `clear_board`, `komi`, `play`, `genmove`, `reg_genmove`, `undo`,
//! `showboard`, `final_score`, `time_settings`, `time_left`, `list_games`, `set_game`, the
//! six `gogui-rules_*` commands and `gogui-analyze_commands` (so GoGui can play Othello),
//! `gogui-interrupt` (the line `# interrupt` stops a running search, which answers with its
//! best so far), the extension `outflank-set [KEY VALUE]` (threads, hash, level, depth,
//! time, book, book-randomness), and two analysis commands that GoGui draws on the board
//! (its `gfx` type): `outflank-move_scores` (every legal move labelled with its score) and
//! `outflank-best_line` (the principal variation as numbered discs), both searched at the
//! level, or fixed depth, of an NBoard hint.
//! In a position of the opening book (unless `book` is off), `genmove` plays a book move
//! without a search.
//!
//! Commands are answered in order, each in full: `quit` and the end of the input come in
//! their turn (a piped script gets the answers a GUI gets); only `# interrupt` cuts a
//! search short.

use super::format::{score_text as value_text, search_text, title};
use super::{MAX_LINE, NAME, VERSION};
use crate::board::{Color, Move, Position, Square};
use crate::controller::{
    Answer, Choice, Controller, Finished, Flow, Frontend, GameClock, Input, Interrupt, Mover,
    Options, Refusal, Searched, TimeControl,
};
use crate::game::Game;
use crate::search::Info;
use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// Every command this front-end knows, as `list_commands` reports them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "final_score",
    "time_settings",
    "time_left",
    "list_games",
    "set_game",
    "gogui-rules_game_id",
    "gogui-rules_board",
    "gogui-rules_board_size",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
    "gogui-analyze_commands",
    "gogui-interrupt",
    "outflank-set",
    "outflank-move_scores",
    "outflank-best_line",
];

/// A parsed GTP command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `protocol_version`: answers `2`.
    ProtocolVersion,
    /// `name`.
    Name,
    /// `version`.
    Version,
    /// `known_command NAME`.
    KnownCommand(String),
    /// `list_commands`.
    ListCommands,
    /// `quit`.
    Quit,
    /// `boardsize N`: 8 only.
    BoardSize(u32),
    /// `clear_board`.
    ClearBoard,
    /// `komi X`: accepted and ignored.
    Komi,
    /// `play COLOR MOVE`.
    Play(Color, Move),
    /// `genmove COLOR`: search and play.
    Genmove(Color),
    /// `reg_genmove COLOR`: search without playing.
    RegGenmove(Color),
    /// `undo`.
    Undo,
    /// `showboard`.
    Showboard,
    /// `final_score`.
    FinalScore,
    /// `time_settings MAIN BYO_TIME BYO_STONES` (seconds, seconds, stones).
    TimeSettings {
        /// Main time, seconds.
        main: f64,
        /// Byo-yomi period, seconds.
        byo_time: f64,
        /// Stones per byo-yomi period.
        byo_stones: u32,
    },
    /// `time_left COLOR SECONDS STONES`.
    TimeLeft {
        /// Whose clock.
        color: Color,
        /// Seconds left.
        secs: f64,
        /// Stones left in the byo-yomi period (0: main time).
        stones: u32,
    },
    /// `list_games`.
    ListGames,
    /// `set_game NAME`.
    SetGame(String),
    /// `gogui-rules_game_id`.
    RulesGameId,
    /// `gogui-rules_board`.
    RulesBoard,
    /// `gogui-rules_board_size`.
    RulesBoardSize,
    /// `gogui-rules_legal_moves`.
    RulesLegalMoves,
    /// `gogui-rules_side_to_move`.
    RulesSideToMove,
    /// `gogui-rules_final_result`.
    RulesFinalResult,
    /// `gogui-analyze_commands`.
    AnalyzeCommands,
    /// `gogui-interrupt`: says that `# interrupt` stops a search.
    Interrupt,
    /// `outflank-set`: list the options; `outflank-set KEY VALUE`: set one.
    Set(Option<(String, String)>),
    /// `outflank-move_scores`: every legal move with its score, as GoGui graphics.
    MoveScores,
    /// `outflank-best_line`: the principal variation and its score, as GoGui graphics.
    BestLine,
}

/// Why a line is not a command that can run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not a command name this engine knows.
    Unknown,
    /// Missing or malformed arguments (the detail goes to the log).
    Syntax(String),
}

/// A line split into its id and its command.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The numeric id, as written.
    pub id: Option<String>,
    /// The command, or why it is not one.
    pub command: Result<Command, ParseError>,
}

/// Applies GTP's preprocessing: control characters other than tab are dropped, tabs become
/// spaces, and everything from `#` on is a comment.
pub fn preprocess(line: &str) -> String {
    let line = line.split('#').next().unwrap_or("");
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

fn parse_color(s: &str) -> Result<Color, ParseError> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(ParseError::Syntax(format!("not a colour: {s:?}"))),
    }
}

fn parse_number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, ParseError> {
    s.parse()
        .map_err(|_| ParseError::Syntax(format!("not {what}: {s:?}")))
}

fn parse_seconds(s: &str) -> Result<f64, ParseError> {
    let v: f64 = parse_number(s, "a number of seconds")?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(ParseError::Syntax(format!("not a time: {s:?}")))
    }
}

/// Parses one preprocessed, non-blank line. `None` for a blank line (GTP ignores it).
pub fn parse(line: &str) -> Option<Request> {
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        (Some(first.to_string()), words.next())
    } else {
        (None, Some(first))
    };
    let args: Vec<&str> = words.collect();
    let command = match name {
        None => Err(ParseError::Syntax("an id without a command".into())),
        Some(name) => parse_command(&name.to_ascii_lowercase(), &args),
    };
    Some(Request { id, command })
}

fn parse_command(name: &str, args: &[&str]) -> Result<Command, ParseError> {
    let need = |n: usize| -> Result<(), ParseError> {
        if args.len() < n {
            Err(ParseError::Syntax(format!(
                "{name} needs {n} argument{}",
                if n == 1 { "" } else { "s" }
            )))
        } else {
            Ok(())
        }
    };
    let command = match name {
        "protocol_version" => Command::ProtocolVersion,
        "name" => Command::Name,
        "version" => Command::Version,
        "known_command" => {
            need(1)?;
            Command::KnownCommand(args[0].to_string())
        }
        "list_commands" => Command::ListCommands,
        "quit" => Command::Quit,
        "boardsize" => {
            need(1)?;
            Command::BoardSize(parse_number(args[0], "a board size")?)
        }
        "clear_board" => Command::ClearBoard,
        "komi" => {
            need(1)?;
            let k: f64 = parse_number(args[0], "a komi")?;
            if !k.is_finite() {
                return Err(ParseError::Syntax("komi is not finite".into()));
            }
            Command::Komi
        }
        "play" => {
            need(2)?;
            let color = parse_color(args[0])?;
            let mv = args[1]
                .parse::<Move>()
                .map_err(|e| ParseError::Syntax(e.to_string()))?;
            Command::Play(color, mv)
        }
        "genmove" => {
            need(1)?;
            Command::Genmove(parse_color(args[0])?)
        }
        "reg_genmove" => {
            need(1)?;
            Command::RegGenmove(parse_color(args[0])?)
        }
        "undo" => Command::Undo,
        "showboard" => Command::Showboard,
        "final_score" => Command::FinalScore,
        "time_settings" => {
            need(3)?;
            Command::TimeSettings {
                main: parse_seconds(args[0])?,
                byo_time: parse_seconds(args[1])?,
                byo_stones: parse_number(args[2], "a number of stones")?,
            }
        }
        "time_left" => {
            need(3)?;
            Command::TimeLeft {
                color: parse_color(args[0])?,
                secs: parse_seconds(args[1])?,
                stones: parse_number(args[2], "a number of stones")?,
            }
        }
        "list_games" => Command::ListGames,
        "set_game" => {
            need(1)?;
            Command::SetGame(args.join(" "))
        }
        "gogui-rules_game_id" => Command::RulesGameId,
        "gogui-rules_board" => Command::RulesBoard,
        "gogui-rules_board_size" => Command::RulesBoardSize,
        "gogui-rules_legal_moves" => Command::RulesLegalMoves,
        "gogui-rules_side_to_move" => Command::RulesSideToMove,
        "gogui-rules_final_result" => Command::RulesFinalResult,
        "gogui-analyze_commands" => Command::AnalyzeCommands,
        "gogui-interrupt" => Command::Interrupt,
        "outflank-move_scores" => Command::MoveScores,
        "outflank-best_line" => Command::BestLine,
        "outflank-set" => match args {
            [] => Command::Set(None),
            [k, v] => Command::Set(Some((k.to_ascii_lowercase(), v.to_string()))),
            _ => {
                return Err(ParseError::Syntax(
                    "outflank-set takes a key and a value".into(),
                ));
            }
        },
        _ => return Err(ParseError::Unknown),
    };
    Ok(command)
}

/// What a running search is for.
#[derive(Clone, Copy, Debug)]
enum Job {
    /// `genmove` (`play`) or `reg_genmove`.
    Genmove { play: bool },
    /// `outflank-move_scores`.
    MoveScores,
    /// `outflank-best_line`.
    BestLine,
}

/// What a search is for: the command it answers (the search's tag).
#[derive(Clone, Debug)]
pub struct Pending {
    id: Option<String>,
    job: Job,
}

type Session<'w> = crate::controller::Session<'w, Pending>;

/// The GoGui graphics (`gfx`) of an analysis: `LABEL` pairs (every scored move) or a `VAR`
/// line (the best line, each move after its colour, passes as `PASS`), then a `TEXT` line
/// for the status bar. `to_move` is the colour of the analysed position's side to move.
fn analysis_gfx(job: Job, to_move: Color, info: &Info) -> String {
    let Some(best) = info.best() else {
        return "TEXT no result".to_string();
    };
    let summary = format!(
        "TEXT {}: {} {} ({})",
        title(to_move),
        gtp_move(best.mv),
        value_text(best.score, info.solve),
        search_text(info)
    );
    let first = match job {
        Job::BestLine => {
            let mut var = String::from("VAR");
            let mut color = to_move;
            for &mv in &best.pv {
                let c = if color == Color::Black { 'b' } else { 'w' };
                let _ = write!(var, " {c} {}", gtp_move(mv).to_ascii_uppercase());
                color = color.opposite();
            }
            var
        }
        _ => {
            let mut label = String::from("LABEL");
            for l in &info.lines {
                let _ = write!(
                    label,
                    " {} {}",
                    gtp_move(l.mv),
                    value_text(l.score, info.solve)
                );
            }
            label
        }
    };
    format!("{first}\n{summary}")
}

/// The GTP front-end's state: the controller.
pub struct Gtp {
    ctl: Controller,
}

/// A move as GTP answers it: `F5`, or `pass`.
pub fn gtp_move(mv: Move) -> String {
    match mv {
        Move::Play(s) => s.name_upper(),
        Move::Pass => "pass".to_string(),
    }
}

/// The score of a finished game as GTP writes it: `B+12`, `W+4` or `0`.
pub fn final_score_text(black_score: i32) -> String {
    match black_score {
        0 => "0".to_string(),
        s if s > 0 => format!("B+{s}"),
        s => format!("W+{}", -s),
    }
}

/// A readable board for `showboard` (no blank lines: they would end the reply).
pub fn board_text(pos: &Position) -> String {
    let mut s = pos.to_string();
    let black = pos.black().count_ones();
    let white = pos.white().count_ones();
    let _ = write!(s, "\nX black {black}, O white {white}; ");
    if pos.board.is_game_over() {
        s.push_str("game over");
    } else {
        let _ = write!(s, "{} to move", pos.to_move);
    }
    s
}

/// The board for `gogui-rules_board`: 8 rows of `X`, `O` and `.`, row 8 first, since GoGui
/// draws its first line at the top and numbers rows from the bottom; so the squares GoGui
/// names are the squares Outflank names.
pub fn gogui_board(pos: &Position) -> String {
    let mut rows = Vec::with_capacity(8);
    for row in (0..8u8).rev() {
        let cells: Vec<&str> = (0..8u8)
            .map(|col| {
                let sq = Square::from_coords(col, row).expect("on the board");
                match pos.at(sq) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                }
            })
            .collect();
        rows.push(cells.join(" "));
    }
    rows.join("\n")
}

impl Gtp {
    /// A front-end with these options and the start position.
    pub fn new(options: Options) -> Gtp {
        Gtp {
            ctl: Controller::new(options),
        }
    }

    fn reply(
        &self,
        session: &mut Session,
        id: &Option<String>,
        ok: bool,
        text: &str,
    ) -> io::Result<()> {
        let sign = if ok { '=' } else { '?' };
        let id = id.as_deref().unwrap_or("");
        // `= ` before a text that starts on the next line too (`showboard`), as GNU Go
        // answers: GoGui cuts a reply at its first space.
        let sep = if text.is_empty() { "" } else { " " };
        session.raw(&format!("{sign}{id}{sep}{text}\n\n"))
    }

    /// Starts `genmove`/`reg_genmove`, or answers at once when no search is needed.
    fn genmove(
        &mut self,
        id: Option<String>,
        color: Color,
        play: bool,
        session: &mut Session,
    ) -> io::Result<()> {
        let job = Job::Genmove { play };
        let tag = Pending {
            id: id.clone(),
            job,
        };
        match self.ctl.choose(color, session, tag) {
            Err(Refusal::GameOver) => self.reply(session, &id, true, "pass"),
            Err(Refusal::NotToMove(c)) => {
                let msg = format!("illegal move: {c} is to move");
                self.reply(session, &id, false, &msg)
            }
            Ok(Answer::Now(choice)) => self.answer(id, play, &choice, session),
            Ok(Answer::Searching) => Ok(()),
        }
    }

    /// Starts `outflank-move_scores` or `outflank-best_line`, or answers at once at the end
    /// of the game or before a forced pass.
    fn analyze(&mut self, id: Option<String>, job: Job, session: &mut Session) -> io::Result<()> {
        let pos = self.ctl.position();
        if pos.board.is_game_over() {
            return self.reply(session, &id, true, "TEXT game over");
        }
        if pos.board.must_pass() {
            let text = format!("TEXT {} must pass", title(pos.to_move));
            return self.reply(session, &id, true, &text);
        }
        let multipv = match job {
            Job::MoveScores => pos.board.moves().count_ones() as usize,
            _ => 1,
        };
        self.ctl
            .analyze(pos.board, multipv, session, Pending { id, job });
        Ok(())
    }

    /// Answers `genmove` with `choice`, played first unless it is `reg_genmove`.
    fn answer(
        &mut self,
        id: Option<String>,
        play: bool,
        choice: &Choice,
        session: &mut Session,
    ) -> io::Result<()> {
        if play && let Err(e) = self.ctl.commit(choice) {
            log::error!("the engine chose an illegal move {}: {e}", choice.mv);
            return self.reply(session, &id, false, "illegal move");
        }
        self.reply(session, &id, true, &gtp_move(choice.mv))
    }

    fn handle(&mut self, line: &str, session: &mut Session) -> io::Result<Flow> {
        let Some(Request { id, command }) = parse(&preprocess(line)) else {
            return Ok(Flow::Continue);
        };
        let command = match command {
            Ok(c) => c,
            Err(ParseError::Unknown) => {
                self.reply(session, &id, false, "unknown command")?;
                return Ok(Flow::Continue);
            }
            Err(ParseError::Syntax(why)) => {
                log::debug!("syntax error in {line:?}: {why}");
                self.reply(session, &id, false, "syntax error")?;
                return Ok(Flow::Continue);
            }
        };
        let ok =
            |s: &mut Self, session: &mut Session, text: &str| s.reply(session, &id, true, text);
        let fail =
            |s: &mut Self, session: &mut Session, text: &str| s.reply(session, &id, false, text);
        let pos = self.ctl.position();
        match command {
            Command::ProtocolVersion => ok(self, session, "2")?,
            Command::Name => ok(self, session, NAME)?,
            Command::Version => ok(self, session, VERSION)?,
            Command::KnownCommand(name) => {
                let known = COMMANDS.contains(&name.to_ascii_lowercase().as_str());
                ok(self, session, if known { "true" } else { "false" })?
            }
            Command::ListCommands => ok(self, session, &COMMANDS.join("\n"))?,
            Command::Quit => {
                ok(self, session, "")?;
                return Ok(Flow::Quit);
            }
            Command::BoardSize(8) => {
                self.ctl.set_game(Game::default());
                ok(self, session, "")?
            }
            Command::BoardSize(_) => fail(self, session, "unacceptable size")?,
            Command::ClearBoard => {
                self.ctl.set_game(Game::default());
                ok(self, session, "")?
            }
            Command::Komi => ok(self, session, "")?,
            // Referees (gogui-twogtp) relay the `pass` that `genmove` answers at the end of
            // a game: accepted, and nothing changes.
            Command::Play(_, Move::Pass) if pos.board.is_game_over() => ok(self, session, "")?,
            Command::Play(color, mv) => {
                if self.ctl.play_as(color, mv, Mover::Other).is_ok() {
                    ok(self, session, "")?
                } else {
                    fail(self, session, "illegal move")?
                }
            }
            Command::Genmove(color) => self.genmove(id.clone(), color, true, session)?,
            Command::RegGenmove(color) => self.genmove(id.clone(), color, false, session)?,
            Command::Undo => {
                if self.ctl.undo() {
                    ok(self, session, "")?
                } else {
                    fail(self, session, "cannot undo")?
                }
            }
            Command::Showboard => ok(self, session, &format!("\n{}", board_text(&pos)))?,
            Command::FinalScore => match self.ctl.game().result() {
                Some(r) => ok(self, session, &final_score_text(r))?,
                None => fail(self, session, "cannot score")?,
            },
            Command::TimeSettings {
                main,
                byo_time,
                byo_stones,
            } => {
                let control = TimeControl {
                    main,
                    byo_yomi: (byo_time > 0.0 || byo_stones > 0).then_some((byo_time, byo_stones)),
                    ..TimeControl::default()
                };
                *self.ctl.clock_mut() = GameClock::new(Some(control));
                ok(self, session, "")?
            }
            Command::TimeLeft {
                color,
                secs,
                stones,
            } => {
                // A clock without settings: the time left is taken as the whole game's.
                self.ctl.clock_mut().set_left(color, secs, stones);
                ok(self, session, "")?
            }
            Command::ListGames => ok(self, session, "Othello")?,
            Command::SetGame(name) => {
                if name.eq_ignore_ascii_case("othello") || name.eq_ignore_ascii_case("reversi") {
                    ok(self, session, "")?
                } else {
                    fail(self, session, "unsupported game")?
                }
            }
            Command::RulesGameId => ok(self, session, "Othello")?,
            // The first row on the `=` line, as GoGui's rules example answers: GoGui cuts a
            // response at its first space, so a leading line break would cost it a square.
            Command::RulesBoard => ok(self, session, &gogui_board(&pos))?,
            Command::RulesBoardSize => ok(self, session, "8")?,
            Command::RulesLegalMoves => {
                let moves: Vec<String> = pos.legal_moves().into_iter().map(gtp_move).collect();
                ok(self, session, &moves.join(" "))?
            }
            Command::RulesSideToMove => ok(self, session, pos.to_move.name())?,
            Command::RulesFinalResult => match self.ctl.game().result() {
                Some(r) => ok(self, session, &final_score_text(r))?,
                None => ok(self, session, "unknown")?,
            },
            Command::AnalyzeCommands => ok(
                self,
                session,
                "string/Final Result/gogui-rules_final_result\n\
                 plist/Legal Moves/gogui-rules_legal_moves\n\
                 string/Side to Move/gogui-rules_side_to_move\n\
                 string/Show Board/showboard\n\
                 gfx/Move Scores/outflank-move_scores\n\
                 gfx/Best Line/outflank-best_line\n\
                 param/Outflank Options/outflank-set",
            )?,
            Command::Interrupt => ok(self, session, "")?,
            Command::MoveScores => self.analyze(id.clone(), Job::MoveScores, session)?,
            Command::BestLine => self.analyze(id.clone(), Job::BestLine, session)?,
            Command::Set(None) => {
                let text = self.ctl.options().describe();
                ok(self, session, &text)?
            }
            Command::Set(Some((key, value))) => match self.ctl.set_option(&key, &value, session) {
                Ok(()) => ok(self, session, "")?,
                Err(why) => fail(self, session, &why)?,
            },
        }
        Ok(Flow::Continue)
    }
}

impl Frontend for Gtp {
    type Tag = Pending;

    fn interrupts(&self, input: &Input) -> Interrupt {
        match input {
            // GoGui's way to stop a command. Nothing else interrupts, not `quit` nor the end
            // of the input: GTP is answered in order (a controller waits for each answer; a
            // script that sends `genmove` then `quit` wants the full move first).
            Input::Line(l) if l.trim() == "# interrupt" => Interrupt::Search,
            _ => Interrupt::No,
        }
    }

    fn input(&mut self, input: Input, session: &mut Session) -> io::Result<Flow> {
        match input {
            Input::Eof => Ok(Flow::Quit),
            Input::TooLong { len } => {
                log::debug!("a line of {len} bytes");
                let msg = format!("line too long ({len} bytes; at most {MAX_LINE})");
                self.reply(session, &None, false, &msg)?;
                Ok(Flow::Continue)
            }
            Input::Line(line) => self.handle(&line, session),
        }
    }

    fn progress(&mut self, _: &Pending, info: &Info, _session: &mut Session) -> io::Result<()> {
        if let Some(best) = info.best() {
            log::info!(
                "depth {} {}% score {} {} nodes {} {:.2}s",
                info.depth,
                info.selectivity.percent(),
                best.score,
                best.mv,
                info.nodes,
                info.elapsed.as_secs_f64()
            );
        }
        Ok(())
    }

    fn done(&mut self, done: Finished<Pending>, session: &mut Session) -> io::Result<Flow> {
        match self.ctl.searched(done) {
            (p, Searched::Move(choice)) => {
                let play = matches!(p.job, Job::Genmove { play: true });
                self.answer(p.id, play, &choice, session)?;
            }
            (p, Searched::Analysis(info)) => {
                let text = analysis_gfx(p.job, self.ctl.position().to_move, &info);
                self.reply(session, &p.id, true, &text)?;
            }
            (_, Searched::Stale) => {}
        }
        Ok(Flow::Continue)
    }
}

/// Runs a GTP session on `input` and `output` until `quit` or EOF.
pub fn run<R: Read + Send + 'static, W: Write>(
    options: Options,
    input: R,
    output: W,
) -> io::Result<()> {
    let setup = options.engine_setup();
    let mut gtp = Gtp::new(options);
    super::run(&mut gtp, input, output, setup)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Result<Command, ParseError> {
        parse(&preprocess(line)).unwrap().command
    }

    #[test]
    fn parsing() {
        assert_eq!(parse(&preprocess("   # only a comment")), None);
        assert_eq!(parse(""), None);
        let r = parse("12 play B f5").unwrap();
        assert_eq!(r.id.as_deref(), Some("12"));
        assert_eq!(
            r.command,
            Ok(Command::Play(
                Color::Black,
                Move::Play("f5".parse().unwrap())
            ))
        );
        assert_eq!(
            cmd("play w PA"),
            Ok(Command::Play(Color::White, Move::Pass))
        );
        assert_eq!(
            cmd("play white pass"),
            Ok(Command::Play(Color::White, Move::Pass))
        );
        assert!(matches!(cmd("play x f5"), Err(ParseError::Syntax(_))));
        assert!(matches!(cmd("play b z9"), Err(ParseError::Syntax(_))));
        assert!(matches!(cmd("play b"), Err(ParseError::Syntax(_))));
        assert_eq!(cmd("frobnicate"), Err(ParseError::Unknown));
        assert_eq!(cmd("GENMOVE\tW"), Ok(Command::Genmove(Color::White)));
        assert_eq!(cmd("boardsize 8"), Ok(Command::BoardSize(8)));
        assert!(matches!(cmd("boardsize eight"), Err(ParseError::Syntax(_))));
        assert!(matches!(
            cmd("time_settings 1 -1 0"),
            Err(ParseError::Syntax(_))
        ));
        assert!(matches!(cmd("komi nan"), Err(ParseError::Syntax(_))));
        assert_eq!(preprocess("a\u{1}b\tc # d"), "ab c ");
    }

    #[test]
    fn texts() {
        assert_eq!(final_score_text(0), "0");
        assert_eq!(final_score_text(12), "B+12");
        assert_eq!(final_score_text(-4), "W+4");
        assert_eq!(gtp_move(Move::Pass), "pass");
        assert_eq!(gtp_move(Move::Play("f5".parse().unwrap())), "F5");
        let board = gogui_board(&Position::start());
        let rows: Vec<&str> = board.lines().collect();
        assert_eq!(rows.len(), 8);
        // Row 5 (second from the bottom line... fourth line) holds d5 black and e5 white.
        assert_eq!(rows[3], ". . . X O . . .");
        assert_eq!(rows[4], ". . . O X . . .");
        assert!(!board_text(&Position::start()).contains("\n\n"));
    }
}
