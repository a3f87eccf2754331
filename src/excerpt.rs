//! Excerpts of text that came from outside (a line, a file, a server) for messages and logs:
//! bounded whatever its length, cut on a character boundary. One helper for every front-end
//! and reader.

use std::borrow::Cow;

/// The first `chars` characters of `text` when it is longer, else `None`.
pub fn head(text: &str, chars: usize) -> Option<&str> {
    text.char_indices().nth(chars).map(|(cut, _)| &text[..cut])
}

/// `text` whole when it has at most `chars` characters, else its first `chars` then `...`.
pub fn excerpt(text: &str, chars: usize) -> Cow<'_, str> {
    match head(text, chars) {
        None => Cow::Borrowed(text),
        Some(h) => Cow::Owned(format!("{h}...")),
    }
}

/// [`excerpt`] quoted, control characters escaped, so that a reply about the text stays one
/// clean line: `"frobni..."`.
pub fn quoted(text: &str, chars: usize) -> String {
    format!("{:?}", excerpt(text, chars))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_on_characters() {
        assert_eq!(excerpt("short", 5), "short");
        assert_eq!(excerpt("longer", 4), "long...");
        assert_eq!(excerpt("ééé", 2), "éé...");
        assert_eq!(head("ééé", 3), None);
        assert_eq!(head("", 0), None);
        assert_eq!(quoted("a\tbcd", 3), "\"a\\tb...\"");
    }
}
