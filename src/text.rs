//! Plain text that every layer shares: escaping text from outside (a catalog, a bundle, a
//! registry) before it reaches a terminal, and the DNS-1123 label test that configuration
//! names and catalog package names both pass. Imports nothing of the crate.

/// `text` quoted, with control characters (terminal escapes, newlines) escaped, so content
/// from a catalog cannot drive the terminal when printed.
pub fn escape(text: &str) -> String {
    format!("{text:?}")
}

/// `text` as it is when it has no control characters, else with them escaped (`\u{1b}`):
/// for printing catalog text in tables.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.chars().flat_map(char::escape_default).collect())
}

/// Whether `name` is a DNS-1123 label (≤ 63 chars, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`).
pub fn is_dns1123_label(name: &str) -> bool {
    let b = name.as_bytes();
    let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.len() <= 63
        && ok(&b[0])
        && ok(&b[b.len() - 1])
        && b.iter().all(|c| ok(c) || *c == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("plain"), "plain");
        assert_eq!(printable("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert!(!escape("x\ny").contains('\n'));
    }
}
