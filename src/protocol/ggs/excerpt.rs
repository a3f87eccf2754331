//! Server text as the log shows it: a line of any length (GGS lines may be up to a MiB) is
//! cut to its first [`LOG_CHARS`] characters, with its length, so that `-v` stays readable
//! and bounded whatever the server sends.

use crate::excerpt::head;
use std::borrow::Cow;

/// The most characters of one server line the log shows.
pub const LOG_CHARS: usize = 200;

/// `text` whole when short, else its first [`LOG_CHARS`] characters then `... (N bytes)`.
pub fn excerpt(text: &str) -> Cow<'_, str> {
    match head(text, LOG_CHARS) {
        None => Cow::Borrowed(text),
        Some(h) => Cow::Owned(format!("{h}... ({} bytes)", text.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_with_their_length() {
        assert_eq!(excerpt("short"), "short");
        let exact = "x".repeat(LOG_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let long = "é".repeat(1 << 19);
        let cut = excerpt(&long);
        assert_eq!(
            cut,
            format!("{}... ({} bytes)", "é".repeat(LOG_CHARS), 1 << 20)
        );
    }
}
