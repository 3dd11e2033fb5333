//! The release a cluster runs, as written (`4.14`, `4.14.8`, `4.14.0-rc.1`): parsing and
//! naming; what the release is comes from the table ([`super::lookup`]), and so does the
//! Kubernetes version it ships ([`ClusterVersion::kube_minor`], beside the lookup).

/// An OpenShift release: `4.14`, `4.14.8` or `4.14.0-rc.1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterVersion {
    /// Major version (4).
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch, when given.
    pub patch: Option<u64>,
    /// The text as written.
    pub text: String,
}

impl ClusterVersion {
    /// Parse `X.Y`, `X.Y.Z` or `X.Y.Z-pre` (a leading `v` is accepted).
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let core = t.split(['-', '+']).next().unwrap_or("");
        let parts: Vec<&str> = core.split('.').collect();
        let num = |s: &str| -> Result<u64, String> {
            if s.is_empty() {
                Err(format!(
                    "\"{text}\" has an empty part; write a release like \"4.14\" or \"4.14.8\""
                ))
            } else if !s.bytes().all(|b| b.is_ascii_digit()) {
                Err(format!(
                    "\"{s}\" in \"{text}\" is not a number; write a release like \"4.14\" or \"4.14.8\""
                ))
            } else if s.len() > 1 && s.starts_with('0') {
                Err(format!(
                    "\"{s}\" in \"{text}\" starts with a zero, which release numbers do not; write \"{}\"",
                    match s.trim_start_matches('0') {
                        "" => "0",
                        rest => rest,
                    }
                ))
            } else {
                s.parse::<u64>().map_err(|_| {
                    format!("\"{s}\" in \"{text}\" is too large to be a release number")
                })
            }
        };
        if !(2..=3).contains(&parts.len()) {
            return Err(format!(
                "expected an OpenShift release like \"4.14\" or \"4.14.8\", found \"{text}\""
            ));
        }
        Ok(ClusterVersion {
            major: num(parts[0])?,
            minor: num(parts[1])?,
            patch: parts.get(2).map(|p| num(p)).transpose()?,
            text: text.trim().to_string(),
        })
    }

    /// `major.minor`.
    pub fn minor_text(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
}

impl std::fmt::Display for ClusterVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}
