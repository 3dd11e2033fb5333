//! Turning a candidate table into prose: the `--explain` table, the merged summary used in
//! errors ("1.10.0 to 1.11.2 are outside >=1.12.0 <1.14.0"), and hints. Pure functions over
//! [`Candidate`]s, so the resolver's data never depends on the wording.

use super::{Candidate, LoadedCatalog, Rejection, Request, Verdict};
use crate::table::{self, Column, Width};

impl Rejection {
    /// The reason as a phrase about one bundle ("is outside >=1.0.0").
    pub fn singular(&self) -> String {
        match self {
            Rejection::NotASuccessor { installed } => {
                format!("is not a direct successor of the installed {installed}")
            }
            _ => format!("is {}", self.phrase()),
        }
    }

    /// The reason as a phrase about several bundles ("are outside >=1.0.0").
    pub fn plural(&self) -> String {
        match self {
            Rejection::NotASuccessor { installed } => {
                format!("are not direct successors of the installed {installed}")
            }
            _ => format!("are {}", self.phrase()),
        }
    }

    fn phrase(&self) -> String {
        match self {
            Rejection::NotInChannel { requested } => match requested.as_slice() {
                [one] => format!("not in channel {one}"),
                many => format!("in none of the channels {}", many.join(", ")),
            },
            Rejection::InvalidVersion { reason } => {
                format!("unparsable as a version ({reason}), so it matches no range")
            }
            Rejection::UnparsableRankedLast { by, reason } => {
                format!("ranked last, as its version does not parse ({reason}); chosen: {by}")
            }
            Rejection::OutsideRange { range } => format!("outside {range}"),
            Rejection::MaxOpenShiftVersion { max, cluster } => {
                format!(
                    "limited to OpenShift {max} (olm.maxOpenShiftVersion), below the target {cluster}"
                )
            }
            Rejection::InvalidMaxOpenShiftVersion { reason } => format!("unusable: {reason}"),
            Rejection::MinKubeVersion { min, cluster } => {
                format!(
                    "in need of Kubernetes {min} (minKubeVersion), newer than the cluster's {cluster}"
                )
            }
            Rejection::Outranked { by } => format!("outranked by {by}"),
            Rejection::OtherCatalog { catalog } => {
                format!("outranked by the pick from catalog {catalog}")
            }
            Rejection::OutsideUpgradePolicy { policy, range } => {
                format!("outside {range} (upgrade policy: {policy})")
            }
            Rejection::NotASuccessor { installed } => format!(
                "not a direct successor of the installed {installed} (upgradeConstraintPolicy: CatalogProvided)"
            ),
            Rejection::PassedOver { by } => format!(
                "passed over by OLM v0 for {by} (its dependencies, or the namespace's other Subscriptions, rule it out)"
            ),
            Rejection::NotInOrder => "not on the channel's replaces chain (reached only through skips or skipRange), or not the startingCSV, so OLM v0 never picks it".into(),
        }
    }
}

/// One line per candidate: catalog, bundle, version, channels, verdict, fitted to `width`.
pub fn table(candidates: &[Candidate], width: Width) -> String {
    let rows: Vec<Vec<String>> = candidates
        .iter()
        .map(|c| {
            let verdict = match &c.verdict {
                Verdict::Chosen => "chosen".to_string(),
                Verdict::Rejected(r) => r.singular().trim_start_matches("is ").to_string(),
            };
            let bundle = if c.deprecated {
                format!("{} (deprecated)", c.bundle)
            } else {
                c.bundle.clone()
            };
            vec![
                c.catalog.clone(),
                bundle,
                c.version.clone(),
                c.channels.join(","),
                verdict,
            ]
        })
        .collect();
    // The bundle's name is as given (a deprecated one marked): whether it holds its version is
    // asked of the names alone.
    let names: Vec<Vec<&str>> = candidates
        .iter()
        .map(|c| vec![c.bundle.as_str(), c.version.as_str()])
        .collect();
    table::render(
        &[
            Column::new("CATALOG").redundant_if(table::uniform(&rows, 0)),
            Column::new("BUNDLE"),
            Column::new("VERSION").redundant_if(table::holds(&names, 0, 1)),
            Column::new("CHANNELS"),
            Column::prose("VERDICT"),
        ],
        &rows,
        width,
    )
}

/// Neighbours (in candidate order) rejected alike, merged into sentences:
/// `1.10.0 to 1.11.2 are outside >=1.12.0 <1.14.0`.
pub fn summary(candidates: &[Candidate]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut i = 0;
    while i < candidates.len() {
        let c = &candidates[i];
        let mut j = i + 1;
        while j < candidates.len()
            && candidates[j].catalog == c.catalog
            && candidates[j].verdict == c.verdict
        {
            j += 1;
        }
        let group = &candidates[i..j];
        let label = |c: &Candidate| {
            if c.version.is_empty() {
                c.bundle.clone()
            } else {
                c.version.clone()
            }
        };
        let line = match &c.verdict {
            Verdict::Chosen => format!(
                "{} ({}) is chosen from catalog {}",
                c.bundle, c.version, c.catalog
            ),
            Verdict::Rejected(r) => match group {
                [one] => format!("{} {}", label(one), r.singular()),
                [first, .., last] => format!("{} to {} {}", label(last), label(first), r.plural()),
                [] => unreachable!("a group has at least one candidate"),
            },
        };
        lines.push(line);
        i = j;
    }
    lines
}

/// The first requested channel the package has in none of the searched catalogs, with the
/// package's channels and the closest of them (at most a third of its length away).
pub fn missing_channel(
    request: &Request<'_>,
    searched: &[&LoadedCatalog],
) -> Option<Box<super::MissingChannel>> {
    let packages: Vec<_> = searched
        .iter()
        .filter_map(|c| c.catalog.package(request.package))
        .collect();
    let (index, wanted) = request
        .channels
        .iter()
        .enumerate()
        .find(|(_, w)| !packages.iter().any(|p| p.channel(w).is_some()))?;
    let mut known: Vec<String> = packages
        .iter()
        .flat_map(|p| p.channels.iter().map(|c| c.name.clone()))
        .collect();
    known.sort_unstable();
    known.dedup();
    let suggestion = known
        .iter()
        .map(|k| (strsim::levenshtein(k, wanted), k))
        .filter(|(d, _)| *d <= (wanted.chars().count() / 3).max(1))
        .min()
        .map(|(_, k)| k.clone());
    Some(Box::new(super::MissingChannel {
        index,
        wanted: wanted.clone(),
        known,
        suggestion,
    }))
}

/// What would help when nothing matched.
pub fn hints(
    request: &Request<'_>,
    searched: &[&LoadedCatalog],
    candidates: &[Candidate],
) -> Vec<String> {
    let mut hints = Vec::new();
    let packages: Vec<_> = searched
        .iter()
        .filter_map(|c| c.catalog.package(request.package))
        .collect();
    for wanted in request.channels {
        if !packages.iter().any(|p| p.channel(wanted).is_some()) {
            let mut all: Vec<&str> = packages
                .iter()
                .flat_map(|p| p.channels.iter().map(|c| c.name.as_str()))
                .collect();
            all.sort_unstable();
            all.dedup();
            hints.push(format!(
                "package {} has no channel \"{wanted}\"; its channels are: {}",
                request.package,
                all.join(", ")
            ));
        }
    }
    if let Some((text, range)) = request.range {
        for c in candidates {
            if !matches!(c.verdict, Verdict::Rejected(Rejection::NotInChannel { .. })) {
                continue;
            }
            let in_range = packages
                .iter()
                .filter_map(|p| p.bundle(&c.bundle))
                .any(|b| b.version.as_ref().is_some_and(|v| range.matches(v)));
            if in_range {
                hints.push(format!(
                    "{} ({}) matches {text} but is only in channel{} {}",
                    c.bundle,
                    c.version,
                    if c.channels.len() == 1 { "" } else { "s" },
                    c.channels.join(", ")
                ));
            }
        }
        let in_channel: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| matches!(c.verdict, Verdict::Rejected(Rejection::OutsideRange { .. })))
            .collect();
        if !in_channel.is_empty() && in_channel.len() == candidates.len() {
            let (hi, lo) = (in_channel[0], in_channel[in_channel.len() - 1]);
            hints.push(if in_channel.len() == 1 {
                format!("the only version available is {}", hi.version)
            } else {
                format!(
                    "available versions range from {} to {}",
                    lo.version, hi.version
                )
            });
        }
    }
    let fit: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| {
            matches!(
                c.verdict,
                Verdict::Rejected(
                    Rejection::MaxOpenShiftVersion { .. } | Rejection::MinKubeVersion { .. }
                )
            )
        })
        .collect();
    if let Some(best) = fit.first() {
        hints.push(format!(
            "{} bundle{} would match but not fit the target cluster (newest: {} {}); use a catalog built for this OpenShift release or check clusterVersion",
            fit.len(),
            if fit.len() == 1 { "" } else { "s" },
            best.bundle,
            match &best.verdict {
                Verdict::Rejected(r) => r.singular(),
                Verdict::Chosen => String::new(),
            }
        ));
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(version: &str, verdict: Verdict) -> Candidate {
        Candidate {
            catalog: "c".into(),
            bundle: format!("op.v{version}"),
            version: version.into(),
            channels: vec!["stable".into()],
            deprecated: false,
            verdict,
        }
    }

    #[test]
    fn summary_merges_neighbours_rejected_alike() {
        let out = Rejection::OutsideRange {
            range: ">=1.12.0 <1.14.0".into(),
        };
        let cands = vec![
            cand("1.14.1", Verdict::Rejected(out.clone())),
            cand("1.14.0", Verdict::Rejected(out.clone())),
            cand("1.13.0", Verdict::Chosen),
            cand("1.11.2", Verdict::Rejected(out.clone())),
            cand("1.10.0", Verdict::Rejected(out)),
        ];
        assert_eq!(
            summary(&cands),
            [
                "1.14.0 to 1.14.1 are outside >=1.12.0 <1.14.0",
                "op.v1.13.0 (1.13.0) is chosen from catalog c",
                "1.10.0 to 1.11.2 are outside >=1.12.0 <1.14.0",
            ]
        );
    }

    #[test]
    fn table_aligns_columns() {
        let t = table(&[cand("1.0.0", Verdict::Chosen)], Width::Full);
        assert_eq!(
            t,
            "CATALOG  BUNDLE     VERSION  CHANNELS  VERDICT\nc        op.v1.0.0  1.0.0    stable    chosen\n"
        );
    }
}
