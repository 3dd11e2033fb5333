//! Plain text that every layer shares: escaping text from outside (a catalog, a bundle, a
//! registry) before it reaches a terminal, and the DNS-1123 label test that configuration
//! names and catalog package names both pass. Imports nothing of the crate.

/// `text` quoted, with control characters (terminal escapes, newlines) escaped, so content
/// from a catalog cannot drive the terminal when printed.
pub fn escape(text: &str) -> String {
    format!("{text:?}")
}

/// Whether `c` must not reach a terminal raw: C0 and C1 control characters and DEL (terminal
/// escapes, carriage returns, newlines), and the bidirectional formatting characters that
/// reorder what a terminal shows (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character ([`is_unsafe`]) but those `keep` accepts written as
/// `\u{…}` (`\n`, `\t`, `\r` for those three); borrowed when there is none.
fn escaped(text: &str, keep: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe(c) || keep(c) {
            out.push(c);
        } else {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` as it is when it has no unsafe character ([`is_unsafe`]), else with them escaped
/// (`\u{1b}`, `\n`): for one line of catalog text, as in a table cell. The one escaping
/// function of every printer, with [`printable_lines`].
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, |_| false)
}

/// [`printable`] that keeps newlines and tabs: for a message of several lines (a diagnostic,
/// a report) that holds text from outside.
pub fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, |c| c == '\n' || c == '\t')
}

/// A writer that passes text through [`printable_lines`] on its way to `inner`: what a command
/// prints as text on stdout goes through it, so no byte from a catalog, a bundle or a server
/// can drive the terminal. Bytes that are not UTF-8 are written as `\x..`; a character split
/// across two writes is held until its rest arrives.
pub struct EscapingWriter<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> EscapingWriter<W> {
    /// Escape what is written to `inner`.
    pub fn new(inner: W) -> Self {
        EscapingWriter {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: std::io::Write> std::io::Write for EscapingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let mut out = String::new();
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(&printable_lines(s));
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // Checked by from_utf8 above.
                    out.push_str(&printable_lines(
                        std::str::from_utf8(good).unwrap_or_default(),
                    ));
                    match e.error_len() {
                        Some(n) => {
                            for b in &bad[..n] {
                                out.push_str(&format!("\\x{b:02x}"));
                            }
                            rest = &bad[n..];
                        }
                        // An incomplete character at the end: wait for the rest.
                        None => {
                            rest = bad;
                            break;
                        }
                    }
                }
            }
        }
        let keep = rest.to_vec();
        self.inner.write_all(out.as_bytes())?;
        self.pending = keep;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            let bytes = std::mem::take(&mut self.pending);
            for b in bytes {
                self.inner.write_all(format!("\\x{b:02x}").as_bytes())?;
            }
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for EscapingWriter<W> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("plain"), "plain");
        assert_eq!(printable("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert!(!escape("x\ny").contains('\n'));
        // Non-ASCII text that is not a control stays as it is.
        assert_eq!(printable("naïve é\u{1b}"), "naïve é\\u{1b}");
    }

    #[test]
    fn bidi_and_c1_controls_are_escaped() {
        assert_eq!(printable("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(printable("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(printable("a\u{2066}b\u{2069}"), "a\\u{2066}b\\u{2069}");
        assert_eq!(printable("x\u{7f}"), "x\\u{7f}");
    }

    #[test]
    fn lines_keep_newlines_and_tabs() {
        assert_eq!(printable_lines("a\n\tb"), "a\n\tb");
        assert_eq!(
            printable_lines("a\rb\u{1b}]0;t\u{7}"),
            "a\\rb\\u{1b}]0;t\\u{7}"
        );
        assert_eq!(printable("a\nb"), "a\\nb");
    }

    #[test]
    fn the_escaping_writer_holds_split_characters_and_escapes_bad_bytes() {
        use std::io::Write as _;
        let mut out = Vec::new();
        {
            let mut w = EscapingWriter::new(&mut out);
            let e = "é".as_bytes();
            w.write_all(&e[..1]).unwrap();
            w.write_all(&e[1..]).unwrap();
            w.write_all(b"\x1b[2J\n\xff ok\n").unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "é\\u{1b}[2J\n\\xff ok\n");
    }

    proptest::proptest! {
        /// Whatever is written, nothing unsafe but newlines and tabs comes out, however the
        /// bytes are split into writes.
        #[test]
        fn nothing_unsafe_gets_through(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), cut in 0usize..200) {
            use std::io::Write as _;
            let mut out = Vec::new();
            {
                let mut w = EscapingWriter::new(&mut out);
                let cut = cut.min(bytes.len());
                w.write_all(&bytes[..cut]).unwrap();
                w.write_all(&bytes[cut..]).unwrap();
            }
            let text = String::from_utf8(out).unwrap();
            proptest::prop_assert!(!text.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'));
        }
    }
}
