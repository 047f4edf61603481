//! What the compiler reports: stable codes, severities, and where in the source.

use std::ops::Range;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

/// Declares a compiler's rule codes: one enum variant per rule with its stable id, its
/// severity and its title. The plan compiler (`P0nn`) and the design compiler (`D0nn`)
/// share it, so both keep one table per compiler and the same accessors.
macro_rules! rule_codes {
    (#[doc = $doc:literal] $($variant:ident = $id:literal, $severity:ident, $title:literal;)*) => {
        #[doc = $doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable id (`P001`, `D030`, ...).
            pub fn id(self) -> &'static str {
                match self { $(Code::$variant => $id,)* }
            }

            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// What the rule demands, in a few words (docs table, `--format json`).
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }
        }
    };
}
pub(crate) use rule_codes;

rule_codes! {
    #[doc = "One rule of the plan language. The `P0nn` id never changes meaning, so scripts, tests and the repair prompt can rely on it."]
    JsonSyntax = "P001", Error, "the file is valid JSON";
    MissingField = "P002", Error, "required fields are present";
    WrongType = "P003", Error, "every field has the expected JSON type";
    UnknownField = "P004", Warning, "no field outside the plan schema";
    DuplicateKey = "P005", Error, "no key twice in one object";
    EmptyGoal = "P006", Error, "the goal is not empty";
    NoStages = "P007", Error, "the plan has at least one stage";
    UnknownName = "P008", Error, "condition type and operator are known names";
    GoalNotOneSentence = "P009", Warning, "the goal is one sentence";
    StageIdNotSnakeCase = "P010", Error, "stage ids are snake_case (and not `done`)";
    DuplicateStageId = "P011", Error, "stage ids are unique";
    ProducesNotSnakeCase = "P012", Error, "`produces` ids are snake_case";
    DuplicateProduces = "P013", Error, "each artifact is produced once";
    UnknownKind = "P014", Error, "`kind` is a registered kind";
    NeedsLaterArtifact = "P015", Error, "`needs` names artifacts of strictly earlier stages";
    UnknownArtifact = "P016", Error, "no reference to an artifact nothing produces";
    ToolsOnReadOnlyStage = "P017", Error, "only file-writing stages list tools";
    UnknownTool = "P018", Error, "tools come from the four allowed";
    EmptyText = "P019", Warning, "role and prompt are not empty";
    UnknownEndpoint = "P020", Error, "edge ends are declared stages or `done`";
    ForeignArtifact = "P021", Error, "a condition tests its from-stage's artifact";
    UndeclaredField = "P022", Error, "a field condition tests a field its kind declares";
    ValueNotAllowed = "P023", Error, "a field condition compares a value the field can hold";
    LoopNotBackward = "P024", Error, "a review loop's `neq` edge goes back to an earlier stage";
    ApprovalGoesBack = "P025", Error, "a review loop's `eq` edge goes forward or to `done`";
    HalfLoop = "P026", Error, "a field condition has its `eq` and `neq` edges";
    AmbiguousEdges = "P027", Error, "no two edges leave a stage on the same condition";
    EdgeFromDone = "P028", Warning, "no edge leaves `done`";
    NoInbound = "P030", Error, "every stage but the first is entered from an earlier stage";
    NoOutbound = "P031", Error, "every stage has an outbound edge";
    Unreachable = "P032", Error, "every stage is reachable from the first";
    EarlyDone = "P033", Error, "only the end of the chain goes to `done`";
    NeverFinishes = "P034", Error, "every stage can reach `done`";
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        Code::from_id(&id).ok_or_else(|| serde::de::Error::custom(format!("unknown code {id}")))
    }
}

impl Code {
    pub fn from_id(id: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.id() == id)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// A place in the plan source: JSON pointer, 1-based line and column (in
/// characters), and the byte range for snippets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub start: usize,
    pub end: usize,
}

/// A second place a diagnostic refers to ("first declared here").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Related {
    pub message: String,
    #[serde(flatten)]
    pub location: Location,
}

/// One finding of the compiler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    #[serde(flatten)]
    pub location: Location,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// How to fix it, when the message alone does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic at `span`; line and column are filled in by [`LineIndex::locate_all`].
    pub fn new(
        code: Code,
        message: impl Into<String>,
        path: impl Into<String>,
        span: Range<usize>,
    ) -> Self {
        Diagnostic {
            severity: code.severity(),
            code,
            message: message.into(),
            location: Location {
                path: path.into(),
                line: 0,
                column: 0,
                start: span.start,
                end: span.end,
            },
            related: Vec::new(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_related(
        mut self,
        message: impl Into<String>,
        path: impl Into<String>,
        span: Range<usize>,
    ) -> Self {
        self.related.push(Related {
            message: message.into(),
            location: Location {
                path: path.into(),
                line: 0,
                column: 0,
                start: span.start,
                end: span.end,
            },
        });
        self
    }

    pub fn span(&self) -> Range<usize> {
        self.location.start..self.location.end
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// One line for logs and the repair prompt:
    /// `error[P015] line 12, column 18 (/stages/1/needs/0): ...`.
    pub fn one_line(&self) -> String {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut line = format!(
            "{severity}[{}] line {}, column {} ({}): {}",
            self.code, self.location.line, self.location.column, self.location.path, self.message
        );
        if let Some(help) = &self.help {
            line.push_str(" — ");
            line.push_str(help);
        }
        line
    }
}

/// Bytes per entry of [`LineIndex`]'s character counts.
const CHAR_BLOCK: usize = 256;

/// Byte offset to line/column, built once per source. Each lookup costs the same
/// however long the line: a model may write a whole plan on one line, and counting
/// characters from the line start for each of 200,000 diagnostics was quadratic.
pub struct LineIndex<'s> {
    source: &'s str,
    starts: Vec<usize>,
    /// Characters before each block of [`CHAR_BLOCK`] bytes; empty for ASCII sources,
    /// where a column is a byte count.
    chars_before: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    pub fn new(source: &'s str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1));
        let chars_before = if source.is_ascii() {
            Vec::new()
        } else {
            let mut total = 0;
            source
                .as_bytes()
                .chunks(CHAR_BLOCK)
                .map(|block| {
                    let before = total;
                    total += chars_in(block);
                    before
                })
                .collect()
        };
        LineIndex {
            source,
            starts,
            chars_before,
        }
    }

    /// Characters before byte `offset` (a character boundary or not).
    fn chars_to(&self, offset: usize) -> usize {
        let block = offset / CHAR_BLOCK;
        let base = self.chars_before.get(block).copied().unwrap_or(0);
        base + chars_in(&self.source.as_bytes()[block * CHAR_BLOCK..offset])
    }

    /// 1-based line and column; the column counts characters, as editors do.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.source.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column = if self.chars_before.is_empty() {
            offset - start
        } else {
            self.chars_to(offset) - self.chars_to(start)
        };
        (line + 1, column + 1)
    }

    fn fill(&self, location: &mut Location) {
        (location.line, location.column) = self.locate(location.start);
    }

    pub fn locate_all(&self, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            self.fill(&mut d.location);
            for r in &mut d.related {
                self.fill(&mut r.location);
            }
        }
    }
}

/// Characters in `bytes`: every byte that does not continue a UTF-8 sequence.
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// JSON pointer segment escaping (RFC 6901).
pub fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        let mut ids: Vec<_> = Code::ALL.iter().map(|c| c.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), Code::ALL.len());
        for c in Code::ALL {
            assert_eq!(Code::from_id(c.id()), Some(*c));
            let json = serde_json::to_string(c).unwrap();
            assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), *c);
        }
    }

    #[test]
    fn line_index_columns_match_counting_from_the_line_start() {
        let source = format!("{}\n{}é→x\n", "ab".repeat(300), "ü".repeat(500));
        let index = LineIndex::new(&source);
        for (offset, _) in source.char_indices() {
            let start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
            let line = source[..offset].matches('\n').count() + 1;
            let column = source[start..offset].chars().count() + 1;
            assert_eq!(index.locate(offset), (line, column), "offset {offset}");
        }
    }

    #[test]
    fn line_index_counts_characters() {
        let src = "ab\n\"é\"x\n\nz";
        let idx = LineIndex::new(src);
        assert_eq!(idx.locate(0), (1, 1));
        assert_eq!(idx.locate(3), (2, 1));
        assert_eq!(idx.locate(src.find('x').unwrap()), (2, 4));
        assert_eq!(idx.locate(src.find('z').unwrap()), (4, 1));
        assert_eq!(idx.locate(src.len()), (4, 2));
    }

    #[test]
    fn pointer_segments_escape() {
        assert_eq!(pointer_segment("a/b~c"), "a~1b~0c");
    }
}
