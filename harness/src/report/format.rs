//! The one set of report formats (issue 50): every command's `--format` and `--report
//! FORMAT=FILE` names a [`Format`], and each command says which of them it writes (`run` and
//! `mcp` all six, `compare` four, `lint` two). A format a command does not write is a usage
//! error naming those it does, from the same list its `--help` shows.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Human summary.
    Text,
    /// Machine report (each command's JSON schema under `spec/schemas/`).
    Json,
    /// JUnit XML for CI test tabs.
    Junit,
    /// Markdown for CI summary pages (`md` is accepted too).
    Markdown,
    /// One self-contained HTML page (no script, no network).
    Html,
    /// shields.io endpoint badge JSON (`{"schemaVersion":1,"label":…,"message":…,"color":…}`).
    Badge,
}

/// The formats `run` writes: all of them.
pub const RUN: &[Format] = &Format::ALL;

/// The formats `mcp` writes.
pub const MCP: &[Format] = RUN;

/// The formats `compare` writes (a comparison is not one verdict: no JUnit, no badge).
pub const COMPARE: &[Format] = &[Format::Text, Format::Markdown, Format::Json, Format::Html];

/// The formats `lint` writes.
pub const LINT: &[Format] = &[Format::Text, Format::Json];

impl Format {
    /// Every format, in the order help lists them.
    pub const ALL: [Format; 6] = [
        Format::Text,
        Format::Json,
        Format::Junit,
        Format::Markdown,
        Format::Html,
        Format::Badge,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Badge => "badge",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Format::Text => "Human summary (default)",
            Format::Json => "Machine report (its JSON schema is under spec/schemas/)",
            Format::Junit => "JUnit XML for CI test tabs",
            Format::Markdown => "Markdown for CI summary pages (`md` is accepted too)",
            Format::Html => "One self-contained HTML page (no script, no network)",
            Format::Badge => "shields.io endpoint badge JSON",
        }
    }

    fn possible_value(self) -> PossibleValue {
        let v = PossibleValue::new(self.name()).help(self.help());
        match self {
            Format::Markdown => v.alias("md"),
            _ => v,
        }
    }

    /// The format named `name` (any case; `md` is markdown) among `supported`, or an error
    /// naming the formats `command` writes.
    pub fn parse_among(name: &str, supported: &[Format], command: &str) -> Result<Self, String> {
        let lower = name.to_ascii_lowercase();
        let found = Format::ALL
            .into_iter()
            .find(|f| f.name() == lower || (*f == Format::Markdown && lower == "md"));
        let names = || {
            supported
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match found {
            Some(f) if supported.contains(&f) => Ok(f),
            Some(f) => Err(format!(
                "`{command}` does not write {} (it writes {})",
                f.name(),
                names()
            )),
            None => Err(format!("unknown format `{name}` ({})", names())),
        }
    }

    /// `FORMAT=FILE` of `--report`, the format among `supported`.
    pub fn parse_target(
        s: &str,
        supported: &[Format],
        command: &str,
    ) -> Result<(Self, PathBuf), String> {
        let (format, file) = s
            .split_once('=')
            .ok_or_else(|| format!("expected FORMAT=FILE, got `{s}`"))?;
        let format = Format::parse_among(format, supported, command)?;
        if file.is_empty() {
            return Err("empty FILE in FORMAT=FILE".to_owned());
        }
        Ok((format, PathBuf::from(file)))
    }
}

/// The `--format` value parser of a command that writes `supported`: its help lists them,
/// with their descriptions, and any other name is a usage error.
pub fn parser(supported: &'static [Format]) -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(supported.iter().map(|f| f.possible_value()))
        .map(move |name| Format::parse_among(&name, supported, "").unwrap_or(Format::Text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_names_the_formats_it_writes() {
        assert_eq!(Format::parse_among("MD", RUN, "run"), Ok(Format::Markdown));
        assert_eq!(Format::parse_among("badge", MCP, "mcp"), Ok(Format::Badge));
        assert_eq!(
            Format::parse_among("junit", COMPARE, "compare"),
            Err("`compare` does not write junit (it writes text, markdown, json, html)".to_owned())
        );
        assert_eq!(
            Format::parse_among("yaml", LINT, "lint"),
            Err("unknown format `yaml` (text, json)".to_owned())
        );
        assert_eq!(
            Format::parse_target("html=r.html", RUN, "run"),
            Ok((Format::Html, PathBuf::from("r.html")))
        );
        assert!(Format::parse_target("html=", RUN, "run").is_err());
        assert!(Format::parse_target("html", RUN, "run").is_err());
    }
}
