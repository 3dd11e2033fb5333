//! A [`Plan`] as prose ([`text`]) or as a picture ([`mermaid`], [`dot`]): pure functions, so
//! the planner's data never depends on the wording. Text from the update graph (risk names,
//! messages, queries) is untrusted and printed through [`crate::text::printable`].

use std::fmt::Write as _;

use super::compat::Compatibility;
use super::graph::{EdgeKind, Risk};
use super::{Blocker, BundleRef, Change, Hop, Plan, Reason, Step};
use crate::diagram::{self, Diagram, Edge, Line, Mark, Node};
use crate::resolve::explain;
use crate::table::{self, Width};
use crate::text::printable;

/// A risk's rules in words: `Always`, or the PromQL query to evaluate on the cluster.
pub fn risk_rules(r: &Risk) -> Vec<String> {
    r.rules
        .iter()
        .map(|rule| match (rule.kind.as_str(), &rule.promql) {
            ("Always", _) => "Always: applies to every cluster".to_string(),
            (_, Some(q)) => format!(
                "{}: evaluate on the cluster: {}",
                printable(&rule.kind),
                printable(&q.split_whitespace().collect::<Vec<_>>().join(" "))
            ),
            (kind, None) => format!("{}: evaluate on the cluster", printable(kind)),
        })
        .collect()
}

fn hop_kind(hop: &Hop) -> String {
    let mut s = hop.change.describe().to_string();
    if let Some(e) = hop.edge {
        s.push_str(", ");
        s.push_str(e.word());
    }
    if hop.control_plane_only {
        s.push_str("; control plane only, worker pools paused");
    }
    s
}

/// The update graph section: whether it was checked, EUS, the path as one line per hop with
/// its risks, each risk in full, and with `explain` why the path won.
fn graph_section(out: &mut String, plan: &Plan, explain: bool, width: Width) {
    let g = &plan.update_graph;
    if g.checked {
        let channels = if g.channels.is_empty() {
            String::new()
        } else {
            format!(
                " (channel{} {})",
                if g.channels.len() == 1 { "" } else { "s" },
                printable(&g.channels.join(", "))
            )
        };
        let _ = writeln!(out, "Update graph: checked{channels}");
    } else {
        prose(
            out,
            "Update graph: ",
            "  ",
            "not checked: the hops are one per minor, through releases not checked against OpenShift's update edges (give --update-graph FILE|URL to follow them)",
            width,
        );
    }
    if let Some(e) = &plan.eus {
        prose(
            out,
            "EUS-to-EUS: ",
            "  ",
            &format!(
                "{} → {}: pause the worker pools; the control plane passes {} and goes on to {}; then unpause the workers, which update from {} to {} at once",
                e.from, e.to, e.via, e.to, e.from, e.to
            ),
            width,
        );
    }
    if g.checked && !plan.hops.is_empty() {
        let _ = writeln!(out, "Path:");
        let rows: Vec<Vec<String>> = plan
            .hops
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let risks: Vec<&str> = h.risks.iter().map(|r| r.name.as_str()).collect();
                vec![
                    (i + 1).to_string(),
                    h.from.clone(),
                    h.to.clone(),
                    h.edge.map(EdgeKind::word).unwrap_or("-").to_string(),
                    if risks.is_empty() {
                        "-".into()
                    } else {
                        risks.join(", ")
                    },
                    h.release
                        .as_ref()
                        .map(|r| r.image.clone())
                        .filter(|i| !i.is_empty())
                        .unwrap_or_else(|| "-".into()),
                ]
            })
            .collect();
        let columns = [
            table::Column::new("HOP"),
            table::Column::new("FROM"),
            table::Column::new("TO"),
            table::Column::new("EDGE"),
            table::Column::prose("RISKS"),
            table::Column::new("RELEASE IMAGE"),
        ];
        for line in table::render(&columns, &rows, width).lines() {
            let _ = writeln!(out, "  {line}");
        }
        for (i, h) in plan.hops.iter().enumerate() {
            for r in &h.risks {
                prose(
                    out,
                    "  risk: ",
                    "    ",
                    &format!(
                        "hop {} ({} → {}): {}: {} ({})",
                        i + 1,
                        h.from,
                        h.to,
                        printable(&r.name),
                        printable(&r.message),
                        printable(&r.url)
                    ),
                    width,
                );
                for rule in risk_rules(r) {
                    prose(out, "    ", "      ", &rule, width);
                }
            }
        }
    }
    if explain {
        for w in &g.why {
            prose(out, "  why: ", "    ", w, width);
        }
    }
}

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
        Reason::FollowsChannel { channel } if channel.is_empty() => {
            "OLM v0: the Subscription follows its channels in the new catalog".into()
        }
        Reason::FollowsChannel { channel } => {
            format!("OLM v0: the Subscription follows channel {channel} in the new catalog")
        }
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
/// reconcile's candidate table follows its step. The plan's warnings are not in it: the
/// command says them on stderr.
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
    graph_section(&mut out, plan, explain, width);
    let mut n = 0;
    for (i, hop) in plan.hops.iter().enumerate() {
        let _ = writeln!(out);
        prose(
            &mut out,
            &format!("Hop {}: ", i + 1),
            "  ",
            &format!("{} → {} ({})", hop.from, hop.to, hop_kind(hop)),
            width,
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
            let version = |b: &Option<BundleRef>| {
                b.as_ref()
                    .map(|b| b.version.clone())
                    .unwrap_or_else(|| "-".into())
            };
            let name = |b: &Option<BundleRef>| {
                b.as_ref()
                    .map(|b| b.bundle.clone())
                    .unwrap_or_else(|| "-".into())
            };
            vec![
                o.name.clone(),
                o.package.clone(),
                match o.subscription {
                    Some(approval) => format!("OLM v0 {approval}"),
                    None => o.policy.to_string(),
                },
                version(&o.installed),
                version(&o.planned),
                name(&o.installed),
                name(&o.planned),
            ]
        })
        .collect();
    // Versions fit; the bundle names (long, and whole) only with -o wide.
    out.push_str(&table::render(
        &[
            table::Column::new("OPERATOR"),
            table::Column::new("PACKAGE"),
            table::Column::prose("UPGRADE"),
            table::Column::new("INSTALLED"),
            table::Column::new("PLANNED"),
            table::Column::wide("INSTALLED BUNDLE"),
            table::Column::wide("PLANNED BUNDLE"),
        ],
        &rows,
        width,
    ));
    out
}

fn release_id(version: &str) -> String {
    format!("release {version}")
}

/// The plan as a diagram: releases as nodes, hops as edges labelled with how the update graph
/// recommends them (and their risks), the operator moves before and after each hop as notes,
/// and each blocking operator in red.
pub fn diagram(plan: &Plan) -> Diagram {
    let mut d = Diagram {
        title: format!("upgrade plan {} to {}", plan.from, plan.to),
        ..Default::default()
    };
    let first = plan
        .hops
        .first()
        .map(|h| h.from.clone())
        .unwrap_or_else(|| plan.from.clone());
    d.nodes.push(Node {
        id: release_id(&first),
        label: vec![first.clone(), "current".into()],
        mark: Mark::Plain,
    });
    let moves = |steps: &[Step]| -> Vec<String> {
        steps
            .iter()
            .map(|s| {
                format!(
                    "{}: {} → {}",
                    s.operator,
                    s.from
                        .as_ref()
                        .map(|f| f.version.as_str())
                        .unwrap_or("not installed"),
                    s.to.version
                )
            })
            .collect()
    };
    for (i, hop) in plan.hops.iter().enumerate() {
        let blocked = !hop.blockers.is_empty();
        let mut label = vec![hop.to.clone()];
        if hop.control_plane_only {
            label.push("control plane only".into());
        }
        if i + 1 == plan.hops.len() && !blocked {
            label.push("target".into());
        }
        d.nodes.push(Node {
            id: release_id(&hop.to),
            label,
            mark: if hop.risks.is_empty() {
                Mark::Plain
            } else {
                Mark::Risk
            },
        });
        let mut edge_label = match hop.edge {
            Some(e) => e.word().to_string(),
            None => hop.change.describe().to_string(),
        };
        if !hop.risks.is_empty() {
            let names: Vec<&str> = hop.risks.iter().map(|r| r.name.as_str()).collect();
            edge_label.push_str(": ");
            edge_label.push_str(&names.join(", "));
        }
        if blocked {
            edge_label = format!("blocked ({edge_label})");
        }
        d.edges.push(Edge {
            from: release_id(&hop.from),
            to: release_id(&hop.to),
            label: edge_label,
            line: if blocked {
                Line::Blocked
            } else if hop.edge.is_some_and(|e| e != EdgeKind::Recommended) {
                Line::Dashed
            } else {
                Line::Solid
            },
        });
        // The operator moves before and after the hop, as notes on its releases.
        for (when, steps, release) in [
            ("before", &hop.before, &hop.from),
            ("after", &hop.after, &hop.to),
        ] {
            if steps.is_empty() {
                continue;
            }
            let id = format!("{when} hop {}", i + 1);
            let mut label = vec![format!("{id}:")];
            label.extend(moves(steps));
            d.nodes.push(Node {
                id: id.clone(),
                label,
                mark: Mark::Note,
            });
            let (from, to) = if when == "before" {
                (id, release_id(release))
            } else {
                (release_id(release), id)
            };
            d.edges.push(Edge {
                from,
                to,
                label: String::new(),
                line: Line::Attach,
            });
        }
        for (k, b) in hop.blockers.iter().enumerate() {
            let id = format!("blocker {} {}", i + 1, k + 1);
            let mut label = vec![
                "Upgradeable=False".to_string(),
                format!("{} ({}) {}", b.operator, b.package, b.installed.version),
            ];
            label.push(compatibility_phrase(&b.compatibility));
            d.nodes.push(Node {
                id: id.clone(),
                label,
                mark: Mark::Blocked,
            });
            d.edges.push(Edge {
                from: id,
                to: release_id(&hop.to),
                label: "blocks".into(),
                line: Line::Attach,
            });
        }
    }
    d
}

/// The plan as a Mermaid flowchart ([`diagram`]).
pub fn mermaid(plan: &Plan) -> String {
    diagram::mermaid(&diagram(plan))
}

/// The plan as a Graphviz DOT digraph ([`diagram`]).
pub fn dot(plan: &Plan) -> String {
    diagram::dot(&diagram(plan))
}

/// A line of prose after `first`, wrapped to `width` with `rest` before each further line.
fn prose(out: &mut String, first: &str, rest: &str, text: &str, width: Width) {
    match width {
        Width::Full => {
            let _ = writeln!(out, "{first}{text}");
        }
        Width::Fit(w) => {
            let options = table::wrap_options(w.max(20))
                .initial_indent(first)
                .subsequent_indent(rest);
            let _ = writeln!(out, "{}", textwrap::fill(text, options));
        }
    }
}
