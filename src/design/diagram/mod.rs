//! The class diagram drawn: where each class box and each relationship goes on a
//! character grid. Pure: the workbench paints what `layout` returns, tests check it
//! without a terminal.

pub mod layout;

pub use layout::{
    ClassBox, DiagramLayout, EdgeEnd, EdgeRoute, HeadShape, Label, Rect, SelfLoop, Stroke, layout,
};
