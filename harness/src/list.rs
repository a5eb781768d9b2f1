//! `delegateos-conform list areas|groups|flags|requirements|cases|ops [filters]`: what the
//! corpus (embedded, or `--vectors DIR`) offers, so filters can be written without reading
//! the vector files. The same filters as `run` narrow the listing; a filter value that matches
//! no case names the value and the nearest valid ones, as in `run` (exit 64).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::exit::ConformExitCode;
use crate::filter::unmatched_values;
use crate::filter::FilterArgs;
use crate::runner::case::{load_corpus, Case};
use delegateos_vectors::CorpusSource;

/// What `list` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Topic {
    /// Vector areas (`--area`), with their case counts.
    Areas,
    /// Vector groups as `area/group` (`--group` takes the group part), with case counts.
    Groups,
    /// Case flags (`--flag`), with case counts.
    Flags,
    /// Requirement ids cited by cases (`--requirement`), with case counts.
    Requirements,
    /// Case ids (`--id`), with operation, area/group and description.
    Cases,
    /// Operations (`--op`), with case counts.
    Ops,
}

/// `list`
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// What to list.
    #[arg(value_enum)]
    pub topic: Topic,
    /// Vector directory (default: the embedded corpus).
    #[arg(long, value_name = "DIR")]
    pub vectors: Option<PathBuf>,
    /// Selection (as for `run`); advisory cases are included.
    #[command(flatten)]
    pub filter: FilterArgs,
}

/// The listing of `topic` over `cases` (already filtered), one entry per line.
pub fn render(topic: Topic, cases: &[Case]) -> String {
    if topic == Topic::Cases {
        let w = cases.iter().map(|c| c.id.len()).max().unwrap_or(0);
        let o = cases.iter().map(|c| c.op.len()).max().unwrap_or(0);
        return cases
            .iter()
            .map(|c| {
                format!(
                    "{:<w$}  {:<o$}  {}/{}  {}\n",
                    c.id, c.op, c.area, c.group, c.description
                )
            })
            .collect();
    }
    // key -> (cases, of which advisory): `run` leaves advisory cases out unless `--profile
    // strict`, so a count that includes them says how many (issue 46).
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for c in cases {
        let keys: Vec<String> = match topic {
            Topic::Areas => vec![c.area.clone()],
            Topic::Groups => vec![format!("{}/{}", c.area, c.group)],
            Topic::Flags => c.flags.clone(),
            Topic::Requirements => c.requirements.clone(),
            Topic::Ops => vec![c.op.clone()],
            Topic::Cases => Vec::new(),
        };
        for k in keys {
            let entry = counts.entry(k).or_default();
            entry.0 += 1;
            entry.1 += usize::from(c.is_advisory());
        }
    }
    let w = counts.keys().map(String::len).max().unwrap_or(0);
    counts
        .iter()
        .map(|(k, (n, advisory))| {
            let apart = match *advisory {
                0 => String::new(),
                a if a == *n => " (advisory: run only with --profile strict)".to_owned(),
                a => format!(" ({a} advisory: run only with --profile strict)"),
            };
            format!(
                "{k:<w$}  {n} case{}{apart}\n",
                if *n == 1 { "" } else { "s" }
            )
        })
        .collect()
}

/// `list`: returns the exit code.
pub fn run(args: &ListArgs) -> i32 {
    let source = CorpusSource::from_option(args.vectors.as_deref());
    let all = match load_corpus(&source) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "delegateos-conform: {e}");
            return ConformExitCode::SETUP_ERROR;
        }
    };
    let filter = args.filter.to_filter();
    let unknown = unmatched_values(&filter, &all);
    if !unknown.is_empty() {
        let mut err = std::io::stderr().lock();
        for m in unknown {
            let _ = writeln!(err, "delegateos-conform: {m}");
        }
        return ConformExitCode::USAGE;
    }
    let selected: Vec<Case> = all.into_iter().filter(|c| filter.selects(c)).collect();
    if selected.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "delegateos-conform: no case matches all the filters together (each matches some \
             case on its own)"
        );
        return ConformExitCode::USAGE;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(render(args.topic, &selected).as_bytes());
    let _ = out.flush();
    ConformExitCode::OK
}
