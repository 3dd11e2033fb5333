//! A [`Plan`] as prose: pure functions, so the planner's data never depends on the wording.

use std::fmt::Write as _;

use super::compat::Compatibility;
use super::{Blocker, BundleRef, Change, Plan, Reason, Step};
use crate::resolve::explain;
use crate::table::{self, Width};

/// Why a bundle is not compatible, as a phrase ("has olm.maxOpenShiftVersion 4.14").
pub fn compatibility_phrase(c: &Compatibility) -> String {
    match c {
        Compatibility::Compatible => "is compatible".into(),
        Compatibility::MaxOpenShiftVersion { max } => {
            format!("has olm.maxOpenShiftVersion {max}")
        }
        Compatibility::InvalidMaxOpenShiftVersion { reason } => {
            format!("has an unusable olm.maxOpenShiftVersion ({reason})")
        }
        Compatibility::MinKubeVersion { min, kube } => {
            format!("needs Kubernetes {min} (minKubeVersion), newer than the release's {kube}")
        }
    }
}

/// The `Upgradeable=False` message for one blocker: the operator, its installed version, its
/// maximum OpenShift version, and what would unblock it.
pub fn blocker_message(b: &Blocker) -> String {
    let mut s = format!(
        "Upgradeable=False: platform operator \"{}\" (package {}) blocks the upgrade from {} to {}: the installed {} {} {}, and no version reachable from it supports both {} and {}",
        b.operator,
        b.package,
        b.current,
        b.target,
        b.installed.bundle,
        b.installed.version,
        compatibility_phrase(&b.compatibility),
        b.current,
        b.target,
    );
    if b.max_open_shift_version.is_none()
        && matches!(b.compatibility, Compatibility::MinKubeVersion { .. })
    {
        s.push_str(" (it declares no olm.maxOpenShiftVersion)");
    }
    s.push_str(". To unblock: ");
    s.push_str(&b.unblock.join("; "));
    s
}

fn bundle(b: &BundleRef) -> String {
    format!("{} ({})", b.version, b.bundle)
}

fn step_line(out: &mut String, n: usize, s: &Step, width: Width) {
    let from = s
        .from
        .as_ref()
        .map(|f| f.version.clone())
        .unwrap_or_else(|| "not installed".into());
    let head = format!("  {n}. ");
    let text = format!("{} ({}): {from} → {}", s.operator, s.package, s.to.version);
    prose(out, &head, "     ", &text, width);
    let chain: Vec<String> = s.chain.iter().map(|b| b.bundle.clone()).collect();
    prose(
        out,
        "     OLM installs: ",
        "       ",
        &chain.join(" → "),
        width,
    );
    let why = match &s.reason {
        Reason::IncompatibleWithTarget {
            target,
            compatibility,
        } => format!(
            "{} {}, not compatible with {target}",
            s.from.as_ref().map(|f| f.version.as_str()).unwrap_or(""),
            compatibility_phrase(compatibility)
        ),
        Reason::FollowsCluster { policy } => format!("upgrade: {policy}"),
        Reason::NoLongerFits { why } => why.clone(),
        Reason::NotInstalled => "not installed yet".into(),
    };
    prose(out, "     why: ", "       ", &why, width);
    if let Some(v) = &s.version {
        prose(out, "     version range: ", "       ", v, width);
    }
    if let Some(r) = &s.requires {
        prose(out, "     requires: ", "       ", r, width);
    }
}

/// The plan as text, fitted to `width`: tables fitted, prose wrapped. With `explain`, each
/// reconcile's candidate table follows its step.
pub fn text(plan: &Plan, explain: bool, width: Width) -> String {
    // Candidate tables stand indented under their step.
    let indented = match width {
        Width::Fit(w) => Width::Fit(w.saturating_sub(7)),
        Width::Full => Width::Full,
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Upgrade plan: OpenShift {} → {} ({})",
        plan.from,
        plan.to,
        plan.change.describe()
    );
    let _ = writeln!(
        out,
        "Upgradeable: {}",
        if plan.upgradeable { "True" } else { "False" }
    );
    for b in &plan.cluster_blockers {
        prose(&mut out, "  reason: ", "    ", &b.reason, width);
        prose(&mut out, "  way out: ", "    ", &b.way_out, width);
    }
    let mut n = 0;
    for (i, hop) in plan.hops.iter().enumerate() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Hop {}: {} → {} ({})",
            i + 1,
            hop.from,
            hop.to,
            hop.change.describe()
        );
        let mut section = |out: &mut String, title: &str, steps: &[Step]| {
            if steps.is_empty() {
                return;
            }
            let _ = writeln!(out, "{title}");
            for s in steps {
                n += 1;
                step_line(out, n, s, width);
                if explain {
                    for (k, table) in s.reconciles.iter().enumerate() {
                        let _ = writeln!(out, "     reconcile {}:", k + 1);
                        for line in explain::table(table, indented).lines() {
                            let _ = writeln!(out, "       {line}");
                        }
                    }
                }
            }
        };
        section(&mut out, "Before the cluster upgrade:", &hop.before);
        if !hop.blockers.is_empty() {
            let _ = writeln!(out, "Blocked:");
            for b in &hop.blockers {
                prose(&mut out, "  - ", "    ", &b.message, width);
            }
            continue;
        }
        if hop.change != Change::None {
            let _ = writeln!(out, "Cluster: {} → {}", hop.from, hop.to);
        }
        if hop.after.is_empty() {
            let _ = writeln!(out, "After the cluster upgrade: no operator moves");
        }
        section(&mut out, "After the cluster upgrade:", &hop.after);
        if explain && !hop.stays.is_empty() {
            let _ = writeln!(out, "Staying:");
            for s in &hop.stays {
                let text = format!(
                    "{} ({}): stays on {}",
                    s.operator,
                    s.package,
                    bundle(&s.bundle)
                );
                prose(&mut out, "  - ", "    ", &text, width);
                if let Some(v) = &s.version {
                    prose(&mut out, "     version range: ", "       ", v, width);
                }
                for (k, table) in s.reconciles.iter().enumerate() {
                    let _ = writeln!(out, "     reconcile {}:", k + 1);
                    for line in explain::table(table, indented).lines() {
                        let _ = writeln!(out, "       {line}");
                    }
                }
            }
        }
    }
    let _ = writeln!(out);
    let rows: Vec<Vec<String>> = plan
        .operators
        .iter()
        .map(|o| {
            let v = |b: &Option<BundleRef>| b.as_ref().map(bundle).unwrap_or_else(|| "-".into());
            vec![
                o.name.clone(),
                o.package.clone(),
                o.policy.to_string(),
                v(&o.installed),
                v(&o.planned),
            ]
        })
        .collect();
    out.push_str(&table::render(
        &table::columns(["OPERATOR", "PACKAGE", "UPGRADE", "INSTALLED", "PLANNED"]),
        &rows,
        width,
    ));
    for w in &plan.warnings {
        prose(&mut out, "warning: ", "  ", w, width);
    }
    out
}

/// A line of prose after `first`, wrapped to `width` with `rest` before each further line.
fn prose(out: &mut String, first: &str, rest: &str, text: &str, width: Width) {
    match width {
        Width::Full => {
            let _ = writeln!(out, "{first}{text}");
        }
        Width::Fit(w) => {
            let options = textwrap::Options::new(w.max(20))
                .initial_indent(first)
                .subsequent_indent(rest);
            let _ = writeln!(out, "{}", textwrap::fill(text, options));
        }
    }
}
