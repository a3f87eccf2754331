//! How a step of the pipeline shows its progress: progress bars and lines of news, which the
//! command line draws on stderr ([`Report`]), or nothing at all ([`Quiet`]).

use indicatif::ProgressBar;

/// What the steps of the pipeline show while they run. The steps decide what to say and
/// when; the caller decides how it looks.
pub trait Report {
    /// A progress bar over `len` items (0: the step sets the length later).
    fn bar(&self, len: u64) -> ProgressBar;
    /// A line of news: above `bar` while it is drawn, else on its own.
    fn say(&self, bar: Option<&ProgressBar>, line: &str);
}

/// A report that draws no bar and says no line (what a step writes itself for a hidden bar,
/// a count now and then, apart): for tests, and for callers that want only the result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Report for Quiet {
    fn bar(&self, len: u64) -> ProgressBar {
        let pb = ProgressBar::hidden();
        pb.set_length(len);
        pb
    }

    fn say(&self, _bar: Option<&ProgressBar>, _line: &str) {}
}
