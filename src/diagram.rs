//! Pictures as text: one small graph model ([`Diagram`]) written as a Mermaid flowchart
//! ([`mermaid`]) or as Graphviz DOT ([`dot`]). Labels come from catalogs, update graphs and
//! configurations, so each writer first writes every character [`crate::text::is_unsafe`]
//! names (newlines, terminal escapes, bidirectional controls, line separators) as
//! [`crate::text::printable`] does (`\u{202e}`), then escapes the result for its own grammar:
//! nothing in a label can end a quoted string, open a new statement, reorder or drive a
//! terminal, and in Mermaid nothing can form a directive (`%%{init: …}%%`, which Mermaid
//! applies wherever it appears in the text), since `%`, `{` and `}` are entity codes. Used by `upgrade-plan -o mermaid|dot` and `catalog
//! list channels -o mermaid|dot`.

use std::fmt::Write as _;

/// How a node is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// A plain node.
    Plain,
    /// A channel head.
    Head,
    /// Deprecated.
    Deprecated,
    /// What blocks (drawn red).
    Blocked,
    /// A note beside the path (operator moves).
    Note,
    /// A release the path passes with a risk.
    Risk,
}

impl Mark {
    fn class(self) -> Option<&'static str> {
        match self {
            Mark::Plain => None,
            Mark::Head => Some("head"),
            Mark::Deprecated => Some("deprecated"),
            Mark::Blocked => Some("blocked"),
            Mark::Note => Some("note"),
            Mark::Risk => Some("risk"),
        }
    }

    fn fill(self) -> &'static str {
        match self {
            Mark::Plain => "#ffffff",
            Mark::Head => "#ffbfcf",
            Mark::Deprecated => "#e8960f",
            Mark::Blocked => "#ff6666",
            Mark::Note => "#eeeeee",
            Mark::Risk => "#ffe08a",
        }
    }
}

/// How an edge is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A solid arrow.
    Solid,
    /// A dashed arrow.
    Dashed,
    /// A dotted line without an arrow head (a note attached to a node).
    Attach,
    /// A solid line ending in a cross (a hop that does not happen).
    Blocked,
}

/// One node.
#[derive(Debug, Clone)]
pub struct Node {
    /// Identifier, unique in the diagram (any text: writers make it safe).
    pub id: String,
    /// Label lines.
    pub label: Vec<String>,
    /// Marking.
    pub mark: Mark,
}

/// One edge.
#[derive(Debug, Clone)]
pub struct Edge {
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
    /// Label (may be empty).
    pub label: String,
    /// Drawing.
    pub line: Line,
}

/// A titled group of nodes (a package, a channel); groups nest.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Identifier.
    pub id: String,
    /// Title.
    pub label: String,
    /// Nodes drawn inside it.
    pub nodes: Vec<Node>,
    /// Groups inside it.
    pub groups: Vec<Group>,
}

/// A diagram: top-level nodes, groups and edges, drawn left to right.
#[derive(Debug, Clone, Default)]
pub struct Diagram {
    /// Title (a Mermaid comment, the DOT graph's name).
    pub title: String,
    /// Nodes outside any group.
    pub nodes: Vec<Node>,
    /// Groups.
    pub groups: Vec<Group>,
    /// Edges, in drawing order.
    pub edges: Vec<Edge>,
}

/// An identifier that both grammars accept unquoted: ASCII letters, digits and `_`, never
/// starting with a digit; different inputs stay different (other bytes are written as hex).
pub fn safe_id(id: &str) -> String {
    let mut out = String::from("n_");
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c == '.' || c == '-' {
            // Common in versions and names: short and still unambiguous.
            out.push(if c == '.' { 'D' } else { 'H' });
            out.push('_');
        } else {
            let _ = write!(out, "_{:x}_", c as u32);
        }
    }
    out
}

/// A label for a quoted Mermaid string: unsafe characters escaped ([`crate::text::printable`]),
/// then `"`, `#`, `<`, `>`, `%`, `{`, `}` as entity codes (no directive, no comment, no end of
/// the string can be written).
fn mermaid_text(text: &str) -> String {
    let text = crate::text::printable(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '%' => out.push_str("#37;"),
            '{' => out.push_str("#123;"),
            '}' => out.push_str("#125;"),
            c => out.push(c),
        }
    }
    out
}

fn mermaid_label(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| mermaid_text(l))
        .collect::<Vec<_>>()
        .join("<br/>")
}

/// The diagram as a Mermaid flowchart (`graph LR`).
pub fn mermaid(d: &Diagram) -> String {
    let mut out = String::from("graph LR\n");
    if !d.title.is_empty() {
        let _ = writeln!(out, "  %% {}", mermaid_text(&d.title));
    }
    fn node(out: &mut String, n: &Node, indent: &str) {
        let _ = write!(
            out,
            "{indent}{}[\"{}\"]",
            safe_id(&n.id),
            mermaid_label(&n.label)
        );
        if let Some(c) = n.mark.class() {
            let _ = write!(out, ":::{c}");
        }
        out.push('\n');
    }
    fn group(out: &mut String, g: &Group, depth: usize) {
        let indent = "  ".repeat(depth);
        let _ = writeln!(
            out,
            "{indent}subgraph {}[\"{}\"]",
            safe_id(&g.id),
            mermaid_text(&g.label)
        );
        for n in &g.nodes {
            node(out, n, &"  ".repeat(depth + 1));
        }
        for inner in &g.groups {
            group(out, inner, depth + 1);
        }
        let _ = writeln!(out, "{indent}end");
    }
    for n in &d.nodes {
        node(&mut out, n, "  ");
    }
    for g in &d.groups {
        group(&mut out, g, 1);
    }
    for e in &d.edges {
        let (a, b) = (safe_id(&e.from), safe_id(&e.to));
        let label = mermaid_text(&e.label);
        let _ = match (e.line, label.is_empty()) {
            (Line::Solid, true) => writeln!(out, "  {a} --> {b}"),
            (Line::Solid, false) => writeln!(out, "  {a} -- \"{label}\" --> {b}"),
            (Line::Dashed, true) => writeln!(out, "  {a} -.-> {b}"),
            (Line::Dashed, false) => writeln!(out, "  {a} -. \"{label}\" .-> {b}"),
            (Line::Attach, true) => writeln!(out, "  {a} -.- {b}"),
            (Line::Attach, false) => writeln!(out, "  {a} -. \"{label}\" .- {b}"),
            (Line::Blocked, true) => writeln!(out, "  {a} --x {b}"),
            (Line::Blocked, false) => writeln!(out, "  {a} -- \"{label}\" --x {b}"),
        };
    }
    for mark in used_marks(d) {
        if let Some(c) = mark.class() {
            let extra = if mark == Mark::Blocked {
                ",stroke:#cc0000,color:#000000"
            } else {
                ""
            };
            let _ = writeln!(out, "  classDef {c} fill:{}{extra}", mark.fill());
        }
    }
    out
}

fn used_marks(d: &Diagram) -> Vec<Mark> {
    fn walk(g: &Group, out: &mut Vec<Mark>) {
        out.extend(g.nodes.iter().map(|n| n.mark));
        for inner in &g.groups {
            walk(inner, out);
        }
    }
    let mut marks: Vec<Mark> = d.nodes.iter().map(|n| n.mark).collect();
    for g in &d.groups {
        walk(g, &mut marks);
    }
    marks.sort();
    marks.dedup();
    marks
}

/// A DOT string literal's content: unsafe characters escaped ([`crate::text::printable`]),
/// then `\` and `"` escaped.
fn dot_text(text: &str) -> String {
    let text = crate::text::printable(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}

/// The diagram as a Graphviz `digraph`, left to right.
pub fn dot(d: &Diagram) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_text(&d.title));
    out.push_str(
        "  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\"];\n",
    );
    fn node(out: &mut String, n: &Node, indent: &str) {
        let label = n
            .label
            .iter()
            .map(|l| dot_text(l))
            .collect::<Vec<_>>()
            .join("\\n");
        let _ = write!(out, "{indent}{} [label=\"{label}\"", safe_id(&n.id));
        if n.mark != Mark::Plain {
            let _ = write!(out, ", fillcolor=\"{}\"", n.mark.fill());
        }
        if n.mark == Mark::Blocked {
            out.push_str(", color=\"#cc0000\", penwidth=2");
        }
        if n.mark == Mark::Note {
            out.push_str(", shape=note");
        }
        out.push_str("];\n");
    }
    fn group(out: &mut String, g: &Group, depth: usize) {
        let indent = "  ".repeat(depth);
        let _ = writeln!(out, "{indent}subgraph cluster_{} {{", safe_id(&g.id));
        let _ = writeln!(out, "{indent}  label=\"{}\";", dot_text(&g.label));
        for n in &g.nodes {
            node(out, n, &"  ".repeat(depth + 1));
        }
        for inner in &g.groups {
            group(out, inner, depth + 1);
        }
        let _ = writeln!(out, "{indent}}}");
    }
    for n in &d.nodes {
        node(&mut out, n, "  ");
    }
    for g in &d.groups {
        group(&mut out, g, 1);
    }
    for e in &d.edges {
        let mut attrs = Vec::new();
        if !e.label.is_empty() {
            attrs.push(format!("label=\"{}\"", dot_text(&e.label)));
        }
        match e.line {
            Line::Solid => {}
            Line::Dashed => attrs.push("style=dashed".into()),
            Line::Attach => attrs.push("style=dotted, arrowhead=none".into()),
            Line::Blocked => attrs.push("color=\"#cc0000\", arrowhead=tee".into()),
        }
        let _ = write!(out, "  {} -> {}", safe_id(&e.from), safe_id(&e.to));
        if !attrs.is_empty() {
            let _ = write!(out, " [{}]", attrs.join(", "));
        }
        out.push_str(";\n");
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(label: &str) -> Diagram {
        Diagram {
            title: label.into(),
            nodes: vec![
                Node {
                    id: "4.16.3".into(),
                    label: vec![label.into(), "second".into()],
                    mark: Mark::Plain,
                },
                Node {
                    id: "x\"y".into(),
                    label: vec!["b".into()],
                    mark: Mark::Blocked,
                },
            ],
            groups: vec![Group {
                id: "g".into(),
                label: label.into(),
                nodes: vec![Node {
                    id: "in".into(),
                    label: vec!["in".into()],
                    mark: Mark::Head,
                }],
                groups: Vec::new(),
            }],
            edges: vec![Edge {
                from: "4.16.3".into(),
                to: "x\"y".into(),
                label: label.into(),
                line: Line::Dashed,
            }],
        }
    }

    #[test]
    fn ids_are_plain_and_distinct() {
        assert_eq!(safe_id("4.16.3"), "n_4D_16D_3");
        assert_ne!(safe_id("a.b"), safe_id("a-b"));
        assert_ne!(safe_id("a_b"), safe_id("a b"));
        assert!(
            safe_id("x\"y\n;")
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        );
    }

    #[test]
    fn hostile_labels_cannot_end_a_string_or_a_line() {
        let hostile = "a\"] --> evil[\"x\n\u{1b}[31m#<b>\\";
        let m = mermaid(&sample(hostile));
        for line in m.lines() {
            // Every quote in a line is one the writer put there: an even number.
            assert_eq!(line.matches('"').count() % 2, 0, "{line}");
            assert!(!line.contains('\u{1b}'), "{line}");
        }
        assert!(!m.contains("evil[\"x"), "{m}");
        assert!(m.contains("#quot;"), "{m}");
        let d = dot(&sample(hostile));
        assert!(!d.contains('\u{1b}'));
        assert!(d.contains("a\\\"] --> evil[\\\"x"), "{d}");
        // Lines: one per statement, the label's newline dropped.
        assert_eq!(d.lines().count(), dot(&sample("plain")).lines().count());
    }

    /// Issue 34 item 8: a label holding a Mermaid directive (`%%{init: …}%%`) or a comment
    /// cannot form one: `%`, `{`, `}` are entity codes, in labels, titles and edges alike; and
    /// bidirectional controls and line separators are escaped in both pictures (item 7).
    #[test]
    fn directives_and_bidi_controls_in_labels_are_escaped() {
        let hostile = "%%{init: {'theme':'dark','themeCSS':'.edgeLabel{display:none}'}}%%\u{202e}\u{2066}\u{2028}x";
        let m = mermaid(&sample(hostile));
        assert!(!m.contains("%%{"), "{m}");
        assert!(!m.contains('{') && !m.contains('}'), "{m}");
        // The only `%` left open a line, as the writer's own comment.
        for line in m.lines() {
            let rest = line.trim_start().strip_prefix("%%").unwrap_or(line);
            assert!(!rest.contains('%'), "{line}");
        }
        assert!(
            m.contains("#37;#37;#123;init: #123;'theme':'dark','themeCSS':'.edgeLabel#123;display:none#125;'#125;#125;#37;#37;\\u#123;202e#125;\\u#123;2066#125;\\u#123;2028#125;x"),
            "{m}"
        );
        let d = dot(&sample(hostile));
        for picture in [&m, &d] {
            assert!(
                !picture
                    .chars()
                    .any(|c| c != '\n' && crate::text::is_unsafe(c)),
                "{picture:?}"
            );
        }
        assert!(d.contains("\\\\u{202e}\\\\u{2066}\\\\u{2028}x"), "{d}");
    }

    #[test]
    fn classes_are_defined_for_the_marks_used() {
        let m = mermaid(&sample("l"));
        assert!(m.contains("classDef blocked fill:#ff6666"), "{m}");
        assert!(m.contains("classDef head"), "{m}");
        assert!(!m.contains("classDef deprecated"), "{m}");
    }
}
