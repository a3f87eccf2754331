//! When the client tries to log in again: the failed attempts in a row, the wait before the
//! next one, and when to give up. Pure bookkeeping, no I/O: the client says what happened.
//!
//! An attempt is one connection, from the TCP connect to a successful login. It fails when
//! the connect fails, when the connection closes before the login, when the login does not
//! happen within the login deadline, or when what arrives is not a GGS server's text.
//! Every failure counts; only a successful login resets the count and the wait. The wait
//! starts at [`Retry::first`] (or the longest wait, if that is shorter) and doubles after
//! each failure up to the longest wait.

use std::fmt;
use std::time::Duration;

/// Why one attempt failed.
#[derive(Debug)]
pub enum Failure {
    /// The TCP connection could not be opened (or the host has no address).
    Connect(std::io::Error),
    /// The connection closed before the login succeeded.
    Closed,
    /// No successful login within the deadline: the seconds it had.
    Timeout(Duration),
    /// What the server sent is not GGS text (binary junk, a huge line, too much text with
    /// no login prompt): what it was, in a few words.
    NotGgs(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Connect(e) => write!(f, "cannot connect: {e}"),
            Failure::Closed => f.write_str("the connection closed before the login"),
            Failure::Timeout(d) => write!(f, "no login within {} s", secs_text(*d)),
            Failure::NotGgs(what) => write!(f, "not a GGS server: {what}"),
        }
    }
}

/// `1`, `0.5`: seconds without trailing zeros.
pub fn secs_text(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What to do after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Try again after this wait.
    Wait(Duration),
    /// Stop: this many attempts failed in a row, the limit.
    GiveUp(u32),
}

/// The failed attempts in a row and the wait before the next attempt.
#[derive(Clone, Debug)]
pub struct Retry {
    limit: Option<u32>,
    longest: Duration,
    failures: u32,
    wait: Duration,
}

impl Retry {
    /// The first wait after a failure.
    pub fn first() -> Duration {
        Duration::from_secs(1)
    }

    /// Gives up after `limit` failed attempts in a row (`None`: never); the wait between
    /// attempts grows up to `longest`.
    pub fn new(limit: Option<u32>, longest: Duration) -> Retry {
        Retry {
            limit,
            longest,
            failures: 0,
            wait: Retry::first().min(longest),
        }
    }

    /// An attempt failed: the wait before the next one, or give up.
    pub fn failed(&mut self) -> Next {
        self.failures += 1;
        if self.limit.is_some_and(|n| self.failures >= n) {
            return Next::GiveUp(self.failures);
        }
        let wait = self.wait;
        self.wait = (self.wait * 2).min(self.longest);
        Next::Wait(wait)
    }

    /// A login succeeded: the count and the wait start over.
    pub fn logged_in(&mut self) {
        self.failures = 0;
        self.wait = Retry::first().min(self.longest);
    }

    /// The wait before reconnecting after a logged-in connection was lost (it does not
    /// count as a failure).
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// The failed attempts in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn the_limit_is_the_number_of_failed_attempts() {
        let mut r = Retry::new(Some(3), 60 * S);
        assert_eq!(r.failed(), Next::Wait(S));
        assert_eq!(r.failed(), Next::Wait(2 * S));
        assert_eq!(r.failed(), Next::GiveUp(3));
        let mut one = Retry::new(Some(1), 60 * S);
        assert_eq!(one.failed(), Next::GiveUp(1));
    }

    #[test]
    fn the_wait_doubles_up_to_the_longest_and_a_login_resets_it() {
        let mut r = Retry::new(None, 5 * S);
        let waits: Vec<Next> = (0..5).map(|_| r.failed()).collect();
        assert_eq!(
            waits,
            [1, 2, 4, 5, 5].map(|s| Next::Wait(s * S)).to_vec(),
            "never gives up without a limit"
        );
        assert_eq!(r.failures(), 5);
        r.logged_in();
        assert_eq!(r.failures(), 0);
        assert_eq!(r.wait(), S);
        // Failures count across attempts until a login, not per connection.
        let mut r = Retry::new(Some(2), S);
        assert_eq!(r.failed(), Next::Wait(S));
        r.logged_in();
        assert_eq!(r.failed(), Next::Wait(S));
        assert_eq!(r.failed(), Next::GiveUp(2));
    }

    #[test]
    fn a_short_longest_wait_caps_the_first() {
        let mut r = Retry::new(None, Duration::from_millis(200));
        assert_eq!(r.failed(), Next::Wait(Duration::from_millis(200)));
        assert_eq!(secs_text(Duration::from_millis(500)), "0.5");
        assert_eq!(secs_text(Duration::from_secs(30)), "30");
    }

    #[test]
    fn failures_read_as_one_line() {
        for f in [
            Failure::Closed,
            Failure::Timeout(Duration::from_secs(30)),
            Failure::NotGgs("a line of binary junk".into()),
            Failure::Connect(std::io::ErrorKind::ConnectionRefused.into()),
        ] {
            let t = f.to_string();
            assert!(!t.is_empty() && !t.contains('\n'), "{t:?}");
        }
    }
}
