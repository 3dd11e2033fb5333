//! Source text and byte spans, so errors can point at a line and column.

use std::path::PathBuf;

/// A file's path and its whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Path as given.
    pub path: PathBuf,
    /// The file's text.
    pub text: String,
}

/// A byte range in a [`SourceFile`] with its 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// 1-based column, in characters (0 when unknown).
    pub column: usize,
}

impl Span {
    /// A span from a byte range of `text`.
    pub fn from_bytes(text: &str, offset: usize, len: usize) -> Span {
        let offset = floor_char_boundary(text, offset.min(text.len()));
        let end = floor_char_boundary(text, (offset + len).min(text.len()));
        let before = &text[..offset];
        let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let column = text[line_start..offset].chars().count() + 1;
        Span {
            offset,
            len: end - offset,
            line,
            column,
        }
    }

    /// A span from a serde-saphyr location (byte offset when known, else line and column).
    pub fn from_location(text: &str, location: &serde_saphyr::Location) -> Option<Span> {
        if location.line() == 0 {
            return None;
        }
        let span = location.span();
        if let (Some(offset), Some(len)) = (span.byte_offset(), span.byte_len()) {
            return Some(Span::from_bytes(text, offset as usize, len as usize));
        }
        // Fall back to line/column (characters).
        let line = location.line() as usize;
        let column = location.column() as usize;
        let line_start: usize = text
            .split_inclusive('\n')
            .take(line - 1)
            .map(str::len)
            .sum();
        let offset = line_start
            + text[line_start.min(text.len())..]
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf8)
                .sum::<usize>();
        Some(Span::from_bytes(text, offset, 0))
    }

    /// The sub-span at byte range `inner` of the scalar this span covers (skipping an opening
    /// quote when the scalar is quoted).
    pub fn inner(&self, text: &str, inner: std::ops::Range<usize>) -> Span {
        let quoted = matches!(text.as_bytes().get(self.offset), Some(b'"') | Some(b'\''));
        let start = self.offset + usize::from(quoted) + inner.start;
        Span::from_bytes(text, start, inner.end.saturating_sub(inner.start).max(1))
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_bytes_counts_lines_and_characters() {
        let text = "a: 1\nbé: xyz\n";
        let s = Span::from_bytes(text, 9, 3);
        assert_eq!((s.line, s.column, s.len), (2, 4, 3));
    }

    #[test]
    fn from_bytes_clamps_out_of_range_and_mid_character_offsets() {
        let text = "é";
        let s = Span::from_bytes(text, 1, 10);
        assert_eq!((s.offset, s.len), (0, 2));
    }
}
