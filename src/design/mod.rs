//! The five design artifacts: what they are called, how they are parsed out of a
//! reasoner's response, and how they are written to `design/`.

pub mod changes;
pub mod diagram;
pub mod edit;
pub mod lint;
pub(crate) mod marker;
pub(crate) mod merge;
pub mod model;
pub mod parser;
pub(crate) mod questions;
pub mod settled;
pub mod write;

use serde::{Deserialize, Serialize};

/// One of the five artifacts. The order is the order of the tabs and of the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Architecture,
    Requirements,
    FileTree,
    ApiSpec,
    ClassDiagram,
}

impl Section {
    pub const ALL: [Section; 5] = [
        Section::Architecture,
        Section::Requirements,
        Section::FileTree,
        Section::ApiSpec,
        Section::ClassDiagram,
    ];

    /// Position in [`Section::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The payload key in CXP packets (`architecture`, `file_tree`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Section::Architecture => "architecture",
            Section::Requirements => "requirements",
            Section::FileTree => "file_tree",
            Section::ApiSpec => "api_spec",
            Section::ClassDiagram => "class_diagram",
        }
    }

    /// The marker word a reasoner writes before the section, without the colon.
    pub fn marker(self) -> &'static str {
        match self {
            Section::Architecture => "ARCHITECTURE",
            Section::Requirements => "REQUIREMENTS",
            Section::FileTree => "FILE_TREE",
            Section::ApiSpec => "API_SPEC",
            Section::ClassDiagram => "CLASS_DIAGRAM",
        }
    }

    /// Human title, used for tabs and commit summaries.
    pub fn title(self) -> &'static str {
        match self {
            Section::Architecture => "Architecture",
            Section::Requirements => "Requirements",
            Section::FileTree => "File tree",
            Section::ApiSpec => "API spec",
            Section::ClassDiagram => "Class diagram",
        }
    }

    /// File name under `PROJECT/design/`.
    pub fn file_name(self) -> &'static str {
        match self {
            Section::Architecture => "architecture.md",
            Section::Requirements => "requirements.md",
            Section::FileTree => "file_tree.md",
            Section::ApiSpec => "api_spec.md",
            Section::ClassDiagram => "class_diagram.md",
        }
    }

    pub fn from_key(key: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// One value per section, indexed by [`Section`]: the per-section tallies, marks and
/// cursors, instead of arrays indexed by a number that could be any number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PerSection<T>([T; 5]);

impl<T> PerSection<T> {
    pub fn from_fn(f: impl FnMut(Section) -> T) -> PerSection<T> {
        PerSection(Section::ALL.map(f))
    }

    /// Each section with its value, in [`Section::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Section, &T)> {
        Section::ALL.into_iter().zip(self.0.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Section, &mut T)> {
        Section::ALL.into_iter().zip(self.0.iter_mut())
    }
}

impl<T> std::ops::Index<Section> for PerSection<T> {
    type Output = T;

    fn index(&self, section: Section) -> &T {
        &self.0[section.index()]
    }
}

impl<T> std::ops::IndexMut<Section> for PerSection<T> {
    fn index_mut(&mut self, section: Section) -> &mut T {
        &mut self.0[section.index()]
    }
}

/// The five artifacts of one design cycle. An absent section is an empty string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifacts {
    #[serde(default)]
    pub architecture: String,
    #[serde(default)]
    pub requirements: String,
    #[serde(default)]
    pub file_tree: String,
    #[serde(default)]
    pub api_spec: String,
    #[serde(default)]
    pub class_diagram: String,
}

/// In the order of [`Section::ALL`].
impl From<[String; 5]> for Artifacts {
    fn from(parts: [String; 5]) -> Self {
        let [
            architecture,
            requirements,
            file_tree,
            api_spec,
            class_diagram,
        ] = parts;
        Artifacts {
            architecture,
            requirements,
            file_tree,
            api_spec,
            class_diagram,
        }
    }
}

impl Artifacts {
    pub fn get(&self, section: Section) -> &str {
        match section {
            Section::Architecture => &self.architecture,
            Section::Requirements => &self.requirements,
            Section::FileTree => &self.file_tree,
            Section::ApiSpec => &self.api_spec,
            Section::ClassDiagram => &self.class_diagram,
        }
    }

    pub fn get_mut(&mut self, section: Section) -> &mut String {
        match section {
            Section::Architecture => &mut self.architecture,
            Section::Requirements => &mut self.requirements,
            Section::FileTree => &mut self.file_tree,
            Section::ApiSpec => &mut self.api_spec,
            Section::ClassDiagram => &mut self.class_diagram,
        }
    }

    pub fn set(&mut self, section: Section, text: String) {
        *self.get_mut(section) = text;
    }

    pub fn iter(&self) -> impl Iterator<Item = (Section, &str)> {
        Section::ALL.into_iter().map(move |s| (s, self.get(s)))
    }

    /// True when every section is empty (the reasoner wrote no marker at all).
    pub fn is_empty(&self) -> bool {
        self.iter().all(|(_, text)| text.is_empty())
    }

    /// The sections whose text differs from `previous`.
    pub fn changed_since(&self, previous: &Artifacts) -> Vec<Section> {
        Section::ALL
            .into_iter()
            .filter(|s| self.get(*s) != previous.get(*s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_order_is_stable() {
        for (i, s) in Section::ALL.into_iter().enumerate() {
            assert_eq!(s.index(), i);
            assert_eq!(Section::from_key(s.key()), Some(s));
        }
    }

    #[test]
    fn artifacts_serialize_with_all_five_keys() {
        let value = serde_json::to_value(Artifacts::default()).unwrap();
        for s in Section::ALL {
            assert_eq!(value[s.key()], "");
        }
    }
}
