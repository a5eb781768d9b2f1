//! The skeleton every HTML page of the harness shares (the `run` report in `report::html`, the
//! `mcp` report in `report::mcp::html`, the `compare` pages): one self-contained file, inline CSS, and a
//! Content-Security-Policy that forbids scripts and every external load. A leaf module, so both
//! report layers use it without importing each other.

/// Escapes text for HTML content and attribute values (the one XML/HTML escaper,
/// [`super::escape::xml`]).
pub use super::escape::xml as esc;

/// [`esc`] for text written with Markdown code spans (finding titles, fixes and requirement
/// texts come from `spec/*.md`): each `` `span` `` becomes `<code>span</code>` (issue 38 item
/// 7: backticks were shown raw). The text is escaped first, so a span can carry no markup.
pub fn esc_code_spans(s: &str) -> String {
    let escaped = esc(s);
    let parts: Vec<&str> = escaped.split('`').collect();
    // An odd number of backticks leaves the last one literal.
    let pairs = (parts.len() - 1) / 2;
    let mut out = String::with_capacity(escaped.len() + pairs * 13);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            let closing_last = i == parts.len() - 1 && (parts.len() - 1) % 2 == 1;
            out.push_str(if closing_last {
                "`"
            } else if i % 2 == 1 {
                "<code>"
            } else {
                "</code>"
            });
        }
        out.push_str(part);
    }
    out
}

/// The page's stylesheet (also the classes `bar`, `s-<status>`, `verdict`, `critical`).
pub const CSS: &str = "\
:root{--ok:#2e7d32;--bad:#c62828;--warn:#ef6c00;--muted:#666;--bg:#fafafa}\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;background:var(--bg);color:#222}\
main{max-width:1200px;margin:0 auto;padding:16px 24px}\
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:24px 0 8px;border-bottom:1px solid #ddd}\
h3{font-size:15px;margin:16px 0 6px}\
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\
pre{background:#fff;border:1px solid #ddd;padding:6px 8px;overflow:auto;max-height:480px;margin:4px 0;white-space:pre-wrap;word-break:break-all}\
.verdict{padding:12px 16px;border-radius:6px;color:#fff;font-size:18px;font-weight:600}\
.verdict.pass{background:var(--ok)}.verdict.fail{background:var(--bad)}.verdict.stale{background:var(--warn)}\
.critical{border:2px solid var(--bad);background:#fdecea;padding:8px 12px;border-radius:6px}\
.critical.none{border-color:var(--ok);background:#e8f5e9}\
table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 5px;border-bottom:1px solid #e5e5e5;text-align:left;vertical-align:top}\
th{background:#f0f0f0;font-size:12px}td:first-child{white-space:nowrap}table{font-size:13px}td.n{text-align:right;font-variant-numeric:tabular-nums}\
.bar{display:flex;width:160px;height:14px;border-radius:3px;overflow:hidden;background:#eee}\
.bar span{display:block;height:100%}\
.s-passed{background:#43a047}.s-acceptable{background:#7cb342}.s-other_code{background:#fbc02d}\
.s-skipped{background:#bdbdbd}.s-xfail{background:#8d6e63}.s-stale{background:#ef6c00}\
.s-failed{background:#e53935}.s-errored{background:#8e24aa}\
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}\
.sev{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-size:12px;font-weight:600}\
.sev-critical{background:#b71c1c}.sev-high{background:#e53935}.sev-medium{background:#ef6c00}.sev-low{background:#757575}\
details{background:#fff;border:1px solid #ddd;border-radius:4px;margin:6px 0;padding:4px 8px}\
summary{cursor:pointer}.desc{color:var(--muted)}\
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:8px}.sbs h4{margin:4px 0;font-size:13px}\
.d-add{background:#e6ffed}.d-del{background:#ffeef0}.d-hunk{color:#6a737d}\
.muted{color:var(--muted)}footer{margin:24px 0;color:var(--muted);font-size:12px}";

/// The document up to and including `<main>`: charset, the CSP, the title and the stylesheet.
pub fn page_start(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{CSS}</style></head>\n<body><main>\n",
        esc(title)
    )
}

/// The footer (already escaped HTML) and the end of the document.
pub fn page_end(footer_html: &str) -> String {
    format!("<footer>{footer_html}</footer>\n</main></body></html>\n")
}

#[cfg(test)]
mod tests {
    use super::esc_code_spans;

    #[test]
    fn code_spans_become_code_elements_and_stay_escaped() {
        assert_eq!(
            esc_code_spans("use `a<b>` then `c`"),
            "use <code>a&lt;b&gt;</code> then <code>c</code>"
        );
        assert_eq!(esc_code_spans("a lone ` tick"), "a lone ` tick");
        assert_eq!(esc_code_spans("`x` and `"), "<code>x</code> and `");
        assert_eq!(esc_code_spans("none"), "none");
    }
}
