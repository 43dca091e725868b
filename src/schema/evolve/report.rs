//! What planning a resolution found, without data: every difference
//! between two schemas with its rule and verdict (`spec/12-evolution.md`,
//! 12.7).

use std::fmt;

use crate::schema::Fingerprint;

// ---------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------

/// Whether a difference lets the writer's data be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Verdict {
    /// Every value reads.
    Allowed,
    /// Reads unless the data holds what the reader cannot take (a variant
    /// it lacks), or if the reader's type gives a default the text cannot
    /// show ([`check_texts`](crate::schema::check_texts)).
    Conditional,
    /// No value can be read: the resolution is refused before the first.
    Refused,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Verdict::Allowed => "allowed",
            Verdict::Conditional => "conditional",
            Verdict::Refused => "refused",
        })
    }
}

/// One difference between the writer's schema and the reader's, with the
/// rule of `spec/12-evolution.md` (12.3) that decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Where, in the reader's names (`Job.retries`, `Shape::Circle.r`,
    /// `Log.events[]`).
    pub path: String,
    /// The rule's stable name (`field-added-default`, `int-widened`, ...).
    pub rule: &'static str,
    /// What the rule says.
    pub verdict: Verdict,
    /// The writer's side, as schema text (empty when it has none).
    pub writer: String,
    /// The reader's side, as schema text (empty when it has none).
    pub reader: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |s: &str| {
            if s.is_empty() {
                "-".to_owned()
            } else {
                s.to_owned()
            }
        };
        write!(
            f,
            "{:<11} {:<22} {}: {} -> {}",
            self.verdict,
            self.rule,
            self.path,
            side(&self.writer),
            side(&self.reader)
        )
    }
}

/// Every difference between a writer's schema and a reader's, and whether
/// the reader can read the writer's data ([`check`](crate::schema::check)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The writer's fingerprint.
    pub writer: Fingerprint,
    /// The reader's fingerprint.
    pub reader: Fingerprint,
    /// The differences, in the order of the reader's type.
    pub differences: Vec<Difference>,
}

impl Report {
    /// Whether no difference is refused: every frame of the writer's reads,
    /// except perhaps for the [`Verdict::Conditional`] ones.
    pub fn is_compatible(&self) -> bool {
        self.differences
            .iter()
            .all(|d| d.verdict != Verdict::Refused)
    }

    /// The refused differences.
    pub fn refusals(&self) -> impl Iterator<Item = &Difference> {
        self.differences
            .iter()
            .filter(|d| d.verdict == Verdict::Refused)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "writer {} -> reader {}", self.writer, self.reader)?;
        if self.differences.is_empty() {
            writeln!(f, "same schema")?;
        }
        for d in &self.differences {
            writeln!(f, "{d}")?;
        }
        let verdict = if self.is_compatible() {
            "compatible"
        } else {
            "incompatible"
        };
        write!(f, "{verdict}")
    }
}
