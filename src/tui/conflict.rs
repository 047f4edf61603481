//! Edit conflicts in the workbench: the regions a merge of the reviewer's hand edit
//! with the architect's revision left between markers (`<<<<<<< reviewer`, an
//! optional `||||||| base`, `=======`, `>>>>>>> architect`). They are drawn as
//! conflicts, never as Markdown, and `<`, `>` or `=` keeps the reviewer's side, the
//! architect's, or both; the file is rewritten and the next verdict commits it as the
//! reviewer's edit.

use ratatui::style::{Color, Style};

/// The reviewer's side, and the opening marker.
pub const REVIEWER: Style = Style::new().fg(Color::Cyan);
/// The architect's side, and the closing marker.
pub const ARCHITECT: Style = Style::new().fg(Color::Magenta);

/// A marker line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Open,
    Base,
    Split,
    Close,
}

/// Which side the lines after a marker belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Reviewer,
    Base,
    Architect,
}

impl Marker {
    pub fn side_after(self) -> Option<Side> {
        match self {
            Marker::Open => Some(Side::Reviewer),
            Marker::Base => Some(Side::Base),
            Marker::Split => Some(Side::Architect),
            Marker::Close => None,
        }
    }
}

impl Side {
    pub fn style(self, muted: Style) -> Style {
        match self {
            Side::Reviewer => REVIEWER,
            Side::Base => muted,
            Side::Architect => ARCHITECT,
        }
    }
}

/// Whether `line` is a conflict marker (seven signs, alone or before a label).
pub fn marker(line: &str) -> Option<Marker> {
    let line = line.trim_end_matches('\r');
    let is = |sign: &str| {
        line.strip_prefix(sign)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    };
    if is("<<<<<<<") {
        Some(Marker::Open)
    } else if is("|||||||") {
        Some(Marker::Base)
    } else if line == "=======" {
        Some(Marker::Split)
    } else if is(">>>>>>>") {
        Some(Marker::Close)
    } else {
        None
    }
}

/// One conflict: the 0-based lines of its markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub open: usize,
    pub base: Option<usize>,
    pub split: usize,
    pub close: usize,
}

/// The conflict around line `at` (0-based), if any.
pub fn region_at(lines: &[&str], at: usize) -> Option<Region> {
    let mut open = None;
    let mut base = None;
    let mut split = None;
    for (i, line) in lines.iter().enumerate() {
        match marker(line) {
            Some(Marker::Open) => (open, base, split) = (Some(i), None, None),
            Some(Marker::Base) if open.is_some() => base = Some(i),
            Some(Marker::Split) if open.is_some() => split = Some(i),
            Some(Marker::Close) => {
                if let (Some(o), Some(s)) = (open, split)
                    && (o..=i).contains(&at)
                {
                    return Some(Region {
                        open: o,
                        base,
                        split: s,
                        close: i,
                    });
                }
                open = None;
            }
            _ => {}
        }
        if i > at && open.is_none() {
            return None;
        }
    }
    None
}

/// What to keep of a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    Reviewer,
    Architect,
    Both,
}

/// `text` with the conflict `region` replaced by the side(s) taken.
pub fn resolve(text: &str, region: Region, take: Take) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let reviewer = &lines[region.open + 1..region.base.unwrap_or(region.split)];
    let architect = &lines[region.split + 1..region.close];
    let kept: Vec<&str> = match take {
        Take::Reviewer => reviewer.to_vec(),
        Take::Architect => architect.to_vec(),
        Take::Both => reviewer.iter().chain(architect).copied().collect(),
    };
    let mut out: Vec<&str> = lines[..region.open].to_vec();
    out.extend(kept);
    out.extend(&lines[region.close + 1..]);
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "a\n<<<<<<< reviewer\nmine\n||||||| base\nold\n=======\ntheirs\n>>>>>>> architect\nz";

    #[test]
    fn each_take_keeps_its_side_and_drops_the_markers() {
        let lines: Vec<&str> = TEXT.lines().collect();
        assert_eq!(region_at(&lines, 0), None);
        let region = region_at(&lines, 4).unwrap();
        assert_eq!(
            (region.open, region.base, region.split, region.close),
            (1, Some(3), 5, 7)
        );
        assert_eq!(resolve(TEXT, region, Take::Reviewer), "a\nmine\nz");
        assert_eq!(resolve(TEXT, region, Take::Architect), "a\ntheirs\nz");
        assert_eq!(resolve(TEXT, region, Take::Both), "a\nmine\ntheirs\nz");
        assert_eq!(region_at(&lines, 8), None);
    }
}
