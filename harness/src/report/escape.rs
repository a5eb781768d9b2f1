//! The one escaper per output format (issue 37 item 2): every report, page and file the
//! harness writes escapes through here. A leaf module.
//!
//! * [`xml`] — XML (JUnit) and HTML, text and attribute values alike;
//! * [`markdown_cell`] — one cell of a Markdown table.
//!
//! JSON needs none (serde writes it) and plain text is written as it is.

/// Escapes text for XML and HTML content and attribute values: `& < > " '` as entities, and
/// each character XML 1.0 cannot carry at all (C0 controls other than tab, newline and
/// carriage return; U+FFFE, U+FFFF) written visibly as `\u{…}`, so the reader sees which one
/// the implementation sent.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for one cell of a Markdown table: `|` escaped, line breaks as spaces.
pub fn markdown_cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_shows_what_xml_cannot_carry() {
        assert_eq!(xml("a<&>\"'\x01"), "a&lt;&amp;&gt;&quot;&apos;\\u{1}");
        assert_eq!(xml("\u{fffe}\u{ffff}\t\n"), "\\u{fffe}\\u{ffff}\t\n");
        assert_eq!(xml("é ✓"), "é ✓");
    }

    #[test]
    fn a_markdown_cell_stays_one_cell() {
        assert_eq!(markdown_cell("a|b\nc\rd"), "a\\|b c d");
    }
}
