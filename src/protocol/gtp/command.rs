//! GTP's commands: a line preprocessed as GTP says (control characters dropped, tabs as
//! spaces, comments cut), then parsed into a [`Request`]: an optional id and a [`Command`]
//! or why it is not one. No I/O.

use crate::board::{Color, Move};

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
}
