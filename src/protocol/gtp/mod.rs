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

mod command;
mod text;

pub use command::{COMMANDS, Command, ParseError, Request, parse, preprocess};
pub use text::{analysis_gfx, board_text, final_score_text, gogui_board, gtp_move};

use super::format::title;
use super::{MAX_LINE, NAME, VERSION};
use crate::board::{Color, Move};
use crate::controller::{
    Answer, Choice, Controller, Finished, Flow, Frontend, GameClock, Input, Interrupt, Mover,
    Options, Refusal, Searched, TimeControl,
};
use crate::game::Game;
use crate::search::Info;
use crate::time_control::seconds;
use std::io;

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

/// The GTP front-end's state: the controller.
pub struct Gtp {
    ctl: Controller,
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
                    main: seconds(main),
                    byo_yomi: (byo_time > 0.0 || byo_stones > 0)
                        .then_some((seconds(byo_time), byo_stones)),
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
                let text = analysis_gfx(
                    matches!(p.job, Job::BestLine),
                    self.ctl.position().to_move,
                    &info,
                );
                self.reply(session, &p.id, true, &text)?;
            }
            // GTP starts no learn.
            (_, Searched::Stale | Searched::Learned(_)) => {}
        }
        Ok(Flow::Continue)
    }
}
