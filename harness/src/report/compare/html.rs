//! `compare --format html`: one self-contained page (inline CSS, no script, no network: the
//! Content-Security-Policy of [`page_start`]). The first screen is the overview (`#overview`:
//! verdict, pass rate and findings per severity per implementation), then the findings matrix
//! (`#matrix`: short column headers, the full label in the overview's legend and each header's
//! tooltip, one severity colour per cell), the readings map (`#readings`), interoperability
//! (`#interop`) and operations (`#operations`). Every text from a report is escaped.
//!
//! The overview's numbers carry ids for tests: `ov-{i}-verdict`, `ov-{i}-pass-rate`,
//! `ov-{i}-counted-passed`, `ov-{i}-counted`, `ov-{i}-{severity}` (number of findings), with
//! `i` the implementation's index.

use crate::report::page::{esc, esc_code_spans, page_end, page_start};

use super::{
    operations_phrase, options_phrase, reading_name, Comparison, ReadingCell, DECISIONS_WHERE,
    READINGS_LEGEND, SCHEMA, SEVERITIES,
};

/// How many divergent or interoperability cases a decision lists.
const LISTED: usize = 50;

/// The page's own styles (the matrix and reading colours), after the shared stylesheet.
const STYLE: &str = "<style>\
table.matrix{table-layout:fixed;width:100%}\
table.matrix th.imp,table.matrix td.c{width:68px;text-align:center;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\
table.matrix th.sev-col{width:64px}table.matrix td.f{word-break:break-word}\
td.c.sev-critical{background:#b71c1c;color:#fff}td.c.sev-high{background:#e53935;color:#fff}\
td.c.sev-medium{background:#ffb74d}td.c.sev-low{background:#cfd8dc}td.c.absent{color:#bbb}\
td.c.uncounted{font-style:italic}\
td.r-differs{background:#fff3e0}td.r-same{background:#e8f5e9}td.r-none{background:#ffebee}\
.tag{display:inline-block;min-width:1.4em;padding:0 4px;border-radius:3px;background:#455a64;color:#fff;font-weight:600;text-align:center}\
.pct{font-size:18px;font-weight:600}\
table.cells td.c{text-align:left;white-space:nowrap}table.cells td.c span{display:block;white-space:nowrap}\
table.cells th.imp{text-align:center;white-space:nowrap}.nw{white-space:nowrap}\
</style>\n";

/// `A`, `B`, … `Z`, `AA`, … for column `i`.
fn letter(i: usize) -> String {
    let mut n = i;
    let mut s = String::new();
    loop {
        s.insert(0, char::from(b'A' + (n % 26) as u8));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s
}

/// A header for column `i`: its letter and the label's first characters.
fn short_header(i: usize, label: &str) -> String {
    let short: String = label.chars().take(8).collect();
    let more = if label.chars().count() > 8 { "…" } else { "" };
    format!(
        "<th class=\"imp\" title=\"{}\"><span class=\"tag\">{}</span><br><small>{}{more}</small></th>",
        esc(label),
        letter(i),
        esc(&short)
    )
}

fn headers(c: &Comparison) -> String {
    c.implementations
        .iter()
        .enumerate()
        .map(|(i, o)| short_header(i, &o.label))
        .collect()
}

fn verdict_class(v: &str) -> &'static str {
    match v {
        "PASSED" => "pass",
        "STALE BASELINE" => "stale",
        _ => "fail",
    }
}

fn overview(c: &Comparison, h: &mut String) {
    let passed = c
        .implementations
        .iter()
        .filter(|o| o.verdict == "PASSED")
        .count();
    let all = c.implementations.len();
    h.push_str(&format!(
        "<section id=\"overview\"><div class=\"verdict {}\" id=\"verdict-strip\">{passed} of {all} \
         implementations passed</div>\n",
        if passed == all { "pass" } else { "fail" }
    ));
    for n in &c.notes {
        h.push_str(&format!("<p class=\"critical\">Note: {}</p>\n", esc(n)));
    }
    h.push_str(
        "<table><tr><th></th><th>implementation</th><th>verdict</th><th>pass rate</th>\
         <th>passed / counted</th><th>acceptable</th><th>failed</th><th>errored</th>\
         <th>skipped</th><th>operations</th><th>options</th><th>critical</th><th>high</th>\
         <th>medium</th><th>low</th></tr>\n",
    );
    for (i, o) in c.implementations.iter().enumerate() {
        let lang = o
            .language
            .as_deref()
            .map(|l| format!(", {}", esc(l)))
            .unwrap_or_default();
        h.push_str(&format!(
            "<tr><td><span class=\"tag\">{}</span></td><td><b>{}</b><br><small class=\"muted\">{} \
             {}{lang} · {}</small></td>\
             <td><span class=\"sev {}\" id=\"ov-{i}-verdict\">{}</span><br><small>exit {}</small></td>\
             <td class=\"n\"><span class=\"pct\"><span id=\"ov-{i}-pass-rate\">{:.1}</span>%</span>\
             <div class=\"bar\"><span class=\"s-passed\" style=\"width:{:.1}%\"></span>\
             <span class=\"s-failed\" style=\"width:{:.1}%\"></span></div></td>\
             <td class=\"n\"><span id=\"ov-{i}-counted-passed\">{}</span> / \
             <span id=\"ov-{i}-counted\">{}</span></td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td id=\"ov-{i}-operations\" class=\"nw\">{}</td>\
             <td id=\"ov-{i}-options\">{}</td>",
            letter(i),
            esc(&o.label),
            esc(&o.name),
            esc(&o.version),
            esc(&o.source),
            match verdict_class(&o.verdict) {
                "pass" => "sev-low\" style=\"background:var(--ok)",
                "stale" => "sev-medium",
                _ => "sev-critical",
            },
            esc(&o.verdict),
            o.exit_code,
            o.pass_rate,
            o.pass_rate,
            100.0 - o.pass_rate,
            o.counted_passed,
            o.counted,
            o.totals.acceptable,
            o.totals.failed,
            o.totals.errored,
            o.totals.skipped,
            esc(&operations_phrase(o)),
            // One option never breaks inside (`per-tool-spend`); lines break between them.
            options_phrase(o)
                .split(", ")
                .map(|x| format!("<span class=\"nw\">{}</span>", esc(x)))
                .collect::<Vec<_>>()
                .join(", "),
        ));
        for s in SEVERITIES {
            let n = o.findings.get(s).copied().unwrap_or(0);
            let k = o.finding_cases.get(s).copied().unwrap_or(0);
            let cell = if n == 0 {
                format!("<span id=\"ov-{i}-{s}\">0</span>")
            } else {
                format!(
                    "<span class=\"sev sev-{s}\" id=\"ov-{i}-{s}\">{n}</span> \
                     <small class=\"muted\">{k} cases</small>"
                )
            };
            h.push_str(&format!("<td class=\"n\">{cell}</td>"));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></section>\n");
}

fn matrix(c: &Comparison, h: &mut String) {
    h.push_str(&format!(
        "<section id=\"matrix\"><h2>Findings matrix</h2>\n<p class=\"desc\">{} finding(s), one \
         per root cause: each cell is the finding's severity (colour) and case count in that \
         implementation; italic: not counted in its exit code.</p>\n",
        c.findings.len()
    ));
    if c.findings.is_empty() {
        h.push_str("<p class=\"muted\">No finding in any implementation.</p></section>\n");
        return;
    }
    h.push_str(&format!(
        "<table class=\"matrix\"><tr><th>finding</th><th class=\"sev-col\">severity</th>{}</tr>\n",
        headers(c)
    ));
    for f in &c.findings {
        h.push_str(&format!(
            "<tr><td class=\"f\"><code>{}</code><br><small class=\"desc\">{}</small></td>\
             <td><span class=\"sev sev-{}\">{}</span></td>",
            esc(&f.key),
            esc_code_spans(&f.title),
            esc(&f.severity),
            esc(&f.severity)
        ));
        for (i, cell) in f.cells.iter().enumerate() {
            let label = c
                .implementations
                .get(i)
                .map(|o| o.label.as_str())
                .unwrap_or("");
            match cell {
                Some(x) => h.push_str(&format!(
                    "<td class=\"c sev-{}{}\" title=\"{}: {}, {} case(s)\">{}</td>",
                    esc(&x.severity),
                    if x.counted { "" } else { " uncounted" },
                    esc(label),
                    esc(&x.severity),
                    x.cases,
                    x.cases
                )),
                None => h.push_str(&format!(
                    "<td class=\"c absent\" title=\"{}: not found\">·</td>",
                    esc(label)
                )),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></section>\n");
}

fn reading_class(cell: &ReadingCell) -> &'static str {
    if cell.none > 0 || cell.other_code > 0 {
        "r-none"
    } else if cell.differs() {
        "r-differs"
    } else {
        "r-same"
    }
}

fn readings(c: &Comparison, h: &mut String) {
    h.push_str(&format!(
        "<section id=\"readings\"><h2>Readings map</h2>\n<p class=\"desc\">{} decision(s) read \
         differently from the reference by at least one implementation ({}); {}. Read the \
         reference way by all: {}.</p>\n",
        c.readings.len(),
        esc_code_spans(READINGS_LEGEND),
        esc_code_spans(DECISIONS_WHERE),
        if c.decisions_agreeing.is_empty() {
            "-".to_owned()
        } else {
            esc(&c.decisions_agreeing.join(", "))
        }
    ));
    if !c.readings.is_empty() {
        h.push_str(&format!(
            "<table class=\"cells\"><tr><th>decision</th><th>cases</th>{}</tr>\n",
            headers(c)
        ));
        for d in &c.readings {
            h.push_str(&format!(
                "<tr><td><b>{}</b> {}<br><small class=\"muted\">{}</small></td>\
                 <td class=\"n\">{}</td>",
                esc(&d.decision),
                esc_code_spans(&d.title),
                esc(&d.read_at),
                d.cases
            ));
            // One line per kind of reading, never broken inside (issue 46: `ref 61, #1 29,
            // none 12` once wrapped into four lines of a narrow column).
            for cell in &d.cells {
                let parts = cell.parts();
                let body = if parts.is_empty() {
                    "<span>-</span>".to_owned()
                } else {
                    parts
                        .iter()
                        .map(|p| format!("<span>{}</span>", esc(p)))
                        .collect()
                };
                h.push_str(&format!(
                    "<td class=\"c {}\" title=\"{}\">{body}</td>",
                    reading_class(cell),
                    esc(&cell.summary()),
                ));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    for d in &c.readings {
        h.push_str(&format!(
            "<details><summary>{} {}: {} case(s) read differently</summary>\n<table><tr><th>case</th>\
             <th>accepted outcomes</th>{}</tr>\n",
            esc(&d.decision),
            esc_code_spans(&d.title),
            d.divergent.len(),
            headers(c)
        ));
        for case in d.divergent.iter().take(LISTED) {
            let outcomes: Vec<String> = case
                .outcomes
                .iter()
                .map(|o| format!("{}: {}", reading_name(o.outcome), o.answer))
                .collect();
            h.push_str(&format!(
                "<tr><td><code>{}</code></td><td><small>{}</small></td>",
                esc(&case.id),
                esc(&outcomes.join("; "))
            ));
            for r in &case.readings {
                h.push_str(&format!("<td>{}</td>", esc(r)));
            }
            h.push_str("</tr>\n");
        }
        if d.divergent.len() > LISTED {
            h.push_str(&format!(
                "<tr><td colspan=\"2\">… {} more in --format json</td></tr>\n",
                d.divergent.len() - LISTED
            ));
        }
        h.push_str("</table></details>\n");
    }
    h.push_str("</section>\n");
}

fn interop(c: &Comparison, h: &mut String) {
    let i = &c.interoperability;
    h.push_str(&format!(
        "<section id=\"interop\"><h2>Interoperability</h2>\n<p class=\"desc\">{} case(s) where \
         two implementations both pass (passed or acceptable) with different accepted outcomes: \
         they will disagree in production although both conform.</p>\n",
        i.cases.len()
    ));
    if !i.pairs.is_empty() {
        h.push_str("<table><tr><th>implementations</th><th>cases</th></tr>\n");
        for p in &i.pairs {
            h.push_str(&format!(
                "<tr><td>{} ↔ {}</td><td class=\"n\">{}</td></tr>\n",
                esc(&p.a),
                esc(&p.b),
                p.cases
            ));
        }
        h.push_str("</table>\n");
        h.push_str(&format!(
            "<details><summary>The cases</summary><table><tr><th>case</th><th>decision</th>{}</tr>\n",
            headers(c)
        ));
        for ic in i.cases.iter().take(LISTED * 4) {
            h.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td>",
                esc(&ic.id),
                esc(ic.decision.as_deref().unwrap_or("-"))
            ));
            for r in &ic.readings {
                h.push_str(&format!(
                    "<td>{}</td>",
                    match r {
                        Some(n) => reading_name(*n),
                        None => "-".to_owned(),
                    }
                ));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table></details>\n");
    }
    h.push_str("</section>\n");
}

fn operations(c: &Comparison, h: &mut String) {
    h.push_str(&format!(
        "<section id=\"operations\"><h2>Operations supported</h2>\n<p class=\"desc\">Declared \
         in hello (cases run, skipped). Operations run, as <code>run</code> counts them: {}.</p>\n\
         <table class=\"cells\"><tr><th>operation</th>{}</tr>\n",
        esc(&super::operations_summary(c)),
        headers(c)
    ));
    for o in &c.operations {
        h.push_str(&format!("<tr><td><code>{}</code></td>", esc(&o.op)));
        for x in &o.cells {
            let mut s = format!("<span>{}</span>", if x.declared { "yes" } else { "no" });
            if x.ran > 0 || x.skipped > 0 {
                s.push_str(&format!("<span><small>{} ran", x.ran));
                if x.skipped > 0 {
                    s.push_str(&format!(", {} skipped", x.skipped));
                }
                s.push_str("</small></span>");
            }
            h.push_str(&format!(
                "<td class=\"c {}\">{s}</td>",
                if x.declared { "r-same" } else { "absent" },
            ));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></section>\n");
}

/// The comparison as one HTML page.
pub(super) fn page(c: &Comparison) -> String {
    let title = format!(
        "DelegateOS conformance: {} implementations compared",
        c.implementations.len()
    );
    let mut h = page_start(&title);
    h.push_str(STYLE);
    h.push_str(&format!(
        "<h1>{}</h1>\n<p class=\"muted\">Corpus <code>{}</code>; decisions from {}.</p>\n",
        esc(&title),
        esc(&c.corpus),
        esc(&c.decisions_from)
    ));
    overview(c, &mut h);
    matrix(c, &mut h);
    readings(c, &mut h);
    interop(c, &mut h);
    operations(c, &mut h);
    h.push_str(&page_end(&format!(
        "delegateos-conform compare · schema {SCHEMA} (--format json)"
    )));
    h
}

#[cfg(test)]
mod tests {
    use super::letter;

    #[test]
    fn column_letters() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(25), "Z");
        assert_eq!(letter(26), "AA");
        assert_eq!(letter(27), "AB");
    }
}
