//! The workbench's tabs: the five artifacts, the decision journal and the plan (the
//! reflection and the execution plan, read before finalizing and approving). A tab is
//! a value, not a number, so "is this an artifact?" is a match and a new tab is one
//! variant, one entry in [`Tab::ALL`] and one title.

use crate::design::Section;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    Artifact(Section),
    Journal,
    Plan,
}

impl Tab {
    /// Every tab in the order of the tab bar; key `1` is the first.
    pub const ALL: [Tab; 7] = [
        Tab::Artifact(Section::Architecture),
        Tab::Artifact(Section::Requirements),
        Tab::Artifact(Section::FileTree),
        Tab::Artifact(Section::ApiSpec),
        Tab::Artifact(Section::ClassDiagram),
        Tab::Journal,
        Tab::Plan,
    ];

    pub const COUNT: usize = Tab::ALL.len();

    /// Position in [`Tab::ALL`] (and in the per-tab view states).
    pub fn index(self) -> usize {
        match self {
            Tab::Artifact(section) => section.index(),
            Tab::Journal => Section::ALL.len(),
            Tab::Plan => Section::ALL.len() + 1,
        }
    }

    /// The tab at `index` in [`Tab::ALL`].
    pub fn at(index: usize) -> Option<Tab> {
        Tab::ALL.get(index).copied()
    }

    /// The tab a digit key picks (`'1'` is the first).
    pub fn for_digit(digit: char) -> Option<Tab> {
        let n = digit.to_digit(10)? as usize;
        n.checked_sub(1).and_then(Tab::at)
    }

    pub fn next(self) -> Tab {
        Tab::ALL[(self.index() + 1) % Tab::COUNT]
    }

    pub fn previous(self) -> Tab {
        Tab::ALL[(self.index() + Tab::COUNT - 1) % Tab::COUNT]
    }

    pub fn section(self) -> Option<Section> {
        match self {
            Tab::Artifact(section) => Some(section),
            Tab::Journal | Tab::Plan => None,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Tab::Artifact(section) => section.title(),
            Tab::Journal => "Journal",
            Tab::Plan => "Plan",
        }
    }
}

impl Default for Tab {
    fn default() -> Self {
        Tab::ALL[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_pick_tabs_in_bar_order_and_tab_wraps() {
        for (i, tab) in Tab::ALL.iter().enumerate() {
            assert_eq!(tab.index(), i);
            assert_eq!(Tab::at(i), Some(*tab));
        }
        assert_eq!(
            Tab::for_digit('1'),
            Some(Tab::Artifact(Section::Architecture))
        );
        assert_eq!(Tab::for_digit('6'), Some(Tab::Journal));
        assert_eq!(Tab::for_digit('7'), Some(Tab::Plan));
        assert_eq!(Tab::for_digit('0'), None);
        assert_eq!(Tab::Plan.next(), Tab::ALL[0]);
        assert_eq!(Tab::ALL[0].previous(), Tab::Plan);
    }
}
