//! The class diagram drawn: where each class box and each relationship goes on a
//! character grid. Pure: the workbench paints what `layout` returns, tests check it
//! without a terminal.

pub(crate) mod budget;
pub(crate) mod layout;
mod tracks;

pub use budget::{Budget, Refusal};
pub use layout::{
    ClassBox, DiagramLayout, EdgeEnd, EdgeRoute, HeadShape, Label, Path, Rect, SelfLoop, Stroke,
    layout, layout_within,
};
